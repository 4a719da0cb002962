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

from inspector.checkpoint.analysis.pipeline import run_analyses
from inspector.checkpoint.analysis.views import build_views
from inspector.checkpoint.evaluate import evaluate
from inspector.checkpoint.report import Report, Stage
from inspector.checkpoint.rules.context import Context

__all__ = ["verify", "first_stage", "attach_views"]


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
    # The parsed payload is millions of containers and no cycles: the cyclic collector would walk
    # them again and again while they are made (about 40 % of orjson's parse of a 256 MiB payload).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _verify(payload, descriptor, payload_size, views, on_stage, payload_digest, spans, keep, parse_first,
                       lint_spans)
    finally:
        if collecting:
            gc.enable()


def _verify(payload, descriptor, payload_size, views, on_stage, payload_digest, spans, keep, parse_first,
            lint_spans=True) -> Report:
    ctx = Context(payload, descriptor, payload_size, payload_digest, spans, raw_text=True)
    ctx.lint_spans = lint_spans
    if keep is not None:
        keep.append(ctx)
    if parse_first:
        ctx.pay_result  # noqa: B018 - the parse, before any rule asks for the digest
    report = evaluate(ctx, on_stage)
    run_analyses(ctx, report)
    if views:
        error = attach_views(report, ctx)
        if error is not None:
            report.internal_errors.append(error)
    return report


def attach_views(report: Report, ctx: Context) -> str | None:
    """Set ``report.views`` to the window's timeline and transcript (:func:`.views.build_views`) of the payload
    ``ctx`` verified (the context ``verify(keep=[])`` keeps); ``None`` stays when there is no decoded payload.
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


