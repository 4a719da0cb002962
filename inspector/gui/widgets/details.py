"""The detail panels beside the verdicts and the digests: what a finding means, what a digest hashed."""

from __future__ import annotations

import html

from PySide6.QtCore import Signal
from PySide6.QtWidgets import QTabWidget, QTextBrowser, QVBoxLayout, QWidget

from inspector.checkpoint import Verdict
from inspector.checkpoint.analysis.story import comparison, plain_of

from .. import style
from ..qtcompat import emit
from inspector.session.visible import visible

__all__ = ["FindingDetail", "DigestDetail", "finding_html"]


def _esc(s) -> str:
    """HTML-escaped text with invisible characters shown (control pictures, \\u2028 escapes)."""
    return html.escape(visible(str(s)))


#: The next step when the failing artifact is the user's own sandbox edit (the catalogue's next
#: steps speak to support staff about a customer's files).
EDITED_NEXT_STEP = ("This is the edited copy in the sandbox, not the customer's files: undo the edit (Reload, "
                    "F5) or change the value until the rule passes; the original files are unchanged.")


def finding_html(f, report, edited: bool = False, restorable: bool = True) -> str:
    """HTML description of one finding: verdict, plain words (:func:`~inspector.checkpoint.analysis.story.plain_of`),
    message, where, the compared values (:func:`~inspector.checkpoint.analysis.story.comparison`), notes.
    ``restorable``: the window can restore the payload shown (``Document.can_restore``).
    ``edited``: the checkpoint shown is the user's sandbox edit (the next step speaks to them)."""
    rc = report.root_cause if report is not None else None
    label = style.relation_label(f, report)
    rel = report.relation(f) if report is not None else None
    col = style.colour(f.verdict).name()
    link = style.link_colour().name()
    out = [f"<h3 style='margin:0'>{_esc(f.rule.id)} — {_esc(f.rule.title)}</h3>",
           f"<p style='margin-top:4px'><b style='color:{col}'>{_esc(label)}</b>"]
    if f.failed and rc is not None and f is not rc and rel is not None and rel.kind == "consequence":
        cause = rel.caused_by
        whose = "the root cause " if cause == rc.rule.id else ""
        out.append(f" — a consequence of {whose}<a style='color:{link}' href='rule:{_esc(cause)}'>{_esc(cause)}</a>: "
                   f"{_esc(rel.because)}")
    elif f.failed and rc is not None and f is not rc:
        out.append(f" — also fails; fixing the root cause <a style='color:{link}' href='rule:{_esc(rc.rule.id)}'>"
                   f"{_esc(rc.rule.id)}</a> does not fix this")
    out.append("</p>")
    plain = plain_of(f, report, restorable)  # (a proven restore tells its own story: FORMAT.md 3.1, 3.2)
    if f.failed and plain is not None:
        out.append(f"<p><b>In plain words:</b> {_esc(plain.meaning)}<br><b>Likely causes:</b> "
                   f"{_esc('; '.join(plain.causes))}<br><b>Next step:</b> "
                   f"{_esc(EDITED_NEXT_STEP if edited else plain.next_step)}</p>")
    if f.message:
        out.append(f"<p><b>Message:</b> <code>{_esc(f.message)}</code></p>")
    if f.verdict is Verdict.NOT_REACHED and f.blocked_by:
        out.append(f"<p>Not checked because <a style='color:{link}' href='rule:{_esc(f.blocked_by)}'>{_esc(f.blocked_by)}</a> failed first.</p>")
    if f.locations:
        out.append("<p><b>Where:</b><br>")
        for i, loc in enumerate(f.locations):
            span = f"bytes {loc.span[0]}–{loc.span[1]}" if loc.span else "absent from the file"
            out.append(f"&nbsp;&nbsp;<a style='color:{link}' href='loc:{i}'>{_esc(loc.source)} {_esc(loc.pointer or '/')}</a> ({span})<br>")
        out.append("</p>")
    rows = comparison(f)  # the digests table's words and order (Stated, Recomputed) for a cross-binding rule
    if rows:
        out.append("<table cellspacing='0' cellpadding='3' border='1' style='border-collapse:collapse'>")
        out += [f"<tr><td><b>{_esc(label)}</b></td><td><code>{_esc(value if value is not None else '—')}</code></td></tr>"
                for label, value in rows]
        out.append("</table>")
    if f.notes:
        out.append("<ul>" + "".join(f"<li>{_esc(n)}</li>" for n in f.notes) + "</ul>")
    if f.occurrences > 1:
        out.append(f"<p>{f.occurrences} occurrences; the first is shown.</p>")
    meta = [f"stage {_esc(f.rule.group)}"]
    if f.rule.code:
        meta.append(f"code <code>{_esc(f.rule.code)}</code>")
    meta.append(_esc(f.rule.doc_ref))
    out.append(f"<p style='color:gray'>{' · '.join(meta)}</p>")
    return "".join(out)


class FindingDetail(QTextBrowser):
    """Read-only description of the selected finding; links jump to locations and rules."""

    locationClicked = Signal(int)
    ruleClicked = Signal(str)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setOpenLinks(False)
        self.anchorClicked.connect(self._anchor)
        self.setPlaceholderText("Select a rule to see what it checks, where it failed, and what was expected.")
        self.setAccessibleName("Finding details")

    def _anchor(self, url):
        s = url.toString()
        if s.startswith("loc:"):
            emit(self.locationClicked, int(s[4:]))
        elif s.startswith("rule:"):
            emit(self.ruleClicked, s[5:])


class DigestDetail(QWidget):
    """Shows exactly which bytes a digest hashes: domain string, the 0x00 separator, canonical JSON."""

    def __init__(self, hex_view_cls, parent=None):
        super().__init__(parent)
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        self.tabs = QTabWidget()
        self.tabs.setAccessibleName("What was hashed and its bytes")
        self.text = QTextBrowser()
        self.text.setAccessibleName("Digest details")
        self.text.setPlaceholderText("Select a digest to see the exact bytes that were hashed.")
        self.hex = hex_view_cls()
        self.hex.setAccessibleName("Hashed bytes")
        self.tabs.addTab(self.text, "What was hashed")
        self.tabs.addTab(self.hex, "Hashed bytes")
        lay.addWidget(self.tabs, 1)

    def clear(self) -> None:
        self.text.setHtml("")
        self.hex.set_data(None, "Select a digest.")

    def show_row(self, row, payload_span: tuple[int, int] | None) -> None:
        """Describe ``row`` (a ``DigestRow``); ``payload_span`` is the payload bytes a content digest covers."""
        verdict = style.match_label(row.matches)
        col = style.match_colour(row.matches).name()
        out = [f"<p style='margin:0'><b>{_esc(row.label)}</b> — <b style='color:{col}'>{_esc(verdict)}</b></p>",
               "<table cellspacing='0' cellpadding='2'>",
               f"<tr><td>stated</td><td><code>{_esc(row.stated if row.stated is not None else '—')}</code></td></tr>",
               f"<tr><td>recomputed&nbsp;</td><td><code>{_esc(row.recomputed if row.recomputed is not None else '—')}"
               "</code></td></tr></table>"]
        pre = row.preimage
        if row.domain:
            dlen = len(row.domain.encode())
            out.append(f"<p>SHA-256 over <b>{row.preimage_size}</b> bytes: the domain string (bytes 0–{dlen}), one "
                       f"<b>0x00</b> separator (byte {dlen}), then the canonical JSON of the evidence without its "
                       f"digest field (bytes {dlen + 1}–{row.preimage_size}):</p>")
            json_part = (pre or b"")[dlen + 1:].decode("utf-8", "replace")
            out.append(f"<pre style='white-space:pre-wrap'>{_esc(row.domain)}</pre><p style='margin:0'>"
                       f"<b>⟨0x00⟩</b></p><pre style='white-space:pre-wrap'>{_esc(json_part)}</pre>")
            self.hex.set_data(pre)
            self.hex.highlight((dlen, dlen + 1))
        elif row.preimage_size or pre is not None:
            where = ""
            if payload_span is not None:
                where = f" They are bytes {payload_span[0]}–{payload_span[1]} of the payload file."
            out.append(f"<p>SHA-256 over <b>{row.preimage_size}</b> bytes, with no domain string.{_esc(where)}</p>")
            if pre is not None:
                shown = pre[:20_000].decode("utf-8", "replace")
                more = " …" if len(pre) > 20_000 else ""
                lines = "\n".join(_esc(line) for line in shown.split("\n"))  # line breaks stay breaks
                out.append(f"<pre style='white-space:pre-wrap'>{lines}{more}</pre>")
                self.hex.set_data(pre)
            else:
                out.append("<p>Too large to keep; see the payload bytes view.</p>")
                self.hex.set_data(None, "too large to keep; see the payload bytes view")
        else:
            out.append("<p>A size: compared as a number; nothing is hashed.</p>")
            self.hex.set_data(None, "nothing hashed")
        self.text.setHtml("".join(out))
