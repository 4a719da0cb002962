"""The analyses that explain a verdict, run in order after the rules (mitmproxy's addon list).

Each :class:`Analysis` fills one field of the :class:`~inspector.checkpoint.report.Report` from the
verification's context and the report so far; none changes a verdict. A failure (an engine defect) is
handled here, in one place: ``report.internal_errors`` gets ``"<label>: <ExceptionType>"`` (never the
exception's text, which could quote payload content) and the analyses that share its label and come
after it are skipped, since they read its result. To add one, append an :class:`Analysis` to
:data:`ANALYSES` after those it reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from inspector.checkpoint.analysis.generation import detect_generation
from inspector.checkpoint.analysis.lint import lint_payload
from inspector.checkpoint.analysis.restore import restoration_of
from inspector.checkpoint.analysis.resumability import decide
from inspector.checkpoint.diagnosis.hazards import unreproducible_order_notes
from inspector.checkpoint.report import Report
from inspector.checkpoint.rules.context import Context
from inspector.checkpoint.rules.runevents import for_context as run_events_of
from inspector.checkpoint.slotted import ours

__all__ = ["Analysis", "ANALYSES", "run_analyses"]


@dataclass(frozen=True)
class Analysis:
    """One analysis. ``field``: the :class:`~inspector.checkpoint.report.Report` attribute it sets;
    ``label``: the prefix of its internal error (analyses sharing a label form a group: one failing skips
    the rest of its group); ``run``: ``callable(ctx, report) -> value``; ``source``: the FORMAT.md section
    or issue that says what is right."""

    field: str
    label: str
    run: Callable[[Context, Report], object]
    source: str


def _payload(ctx: Context):
    return ctx.pay_result[0] if ctx.payload is not None else None


def _notes(ctx: Context, report: Report) -> list[str]:
    """Sentences that explain the verdict without changing it: the writer's release (FORMAT.md 3.4)
    and a ``yolo_lanes`` order no one can reproduce (FORMAT.md 7.8)."""
    notes = []
    if report.generation is not None:
        notes.append(ours(report.generation.summary))  # from the release tables, never the file
    pay = _payload(ctx)
    if pay is not None:
        notes += unreproducible_order_notes(pay)
    return notes


def _lint(ctx: Context, report: Report) -> list:
    pay = _payload(ctx)
    if pay is None:
        return report.lint
    if not getattr(ctx, "lint_spans", True):  # (verify(lint_spans=False): the findings without their spans)
        return lint_payload(pay, None, run_events_of(ctx))
    # element spans of the run records, once: every event's span then costs only its run
    ctx.item_spans("/snapshot/run_records", pay["snapshot"].get("run_records") or [])
    return lint_payload(pay, lambda p: ctx.span("payload", p), run_events_of(ctx))


def _resumability(ctx: Context, report: Report):
    return decide(report, _payload(ctx), report.lint)


#: The analyses in the order they run (each may read the fields of those before it).
ANALYSES: tuple[Analysis, ...] = (
    Analysis("generation", "generation", detect_generation, "FORMAT.md 3.4, 0.1"),
    Analysis("notes", "generation", _notes, "FORMAT.md 3.4, 7.8"),
    Analysis("lint", "lint", _lint, "FORMAT.md 4.17"),
    Analysis("resumability", "lint", _resumability, "FORMAT.md 4.17"),
    Analysis("restoration", "restoration", restoration_of, "FORMAT.md 3.1, 3.2"),
)


def run_analyses(ctx: Context, report: Report, analyses: tuple[Analysis, ...] = ANALYSES) -> None:
    """Run ``analyses`` in order on ``report`` (set in place). Never raises: a failing analysis adds
    ``"<label>: <ExceptionType>"`` to ``report.internal_errors`` and skips the rest of its label's group."""
    failed: set[str] = set()
    for a in analyses:
        if a.label in failed:
            continue
        try:
            setattr(report, a.field, a.run(ctx, report))
        except Exception as e:  # an engine defect never costs the user the verdicts
            report.internal_errors.append(f"{a.label}: {type(e).__name__}")
            failed.add(a.label)
