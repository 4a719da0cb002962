"""``verify(payload, descriptor) -> Report``: every rule of FORMAT.md section 6.

Each catalogue rule gets a verdict. A rule whose prerequisite (``requires``) failed is
*not reached*; a rule whose input is absent is *not applicable*; the rules FORMAT.md cannot
pin are *not evaluated*. The root cause is the failure with the smallest evaluation-order key
among import-path rules: exactly the error the reference's ``validate_and_decode`` returns
first (per-run snapshot rules are ordered run by run, as the reference loops).

The top floor of the engine: :func:`inspector.checkpoint.evaluate.evaluate` decides the verdicts, then
:func:`inspector.checkpoint.analysis.pipeline.run_analyses` explains them (generation, notes, lint,
resumability) and, when asked, the views are built.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from dataclasses import dataclass

from inspector.checkpoint.analysis.pipeline import run_analyses
from inspector.checkpoint.analysis.views import build_views
from inspector.checkpoint.evaluate import evaluate
from inspector.checkpoint.jsontext.spanindex import SpanIndex
from inspector.checkpoint.read.door import INDEX_BIG, layout_spans
from inspector.checkpoint.report import Report, Stage
from inspector.checkpoint.rules.context import Context

__all__ = ["verify", "verify_indexed", "Verified", "first_stage", "attach_views"]


def verify(payload: bytes | None, descriptor: bytes | None, *, payload_size: int | None = None,
           views: bool = False, on_stage=None, payload_digest=None,
           spans: dict | None = None, keep: list | None = None, parse_first: bool = False,
           lint_spans: bool = True) -> Report:
    """Verify a payload and/or descriptor against every rule.

    Args:
        payload: payload file bytes, or ``None``.
        descriptor: descriptor file bytes, or ``None``.
        payload_size: size in bytes of a payload too large to read (then ``payload`` is
            ``None`` and P-BOUND fails from the size alone).
        views: also build the window's timeline and transcript (:func:`.views.build_views`).
        on_stage: ``callable(Stage)``, called with each partial verdict before the report is
            complete (hash before parse): :data:`STAGE_BYTES` once the descriptor's own rules,
            the payload's size and its content digest are decided (X-BYTES; the payload is not
            parsed yet), then :data:`STAGE_STRUCTURE` once the payload is parsed and typed
            (P-PARSE, P-SCHEMA). A stage never contradicts the report (:class:`~.report.Stage`).
        payload_digest: the payload's ``sha256:`` content digest when the caller hashed these
            very bytes already (not hashed again), or a callable giving it (``None``: hashed here)
            when a rule first needs it (:class:`.context.Context`).
        spans: a dict the fast paths fill with the byte spans of the children of large
            containers when the payload is canonical or one of the printings they accept
            (``typedfast.decode_typed(big=)``, ``fastpath.decode_fast``); left empty otherwise.
            For a front-end's tree index without a second parse.
        keep: a list to append the verification's working state to (the parsed payload:
            millions of Python objects) instead of freeing it on return; for a process that
            exits right after and need not free it (about 0.2 s of CPU on a 250 MiB payload).
            When the typed fast path read the payload, its large text fields there are
            ``memoryview`` slices of the file (``typedfast.text_of`` reads one).
        parse_first: parse the payload before any rule, so that a callable ``payload_digest`` is
            asked for only after the parse (a caller hashing the file meanwhile: the window, whose
            verifier no longer waits for its digest). The rules, their order and the stages are the
            same; :data:`STAGE_BYTES` is then sent after the parse.
        lint_spans: give each lint finding's locations their byte spans (FORMAT.md 4.17 lint; the window
            links a finding to its bytes). ``False``: the same findings, kinds, texts and pointers, with spans
            ``None`` (a fleet audit records the kinds only; finding the spans re-encodes values, most of
            the lint's time on a payload with many findings).

    Returns:
        a :class:`~.report.Report` with one finding per rule, the root cause, the digests
        and the descriptor the payload should have. Never raises for bad input.
    """
    with collector_paused():
        return _verify(payload, descriptor, payload_size, views, on_stage, payload_digest, spans, keep, parse_first,
                       lint_spans)


@contextmanager
def collector_paused():
    """Pause Python's cyclic garbage collector for the block, and resume it after when it was running.

    A parsed payload is millions of containers and no cycles: the collector would walk them again and again
    while they are made (about 40 % of orjson's parse of a 256 MiB payload) and while anything built from them
    is (the passes of a million events: two thirds of ``timeline``'s time). Reference counting still frees what
    the block drops. Not for threads that overlap (the window's jobs count their users: ``gui.jobs.gc_paused``).
    """
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()


def _decided(payload, descriptor, payload_size, on_stage, payload_digest, spans, keep, parse_first,
             lint_spans=True) -> tuple[Context, Report]:
    """The verification's context and its report, the rules evaluated and the analyses run (no views)."""
    ctx = Context(payload, descriptor, payload_size, payload_digest, spans, raw_text=True)
    ctx.lint_spans = lint_spans
    if keep is not None:
        keep.append(ctx)
    if parse_first:
        ctx.pay_result  # noqa: B018 - the parse, before any rule asks for the digest
    report = evaluate(ctx, on_stage)
    run_analyses(ctx, report)
    return ctx, report


def _verify(payload, descriptor, payload_size, views, on_stage, payload_digest, spans, keep, parse_first,
            lint_spans=True) -> Report:
    ctx, report = _decided(payload, descriptor, payload_size, on_stage, payload_digest, spans, keep, parse_first,
                           lint_spans)
    if views:
        error = attach_views(report, ctx)
        if error is not None:
            report.internal_errors.append(error)
    return report


@dataclass
class Verified:
    """What :func:`verify_indexed` read from one pair.

    Attributes:
        report: the :class:`~.report.Report`, as :func:`verify` gives it (with its views when asked for).
        index: the payload's :class:`~.jsontext.spanindex.SpanIndex` (the children of every container of at
            least :data:`~.read.door.INDEX_BIG` bytes with two children or more, byte offsets into the payload file), filled by the
            reader that proved the payload; ``None`` when no fast reader proved it (the exact decoder read it,
            or serde rejects it: P-PARSE, P-SCHEMA), and then the caller indexes the bytes itself.
        views_error: why the views could not be built (:func:`attach_views`), else ``None``.

    An index proves more than the verdicts: the file is a printing of the value read, so it is JSON throughout.
    Without one, the verdicts alone do not say so: serde's typed read skips the value of a key the type does
    not know without looking inside it (invalid UTF-8 or an out-of-range number there passes P-PARSE).
    """

    report: Report
    index: SpanIndex | None = None
    views_error: str | None = None


def verify_indexed(payload: bytes | None, descriptor: bytes | None, *,
                   payload_size: int | None = None, views: bool = True, on_stage=None, on_report=None,
                   payload_digest=None, parse_first: bool = False, keep: list | None = None) -> Verified:
    """:func:`verify`, and the payload's span index from the same read (FORMAT.md 3.1: one read of the file
    decides the verdicts and where each value's bytes are; a front-end's trees need no second parse).

    Which reader fills the index: a payload that starts as a canonical printing does (``{"`` or ``{}``) is
    read with its large containers' children recorded while the fast path compares it with its printing
    (``read.door.read_payload(index_wanted=True)``); any other payload (pretty-printed, re-saved by an editor)
    is verified as :func:`verify` verifies it, and, once the verdicts are decided, the printing of the
    value read is compared piece by piece against the file (``read.relaid.layout_spans``), which gives
    the spans of every printing the fast path accepts with the printing's own offsets. The verdicts,
    texts and root cause are :func:`verify`'s on the same bytes.

    Args:
        payload, descriptor, payload_size, on_stage, payload_digest, parse_first, keep: as for :func:`verify`.
        views: build the timeline and transcript (:func:`attach_views`), after ``on_report``.
        on_report: ``callable(report, index or None)``, called as soon as the rules are decided, before the
            views are built and before a non-canonical printing's index is found (``None`` then): a front-end
            shows the verdicts first. The same report object is in the result, with its views.

    Returns:
        a :class:`Verified`. Never raises for bad input.
    """
    with collector_paused():
        wanted = payload is not None and payload[:2] in (b'{"', b"{}")
        ctx, report = _decided(payload, descriptor, payload_size, on_stage, payload_digest, {} if wanted else None,
                               keep, parse_first)
        index = SpanIndex.from_records(ctx.spans, INDEX_BIG) if wanted and ctx.spans else None
        if on_report is not None:
            on_report(report, index)
        error = attach_views(report, ctx) if views else None
        value = ctx.pay_result[0] if payload is not None else None
        if index is None and value is not None and not ctx.is_canonical:
            records = layout_spans(value, payload, INDEX_BIG)  # (None for a CRLF printing: its offsets differ)
            index = SpanIndex.from_records(records, INDEX_BIG) if records else None
        return Verified(report, index, error)


def attach_views(report: Report, ctx: Context) -> str | None:
    """Set ``report.views`` to the window's timeline and transcript (:func:`.views.build_views`) of the payload
    ``ctx`` verified (:func:`verify_indexed` builds them after its ``on_report``); ``None`` stays when there is no decoded payload.
    Returns ``None``, or ``"views: <exception type>"`` when building them failed (never raises): ``verify(views=True)``
    counts that among ``report.internal_errors``; a front-end that builds the views after showing the verdicts
    (which do not depend on them: ``verify`` alone never builds them) says so beside the views instead."""
    pay = ctx.pay_result[0] if ctx.payload is not None else None
    if pay is None:
        return None
    try:
        report.views = build_views(pay, ctx.item_spans)
    except Exception as e:  # pragma: no cover - defensive: the views never cost the user the verdicts
        return f"views: {type(e).__name__}"
    return None


class _StageReached(Exception):
    pass


def first_stage(payload: bytes | None, descriptor: bytes | None, *, payload_size: int | None = None,
                payload_digest: str | None = None) -> Stage | None:
    """Only the first partial verdict of :func:`verify` (hash before parse): the descriptor's own
    rules, the payload's size and its content digest (X-BYTES), without parsing the payload.

    The same evaluation as ``verify(on_stage=...)``'s :data:`STAGE_BYTES` (never contradicts the
    full report). Costs one SHA-256 pass over the payload plus the descriptor's parse; none when the
    caller gives ``payload_digest`` (the ``sha256:`` digest of these very bytes, as for :func:`verify`):
    then only ``len(payload)`` is used, so ``payload`` may be any sized buffer (an ``mmap``).

    Returns:
        the :class:`~.report.Stage`, or ``None`` without a payload (nothing to stage).
    """
    got: list[Stage] = []

    def stop(stage: Stage) -> None:
        got.append(stage)
        raise _StageReached

    try:
        verify(payload, descriptor, payload_size=payload_size, on_stage=stop, payload_digest=payload_digest)
    except _StageReached:
        return got[0]
    return None


