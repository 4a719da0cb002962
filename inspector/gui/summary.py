"""What the verdict bar, the status bar and the title say about a :class:`~.document.Document` (no widgets)."""

from __future__ import annotations

from dataclasses import dataclass

from inspector.checkpoint import Verdict
from inspector.checkpoint.analysis.story import plain_of

from . import style
from .document import Document, display_name

__all__ = ["VerdictText", "verdict_text", "subtitle", "window_title"]

APP = "Checkpoint Inspector"
#: The order of the rule counts in the summary line.
COUNT_ORDER = (Verdict.FAIL, Verdict.PASS, Verdict.NOT_REACHED, Verdict.NOT_APPLICABLE, Verdict.NOT_EVALUATED)


@dataclass
class VerdictText:
    """The verdict bar's lines: ``title`` in the colour of ``verdict`` (led by the plain-language
    sentence), ``reference`` (the reference's rule and message, beside it), ``subtitle`` below,
    ``status`` (the status bar's text) and
    ``ticket`` (a complete verdict: Copy for ticket is offered)."""

    title: str
    verdict: Verdict
    subtitle: str
    status: str
    root_button: bool
    reference: str = ""
    ticket: bool = False
    #: A VERIFIED verdict: what it proves, in short (the full text one click away); else "".
    proves: str = ""


#: What VERIFIED proves, in short, under the verdict (the full text: ``plain.toml`` ``not_proven``).
VERIFIED_PROVES = ("Integrity, not authenticity: the files agree with each other and with the format; this does "
                   "not say who made them.")


def subtitle(doc: Document) -> str:
    """Inputs, digest agreement and rule counts in one line under the verdict."""
    parts = []
    if doc.is_sample():
        parts.append("bundled sample — File ▸ Open or drop your own files")
    for side in doc.sides():
        parts.append(f"{side.source} {display_name(side.path)} ({side.size:,} bytes)")
    r = doc.report
    if r is None and doc.stage is not None:
        rows = doc.stage.digests
        if all(d.matches is True for d in rows) and len(rows) == 2:
            parts.append("size and content digest match")
        elif any(d.matches is False for d in rows):
            parts.append("MISMATCH: " + ", ".join(d.label.replace("payload ", "") for d in rows if d.matches is False))
        parts.append(f"{sum(1 for f in doc.stage.findings if f.failed)} FAIL so far")
    if r is not None:
        rows = r.digests
        bad = sum(1 for d in rows if d.matches is False)
        known = sum(1 for d in rows if d.matches is not None)
        parts.append(f"digests: {known - bad} of {known} match" + (f", {bad} MISMATCH" if bad else ""))
        counts = {}
        for f in r.findings:
            counts[f.verdict] = counts.get(f.verdict, 0) + 1
        # One fixed order (failures first), whatever order the rules happened to produce.
        parts.append(" · ".join(f"{counts[v]} {style.label(v)}" for v in COUNT_ORDER if counts.get(v)))
    return "   —   ".join(parts)


def verdict_text(doc: Document) -> VerdictText:
    """The verdict bar for what ``doc`` holds (also after a failed or cancelled open)."""
    text, verdict = style.overall_text(doc.report, doc.edited, saved_as=doc.saved_as())
    if doc.report is None and doc.stage is not None:
        # hash before parse: what is known already, in the engine's words (never contradicted later)
        text = doc.stage.headline
        verdict = Verdict.FAIL if doc.stage.root_cause is not None else Verdict.NOT_REACHED
    if doc.report is None and doc.verify_cancelled:
        how = "failed" if doc.verify_failed else "cancelled"
        if doc.payload is not None and not doc.payload.tree_ok:  # cancelled before its tree arrived
            text = f"Loading {how} before the payload was read: not verified (Reload, F5, starts again)"
        else:
            text = f"Loading {how}: the trees show the file, but it was not verified"
        verdict = Verdict.NOT_REACHED
    nothing = doc.is_empty
    if nothing:
        text, verdict = "No checkpoint open — drop a payload and its descriptor here, or use File ▸ Open", \
            Verdict.NOT_APPLICABLE
    sub = subtitle(doc)
    status = text
    if doc.open_error is not None:
        # why (the long message with the whole path) is in the error banner only, said once in full
        what, _why = doc.open_error
        if nothing:
            text, verdict = f"Nothing open — {what} could not be opened", Verdict.FAIL
            sub = "Use File ▸ Open, File ▸ Open Sample, or drop a payload and its descriptor here."
            status = f"Nothing open: {what} could not be opened"
        else:
            status = f"Could not open {what}; still showing: {text}"
    root = doc.report is not None and doc.report.root_cause is not None
    reference = ""
    staged_root = doc.report is None and doc.stage is not None and doc.stage.root_cause is not None
    if (root or staged_root) and not nothing:
        rc = doc.report.root_cause if root else doc.stage.root_cause
        reference = f"Reference: {rc.rule.id} failed — {rc.message}"
        if rc.rule.plain is not None:
            text = _plain_lead(text, rc, doc.report, doc.can_restore())
    proves = VERIFIED_PROVES if doc.report is not None and doc.report.verified and not nothing else ""
    return VerdictText(text, verdict, sub, status, root, reference, doc.report is not None and not nothing, proves)


def _plain_lead(text: str, rc, report=None, restorable: bool = True) -> str:
    """``NOT VERIFIED: X-BYTES failed — message`` -> ``NOT VERIFIED: <plain meaning>`` (any
    "Edited artifact" prefix kept): the sentence a support person can repeat comes first, as ``report`` proves it
    (:func:`~inspector.checkpoint.analysis.story.plain_of`: a proven restore leads with the restore)."""
    head = f"NOT VERIFIED: {rc.rule.id} failed — {rc.message}"
    at = text.find(head)
    if at < 0:
        return text
    rest = text[at + len(head):]
    meaning = plain_of(rc, report, restorable).meaning
    if rest[:1] in (";", ",", "."):  # "…cannot be read.; checking the other rules…" (a large load)
        meaning = meaning.rstrip(".")
    return text[:at] + f"NOT VERIFIED: {meaning}" + rest


def window_title(doc: Document) -> str:
    """The window title: the open files' names, ``*`` and "(edited, unsaved)" for sandbox edits;
    just the application's name when nothing is open."""
    names = " + ".join(doc.names())
    if not names and not doc.edited:
        return APP
    title = names or "(sandbox)"
    if doc.edited:
        title = "*" + title + " (edited, unsaved)"
    return f"{title} — {APP}"

