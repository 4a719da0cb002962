"""Ticket report renderers: text, Markdown, self-contained HTML, JSON, SARIF.

Each takes the dict of :func:`~.model.build_ticket` and returns ``str``; no I/O. Every format
ends with the report's own digest, ``report-sha256:<64 hex>``, defined as:

    the SHA-256 of the report's UTF-8 bytes in which the 64 hexadecimal digits after the
    **last** occurrence of ``report-sha256:`` are replaced by 64 ``0`` characters.

So anyone can recompute it (:func:`check_report`, ``checkpoint-inspector report --check FILE``),
and a report edited after it was made no longer matches. A match shows that the report is
unchanged since it was written, unless someone edited it and recomputed the digest: anyone can,
so the digest is not a signature (it proves neither who wrote the report nor that it is unedited).

The text, Markdown and HTML forms are terminal-safe: every line or field they print passes
through :func:`inspector.checkpoint.display_text`, the escapes the command line's
:func:`inspector.cli.termsafe.terminal_safe` applies (the same function: this package is shared
with the window, which never imports the command line), so a control, bidi or zero-width
character from a file (an ESC sequence, U+202E, ...) is shown as ``\\x1b``/``\\u202e`` and a
newline in a value as ``\\n``. JSON and SARIF keep the exact values.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json

from inspector.checkpoint import display_text
from inspector import sarif
from inspector.formats import family

from .credentials import CREDENTIAL_SHAPED
from .model import VERDICT_COUNTS

__all__ = ["FORMATS", "HTML_CSP", "render", "to_text", "to_markdown", "to_html", "to_json", "to_sarif",
           "check_report", "SELF_DIGEST_LABEL"]

SELF_DIGEST_LABEL = "report-sha256:"
_ZERO = "0" * 64
_PLACEHOLDER = SELF_DIGEST_LABEL + _ZERO


def _seal(text: str) -> str:
    """Replace the placeholder digest (the last one) by the report's own digest."""
    at = text.rindex(_PLACEHOLDER) + len(SELF_DIGEST_LABEL)
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    return text[:at] + digest + text[at + 64:]


def check_report(data: bytes) -> bool | None:
    """Does a report's own digest match? ``True``: unchanged since it was written, unless the
    digest was recomputed after an edit (it is not a signature); ``False``: its bytes changed
    after it was written; ``None`` when it holds no ``report-sha256:`` digest (not a report, or
    the digest was removed)."""
    label = SELF_DIGEST_LABEL.encode()
    at = data.rfind(label)
    if at < 0:
        return None
    start = at + len(label)
    stated = data[start:start + 64]
    if len(stated) != 64 or any(c not in b"0123456789abcdef" for c in stated):
        return None
    zeroed = data[:start] + _ZERO.encode() + data[start + 64:]
    return hashlib.sha256(zeroed).hexdigest().encode() == stated


def _counts(rules: dict) -> str:
    return ", ".join(f"{rules[v.value]} {word}" for v, word in VERDICT_COUNTS)


def _pin(t: dict) -> str:
    ref = t["inspector"]["reference"]
    return (f"checkpoint-inspector {t['inspector']['version']}; rule catalogue {t['inspector']['rule_catalogue']}; "
            f"reference A3S Code {ref['a3s_code_commit'][:7]} ({ref['a3s_code_release']}, "
            f"commit {ref['a3s_code_commit']}), serde_json {ref['serde_json']}")


def _other_failures(t: dict) -> list[tuple[str, list]]:
    """The failures other than the root cause, split by their relation to it:
    ``[(heading, items)]`` for the consequences, then the independent failures (empty groups left out)."""
    cons = [c for c in t["consequences"] if c.get("relation", "consequence") == "consequence"]
    other = [c for c in t["consequences"] if c.get("relation") == "independent"]
    return [(h, items) for h, items in (("Consequences (follow from the root cause)", cons),
                                        ("Also failing (independent: fixing the root cause does not fix these)", other))
            if items]


def _redaction_line(t: dict) -> str:
    r = t["redaction"]
    n = r["values_redacted"]
    cred, withheld = r.get("credential_shaped_ids", 0), r.get("digests_and_sizes_withheld", 0)
    line = (f"Redaction: {n} value{'' if n == 1 else 's'} from the files redacted in this report "
            f"({'with tags' if r['sha256_prefixes'] else 'digests and sizes tagged' if withheld or r.get('file_digests_withheld') else 'no tags'})"
            + (f"; {cred} id{'' if cred == 1 else 's'} redacted: {CREDENTIAL_SHAPED}" if cred else "")
            + (f"; {withheld} digest{'' if withheld == 1 else 's'} or size{'' if withheld == 1 else 's'} "
               f"of redacted content withheld" if withheld else "")
            + (f"; {r['file_digests_withheld']} digest{'' if r['file_digests_withheld'] == 1 else 's'} of the files "
               "tagged (ask for them in clear with report --file-digests)" if r.get("file_digests_withheld") else "")
            + ("; the files' digests are shown in clear, as asked (--file-digests)" if r.get("file_digests") else "")
            + f"; {r['policy']}."
            + (f" Tags: {r['tags']}." if r.get("tags") else ""))
    rp = r.get("redacted_payload")
    if rp:
        line += (f" Redacted copy of the payload: {rp['name']} ({rp['size_bytes']} bytes, {rp['sha256']}, "
                 f"{rp['replacements']} replacements; not a checkpoint: its digests no longer match).")
    return line


def _footer_lines(t: dict) -> list[str]:
    return [f"Inspector: {_pin(t)}", f"Date: {t['date']}",
            f"Report digest: {_PLACEHOLDER}",
            "  (SHA-256 of this report with these 64 hex digits replaced by zeros. A match shows the report is "
            "unchanged since it was written, unless someone edited it and recomputed the digest: it is not a "
            "signature. Check with `checkpoint-inspector report --check FILE`)"]


def _lines(out: list[str]) -> str:
    """The report's lines joined, each terminal-safe (a newline inside a value is escaped too)."""
    return "\n".join(display_text(line) for line in out) + "\n"


def to_text(t: dict) -> str:
    """The short plain-text ticket: what the window's "Copy for ticket" puts on the clipboard.
    Each line terminal-safe (see the module docstring)."""
    out = ["Checkpoint Inspector report", "",
           f"Verdict: {t['verdict']}. {t['headline']}",
           f"Next step: {t['next_step']}", ""]
    out.append("Files:")
    for f in t["files"]:
        out.append(f"  {f['role']}: {f['name']} ({f['size_bytes']} bytes, {f['sha256']})")
        if f.get("note"):
            out.append(f"    note: {f['note']}")
    for reason in t.get("reasons", ()):
        out.append(f"  {reason}")
    rc = t["root_cause"]
    if rc is not None:
        out += ["", f"Root cause: {rc['rule']} ({rc['title']})",
                f"  code:     {rc['code'] or '(none: host-side parse error)'}",
                f"  message:  {rc['message']}"]
        if rc["where"]:
            out.append(f"  where:    {rc['where']}")
        for c in rc["compared"]:  # (the digests table's words and order: Stated, Recomputed)
            value = rc.get(c.get("field"))
            out.append(f"  {(c['label'].lower() + ':').ljust(9)} {value if value is not None else '—'}")
        for d in rc["details"]:
            out.append(f"  - {d}")
        out.append(f"  in plain words: {rc['meaning']}")
        out.append(f"  likely causes:  {'; '.join(rc['causes'])}")
    for heading, items in _other_failures(t):
        out += ["", heading + ":"]
        for c in items:
            out.append(f"  {c['rule']}: {c['message']}" + (f" [{c['where']}]" if c["where"] else ""))
    if t["digests"]:
        same = sum(1 for d in t["digests"] if d["matches"] is True)
        out += ["", f"Digests: {same} of {len(t['digests'])} match (stated in the descriptor / recomputed from the "
                    "payload)" + (":" if same < len(t["digests"]) else ".")]
        for d in t["digests"]:
            if d["matches"] is not True:
                out.append(f"  {'DIFF' if d['matches'] is False else '    '} {d['label']:32} "
                           f"stated     {'-' if d['stated'] is None else d['stated']}")
                out.append(f"       {'':32} recomputed {'-' if d['recomputed'] is None else d['recomputed']}")
    if t["rules"] is not None:
        out += ["", f"Rules: {_counts(t['rules'])}"]
    res = t.get("resumability")
    if res is not None:
        out.append(f"Can it resume? {res['headline']}")
        out += [f"  - {r['text']}" for r in res["reasons"][:3]]
        out += [f"  - depends on the host: {u}" for u in res["unknowns"]]
    for f in t.get("lint", ())[:5]:
        out.append(f"Integrity lint: {f['title']}" + (f" [{f['where']}]" if f["where"] else ""))
    if t.get("generation") is not None:
        out.append(f"Generation: {_generation_text(t['generation'])}")
    out += [f"Note: {n}" for n in t.get("notes", ())]
    if t["not_proven"]:
        out += ["", "What a VERIFIED verdict does not prove:"] + [f"  - {s}" for s in t["not_proven"]]
    out += ["", _redaction_line(t), ""] + _footer_lines(t)
    return _seal(_lines(out))


def _generation_text(gen) -> str:
    """``detected: written_by`` (and the rule it explains); the summary sentence is one of the notes."""
    if isinstance(gen, dict):
        text = f"{gen.get('detected')}: {gen.get('written_by')}"
        return text + (f" (explains {gen['explains']})" if gen.get("explains") else "")
    return str(gen)


def _md(s) -> str:
    """Markdown-safe inline text (backslash-escapes the characters Markdown would interpret)."""
    s = "-" if s is None else str(s)
    out = "".join("\\" + ch if ch in "\\`*_[]<>|" else ch for ch in s).replace("\n", " ")
    return "\\" + out if out[:1] in ("#", "-", "+", "=") else out


def to_markdown(t: dict) -> str:
    """The ticket as Markdown (tables for files and digests; the root cause in a list); each line
    terminal-safe (see the module docstring; :func:`_md` already puts a value's newlines as spaces)."""
    out = ["# Checkpoint Inspector report", "",
           f"**Verdict: {_md(t['verdict'])}.** {_md(t['headline'])}", "",
           f"**Next step:** {_md(t['next_step'])}", "", "## Files", "",
           "| Role | Name | Size (bytes) | SHA-256 |", "|---|---|---|---|"]
    for f in t["files"]:
        out.append(f"| {_md(f['role'])} | {_md(f['name'])} | {f['size_bytes']} | `{f['sha256']}` |")
    for f in t["files"]:
        if f.get("note"):
            out.append(f"\nNote on {_md(f['name'])}: {_md(f['note'])}")
    for reason in t.get("reasons", ()):
        out.append(f"\n{_md(reason)}")
    rc = t["root_cause"]
    if rc is not None:
        out += ["", f"## Root cause: {_md(rc['rule'])} ({_md(rc['title'])})", "",
                f"- **In plain words:** {_md(rc['meaning'])}",
                f"- **Likely causes:** {_md('; '.join(rc['causes']))}",
                f"- **Code:** {_md(rc['code'] or '(none: host-side parse error)')}",
                f"- **Message:** {_md(rc['message'])}",
                f"- **Where:** {_md(rc['where'])}"]
        out += [f"- **{_md(c['label'])}:** {_md(rc.get(c.get('field')))}" for c in rc["compared"]]
        out += [f"- {_md(d)}" for d in rc["details"]]
    for heading, items in _other_failures(t):
        out += ["", f"## {heading}", ""]
        out += [f"- **{_md(c['rule'])}**: {_md(c['message'])}" + (f" ({_md(c['where'])})" if c["where"] else "")
                for c in items]
    if t["digests"]:
        out += ["", "## Digests", "", "| | Value | Stated in the descriptor | Recomputed from the payload |",
                "|---|---|---|---|"]
        for d in t["digests"]:
            mark = {True: "ok", False: "**DIFF**", None: ""}[d["matches"]]
            out.append(f"| {mark} | {_md(d['label'])} | {_md(d['stated'])} | {_md(d['recomputed'])} |")
    if t["rules"] is not None:
        out += ["", f"**Rules:** {_md(_counts(t['rules']))}"]
    res = t.get("resumability")
    if res is not None:
        out += ["", f"**Can it resume?** {_md(res['headline'])}", ""]
        out += [f"- {_md(r['text'])}" for r in res["reasons"]]
        out += [f"- depends on the host: {_md(u)}" for u in res["unknowns"]]
    if t.get("lint"):
        out += ["", "**Integrity lint:**", ""] + [f"- {_md(f['title'])}: {_md(f['explanation'])}" for f in t["lint"]]
    if t.get("generation") is not None:
        out += ["", f"**Generation:** {_md(_generation_text(t['generation']))}"]
    out += [f"\n**Note:** {_md(n)}" for n in t.get("notes", ())]
    if t["not_proven"]:
        out += ["", "## What a VERIFIED verdict does not prove", ""] + [f"- {_md(s)}" for s in t["not_proven"]]
    out += ["", _md(_redaction_line(t)), ""]
    footer = _footer_lines(t)
    out += [_md(footer[0]), "", _md(footer[1]), "", f"Report digest: `{_PLACEHOLDER}`", "", _md(footer[3].strip())]
    return _seal(_lines("\n".join(out).split("\n")))


_CSS = """
body{font:15px/1.45 system-ui,-apple-system,"Segoe UI",sans-serif;margin:2em auto;max-width:60em;padding:0 1em;
color:#1b1b1b;background:#fff}
h1{font-size:1.5em;margin-bottom:.3em}h2{font-size:1.15em;margin-top:1.6em;border-bottom:1px solid #ddd}
.verdict{padding:.8em 1em;border-radius:6px;border:2px solid;margin:1em 0}
.verdict.fail{background:#fdecea;border-color:#b3261e}.verdict.ok{background:#e7f4ea;border-color:#1e6b34}
.verdict.other{background:#f3f3f3;border-color:#666}
.verdict .word{font-weight:700;font-size:1.2em}
.rootcause{border-left:6px solid #b3261e;background:#fff4f2;padding:.6em 1em;margin:.6em 0}
table{border-collapse:collapse;width:100%;font-size:.92em}td,th{border:1px solid #ddd;padding:.3em .5em;
text-align:left;vertical-align:top}th{background:#f5f5f5}
code,.mono{font-family:ui-monospace,"DejaVu Sans Mono",Menlo,Consolas,monospace;font-size:.9em;word-break:break-all}
tr.diff td{background:#fdecea;font-weight:600}dt{font-weight:600;margin-top:.4em}dd{margin-left:1.2em}
.muted{color:#555;font-size:.9em}
"""


#: The HTML page's Content-Security-Policy, the first element of its ``<head>`` (a policy applies only to what
#: follows it): nothing may load or run (``default-src 'none'``: no script, image, font, frame or fetch, from
#: anywhere), the one ``<style>`` element applies because its SHA-256 is named (not ``'unsafe-inline'``: a
#: style or ``style=`` attribute that got into the page would not apply), and neither a ``<base>`` nor a form
#: can send the reader elsewhere. The page needs nothing more: no image, no font file, no link.
HTML_CSP = ("default-src 'none'; style-src 'sha256-"
            + base64.b64encode(hashlib.sha256(_CSS.encode("utf-8")).digest()).decode("ascii")
            + "'; base-uri 'none'; form-action 'none'")
_CSP_META = f'<meta http-equiv="Content-Security-Policy" content="{HTML_CSP}">'  # (no " & < > in it)


def _h(s) -> str:
    return html.escape(display_text("-" if s is None else str(s)), quote=True)


def to_html(t: dict) -> str:
    """The ticket as one self-contained HTML page (inline CSS, no scripts, no external resources);
    the verdict and the root cause are highlighted. Safe by construction: its ``<head>`` opens with
    :data:`HTML_CSP` (no script runs and nothing loads even if markup got into the page), and every value
    is escaped (:func:`html.escape` of its terminal-safe text)."""
    cls = {"VERIFIED": "ok", "NOT VERIFIED": "fail", "NOT A CHECKPOINT": "fail"}.get(t["verdict"], "other")
    icon = {"ok": "\u2714", "fail": "\u2716"}.get(cls, "\u2013")
    out = ["<!DOCTYPE html>", f'<html lang="en"><head>{_CSP_META}<meta charset="utf-8">',
           "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
           f"<title>Checkpoint Inspector report: {_h(t['verdict'])}</title>", f"<style>{_CSS}</style></head><body>",
           "<h1>Checkpoint Inspector report</h1>",
           f'<div class="verdict {cls}"><span class="word">{icon} {_h(t["verdict"])}</span> {_h(t["headline"])}'
           f"<br><b>Next step:</b> {_h(t['next_step'])}</div>",
           "<h2>Files</h2><table><tr><th>Role</th><th>Name</th><th>Size (bytes)</th><th>SHA-256</th></tr>"]
    for f in t["files"]:
        out.append(f"<tr><td>{_h(f['role'])}</td><td>{_h(f['name'])}</td><td>{f['size_bytes']}</td>"
                   f"<td class=\"mono\">{_h(f['sha256'])}</td></tr>")
    out.append("</table>")
    notes = [f"{f['name']}: {f['note']}" for f in t["files"] if f.get("note")] + list(t.get("reasons", ()))
    out += [f'<p class="muted">{_h(n)}</p>' for n in notes]
    rc = t["root_cause"]
    if rc is not None:
        out += [f"<h2>Root cause: {_h(rc['rule'])}</h2>", '<div class="rootcause">',
                f"<p><b>{_h(rc['meaning'])}</b></p><dl>",
                f"<dt>Rule</dt><dd>{_h(rc['rule'])}: {_h(rc['title'])}</dd>",
                f"<dt>Code</dt><dd class=\"mono\">{_h(rc['code'] or '(none: host-side parse error)')}</dd>",
                f"<dt>Message</dt><dd class=\"mono\">{_h(rc['message'])}</dd>",
                f"<dt>Where</dt><dd class=\"mono\">{_h(rc['where'])}</dd>",
                *(f"<dt>{_h(c['label'])}</dt><dd class=\"mono\">{_h(rc.get(c.get('field')))}</dd>" for c in rc["compared"]),
                f"<dt>Likely causes</dt><dd><ul>{''.join(f'<li>{_h(c)}</li>' for c in rc['causes'])}</ul></dd>"]
        if rc["details"]:
            out.append(f"<dt>Details</dt><dd><ul>{''.join(f'<li>{_h(d)}</li>' for d in rc['details'])}</ul></dd>")
        out.append("</dl></div>")
    for heading, items in _other_failures(t):
        out.append(f"<h2>{_h(heading)}</h2><ul>")
        out += [f"<li><b>{_h(c['rule'])}</b>: {_h(c['message'])}" + (f" <span class=\"mono\">({_h(c['where'])})</span>"
                if c["where"] else "") + "</li>" for c in items]
        out.append("</ul>")
    if t["digests"]:
        out.append("<h2>Digests</h2><table><tr><th></th><th>Value</th><th>Stated in the descriptor</th>"
                   "<th>Recomputed from the payload</th></tr>")
        for d in t["digests"]:
            row = ' class="diff"' if d["matches"] is False else ""
            mark = {True: "ok", False: "DIFF", None: ""}[d["matches"]]
            out.append(f"<tr{row}><td>{mark}</td><td>{_h(d['label'])}</td><td class=\"mono\">{_h(d['stated'])}</td>"
                       f"<td class=\"mono\">{_h(d['recomputed'])}</td></tr>")
        out.append("</table>")
    if t["rules"] is not None:
        out.append(f"<p><b>Rules:</b> {_h(_counts(t['rules']))}</p>")
    res = t.get("resumability")
    if res is not None:
        items = [r["text"] for r in res["reasons"]] + [f"depends on the host: {u}" for u in res["unknowns"]]
        out.append(f"<p><b>Can it resume?</b> {_h(res['headline'])}</p><ul>"
                   + "".join(f"<li>{_h(i)}</li>" for i in items) + "</ul>")
    if t.get("lint"):
        out.append("<p><b>Integrity lint:</b></p><ul>" + "".join(
            f"<li>{_h(f['title'])}: {_h(f['explanation'])}</li>" for f in t["lint"]) + "</ul>")
    if t.get("generation") is not None:
        out.append(f"<p><b>Generation:</b> {_h(_generation_text(t['generation']))}</p>")
    out += [f"<p><b>Note:</b> {_h(n)}</p>" for n in t.get("notes", ())]
    if t["not_proven"]:
        out.append("<h2>What a VERIFIED verdict does not prove</h2><ul>")
        out += [f"<li>{_h(s)}</li>" for s in t["not_proven"]]
        out.append("</ul>")
    footer = _footer_lines(t)
    out += [f'<p class="muted">{_h(_redaction_line(t))}</p>', f'<p class="muted">{_h(footer[0])}<br>{_h(footer[1])}</p>',
            f'<p class="muted mono">Report digest: {_PLACEHOLDER}</p>', f'<p class="muted">{_h(footer[3].strip())}</p>',
            "</body></html>"]
    return _seal("\n".join(out) + "\n")


def to_json(t: dict) -> str:
    """The ticket dict as JSON (``report --format json``), with ``report_sha256`` as its last key."""
    return _seal(json.dumps({**t, "report_sha256": _PLACEHOLDER}, ensure_ascii=False, indent=2) + "\n")


def to_sarif(t: dict) -> str:
    """SARIF 2.1.0 (:mod:`inspector.sarif`): the root cause and its consequences as results (redacted messages and
    locations, file names only); the whole ticket in ``runs[0].properties.ticket``."""
    rc = t["root_cause"]
    failed = ([(rc, True)] if rc else []) + [(c, False) for c in t["consequences"]]
    results = [sarif.result(f["rule"], f["message"], {"root_cause": root, "code": f["code"], "where": f["where"],
                                                      "meaning": f["meaning"]}) for f, root in failed]
    rules = [{"id": f["rule"], "shortDescription": {"text": f["title"]},
              "help": {"text": f["meaning"] or f["title"]}} for f, _root in failed]
    artifacts = [{"location": {"uri": f["name"]}, "length": f["size_bytes"],
                  "hashes": {"sha-256": f["sha256"].removeprefix("sha256:")}, "roles": ["analysisTarget"]}
                 for f in t["files"]]
    return _seal(sarif.dumps(sarif.log(rules, results, tool_version=t["inspector"]["version"], artifacts=artifacts,
                                       run_properties={"ticket": t},
                                       log_properties={"report_sha256": _PLACEHOLDER})))


#: ``report --format`` name -> writer, from the one registry of the report family (:mod:`inspector.formats`).
FORMATS = {f.name: f.writer() for f in family("report")}


def render(t: dict, fmt: str) -> str:
    """Render a ticket dict in one of :data:`FORMATS`. Raises ``KeyError`` for an unknown format."""
    return FORMATS[fmt](t)
