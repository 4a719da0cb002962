"""One story for a verdict: the plain-words meaning, likely causes and next step of a failing rule *in this
report*, and the verdict's headline and next step, told the same way by every front-end (the window's verdict bar
and detail pane, the ticket in text, Markdown, HTML and JSON, the CLI's text report).

A rule's own plain words (``plain.toml``) speak of every way it can fail. When the report proves more than the rule
does, the story says what is proven and drops what it disproves: X-BYTES says "changed after export, or the two files
come from different checkpoints", but when the payload's canonical re-encoding is exactly the bytes the descriptor
binds by size and SHA-256 (FORMAT.md 3.1, 3.2; :mod:`.restore`), the two files are the same checkpoint and the
original can be restored, so asking the customer for the files again is not the next step.

The comparison rows (:func:`comparison`) give a failing rule's two values in the words and order of the digests
table: a cross-binding rule (``rules.toml`` ``compares = "stated"``) compares what the descriptor *states* with what
is *recomputed* from the payload (FORMAT.md 3.2, 6.2); any other rule compares what the format expects with what
the file holds.
"""

from __future__ import annotations

from dataclasses import dataclass

from inspector.checkpoint.rules.catalogue import Plain

__all__ = ["plain_of", "PlainVerdict", "plain_verdict", "compared_fields", "comparison", "STATED", "RECOMPUTED", "RESTORE_NEXT_STEP"]

#: The digests table's column titles (Stated: the descriptor's value; Recomputed: the engine's, from the payload).
STATED, RECOMPUTED = "Stated", "Recomputed"

#: The next step when the original is proven (both front-ends named: the ticket is read away from the window).
RESTORE_NEXT_STEP = ("Restore the original and use that file: in the window, File ▸ Restore Original… writes it to a "
                     "new file; on the command line, checkpoint-inspector restore PAYLOAD DESCRIPTOR -o NEW_FILE. "
                     "There is no need to ask for the files again.")


def _restored_plain(restoration) -> Plain:
    """X-BYTES's plain words when the original is proven (FORMAT.md 3.1, 3.2): our words only (the restored size,
    a value of the files, is in the restore notice and the ticket's ``restoration``, through the gate)."""
    return Plain(
        meaning=("The payload file is the exported checkpoint, re-saved or converted after export: what it holds is "
                 "unchanged, and the original can be restored exactly (its size and SHA-256 match the descriptor)."),
        causes=tuple(restoration.changes) or ("a change of form after export",),
        next_step=RESTORE_NEXT_STEP)


def plain_of(finding, report=None, restorable: bool = True) -> Plain | None:
    """The plain words (:class:`~inspector.checkpoint.rules.catalogue.Plain`) for ``finding`` (a
    :class:`~inspector.checkpoint.report.Finding`) as ``report`` (a :class:`~inspector.checkpoint.report.Report`, or
    ``None``) proves it: the rule's own (``plain.toml``), except X-BYTES as the root cause with its original proven
    (``report.restoration``; every descriptor rule passed, since they all come first), which says so. Not when
    X-BYTES only follows another failure (a descriptor failing its own digest proves nothing), nor when the front-end
    cannot restore what it shows (``restorable`` False: an edit, one SDK export wrapper in the window); ``None`` when
    the rule has none."""
    restoration = getattr(report, "restoration", None) if report is not None else None
    if (restoration is not None and restorable and finding.failed and finding.rule.id == "X-BYTES"
            and report.root_cause is finding):
        return _restored_plain(restoration)
    return finding.rule.plain


@dataclass(frozen=True)
class PlainVerdict:
    """A verdict told in plain words: ``word`` (``VERIFIED``, ``NOT VERIFIED``, ``CONSISTENT``, ``INCONCLUSIVE``),
    ``headline`` (one or two sentences) and ``next_step`` (one or more sentences)."""

    word: str
    headline: str
    next_step: str


def plain_verdict(report) -> PlainVerdict:
    """The plain-words verdict of ``report`` (a :class:`~inspector.checkpoint.report.Report`): the root cause's
    :func:`plain_of` (FORMAT.md 5: the first failing rule in the reference's order), or the words for a VERIFIED, a
    one-sided or an inconclusive report."""
    rc = report.root_cause
    if report.inconclusive:
        return PlainVerdict("INCONCLUSIVE", "An internal error left some rules unevaluated: this is a fault in "
                            "Checkpoint Inspector, not a verdict on the files.",
                            "Send this report to the Checkpoint Inspector maintainers.")
    if report.verified:
        return PlainVerdict("VERIFIED", "The two files are an intact A3S Code checkpoint: the reference "
                            "implementation accepts them.", "Nothing is wrong with these files. If importing them "
                            "still fails, the cause is on the importing side (see what VERIFIED does not prove).")
    if rc is None:
        only = "payload" if report.has_payload else "descriptor"
        other = "descriptor" if report.has_payload else "payload"
        return PlainVerdict("CONSISTENT", f"No rule failed for this {only} alone; the pair cannot be verified without "
                            f"its {other}.", f"Ask the customer for the {other} from the same export.")
    plain = plain_of(rc, report)
    return PlainVerdict("NOT VERIFIED", plain.meaning if plain else rc.rule.title, plain.next_step if plain else "")


def compared_fields(rule) -> tuple[tuple[str, str], ...]:
    """``((label, attribute), (label, attribute))``: how a failing ``rule``'s two compared values are shown, in
    display order, naming the :class:`~inspector.checkpoint.report.Finding` attribute that holds each.

    A cross-binding rule (``Rule.compares == "stated"``: X-BYTES, X-DESCRIPTOR, X-SNAPSHOT-EVIDENCE,
    X-LOGICAL-EVIDENCE) holds the descriptor's value, found where it points, as ``actual`` and the value rebuilt from
    the payload as ``expected``: ``(("Stated", "actual"), ("Recomputed", "expected"))``, the digests table's words and
    order. Any other rule: ``(("Expected", "expected"), ("Actual", "actual"))``."""
    if getattr(rule, "compares", "expected") == "stated":
        return ((STATED, "actual"), (RECOMPUTED, "expected"))
    return (("Expected", "expected"), ("Actual", "actual"))


def comparison(finding) -> tuple[tuple[str, object], ...]:
    """The two values a failing ``finding`` compared, as ``((label, value), (label, value))`` in display order
    (:func:`compared_fields`; a value is a ``str``, a slotted text, or ``None`` for "—"); ``()`` when it compared
    none."""
    if finding.expected is None and finding.actual is None:
        return ()
    return tuple((label, getattr(finding, attr)) for label, attr in compared_fields(finding.rule))
