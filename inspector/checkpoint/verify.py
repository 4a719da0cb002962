"""``verify(payload, descriptor) -> Report``: every rule of FORMAT.md section 6.

Each catalogue rule gets a verdict. A rule whose prerequisite (``requires``) failed is
*not reached*; a rule whose input is absent is *not applicable*; the rules FORMAT.md cannot
pin are *not evaluated*. The root cause is the failure with the smallest evaluation-order key
among import-path rules: exactly the error the reference's ``validate_and_decode`` returns
first (per-run snapshot rules are ordered run by run, as the reference loops).
"""

from __future__ import annotations

import gc
from dataclasses import replace

from inspector.checkpoint.rules.catalogue import catalogue
from inspector.checkpoint.rules.checks import CHECKS
from inspector.checkpoint.rules.context import Context, Deferred, NotApplicable
from .digest import (
    DESCRIPTOR_DOMAIN, LOGICAL_DOMAIN, SNAPSHOT_DOMAIN, descriptor_digest_input,
    content_digest, domain_preimage, logical_evidence_input, snapshot_evidence_input,
)
from inspector.checkpoint.jsontext.canonical import encode
from inspector.checkpoint.analysis.generation import detect_generation
from inspector.checkpoint.diagnosis.hazards import unreproducible_order_notes
from inspector.checkpoint.analysis.lint import lint_payload
from .report import STAGE_BYTES, STAGE_STRUCTURE, DigestRow, Finding, Location, Report, Stage, Verdict
from inspector.checkpoint.analysis.resumability import decide
from inspector.checkpoint.rules.runevents import for_context as run_events_of
from .slotted import Text, ours, text_of
from inspector.checkpoint.analysis.views import build_views

__all__ = ["verify", "first_stage", "attach_views"]

#: Rules evaluated inside the reference's per-run loop (FORMAT.md 6.3 order).
_PER_RUN = ("S-RUN-COGNITIVE", "S-RUN-CAPABILITY", "S-RUN-DUP", "S-RUN-OWNER", "S-EVENT-SEQ",
            "S-EVENT-COGNITIVE-VALID", "S-EVENT-COGNITIVE-RUN", "S-EVENT-COGNITIVE-LEGACY",
            "S-TOOLEND-BINDING-PARSE", "S-TOOLEND-BINDING-INVALID", "S-TOOLEND-EVIDENCE-MISSING",
            "S-TOOLEND-EVIDENCE-PARSE", "S-TOOLEND-EVIDENCE-MISMATCH", "S-EVENT-COUNT-OVERFLOW", "S-EVENT-COUNT")
_PREIMAGE_LIMIT = 1 << 20


def verify(payload: bytes | None, descriptor: bytes | None, *, payload_size: int | None = None,
           views: bool = False, on_stage=None, payload_digest=None,
           spans: dict | None = None, keep: list | None = None, parse_first: bool = False) -> Report:
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

    Returns:
        a :class:`~.report.Report` with one finding per rule, the root cause, the digests
        and the descriptor the payload should have. Never raises for bad input.
    """
    # The parsed payload is millions of containers and no cycles: the cyclic collector would walk
    # them again and again while they are made (about 40 % of orjson's parse of a 256 MiB payload).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _verify(payload, descriptor, payload_size, views, on_stage, payload_digest, spans, keep, parse_first)
    finally:
        if collecting:
            gc.enable()


def _verify(payload, descriptor, payload_size, views, on_stage, payload_digest, spans, keep, parse_first) -> Report:
    ctx = Context(payload, descriptor, payload_size, payload_digest, spans, raw_text=True)
    if keep is not None:
        keep.append(ctx)
    if parse_first:
        ctx.pay_result  # noqa: B018 - the parse, before any rule asks for the digest
    findings: dict[str, Finding] = {}
    internal_errors: list[str] = []
    per_run_rank = next(r.rank for r in catalogue() if r.id == "S-RUN-COGNITIVE")
    rules = catalogue()
    if on_stage is not None and payload is not None:
        # Hash before parse: every rule ranked before P-PARSE, with the parse deferred.
        parse_rank = next(r.rank for r in rules if r.id == "P-PARSE")
        retry = []
        ctx.deferring = True
        for rule in rules:
            if rule.rank >= parse_rank:
                break
            ctx.deferred_touched = False
            f = _evaluate(rule, ctx, findings, internal_errors, per_run_rank)
            if f is not None:
                findings[rule.id] = f
            if ctx.deferred_touched:
                retry.append(rule)
        ctx.deferring = False
        on_stage(_stage(STAGE_BYTES, ctx, findings, payload, descriptor))
        for rule in retry:  # now with the parse (an X-BYTES failure's note on the payload's form)
            findings[rule.id] = _evaluate(rule, ctx, findings, internal_errors, per_run_rank)
    structure_rank = next(r.rank for r in rules if r.id == "P-SCHEMA")
    staged_structure = on_stage is None or payload is None
    for rule in rules:
        if rule.id in findings:
            continue
        if not staged_structure and rule.rank > structure_rank:
            staged_structure = True
            on_stage(_stage(STAGE_STRUCTURE, ctx, findings, payload, descriptor))
        findings[rule.id] = _evaluate(rule, ctx, findings, internal_errors, per_run_rank)
    ordered = [findings[r.id] for r in rules]
    failures = [f for f in ordered if f.failed and f.rule.import_path]
    root = min(failures, key=lambda f: f.order) if failures else None
    report = Report(ordered, root, payload_size=ctx.payload_size,
                    descriptor_size=None if descriptor is None else len(descriptor),
                    has_payload=ctx.payload_size is not None, has_descriptor=descriptor is not None)
    # the same list, so the resumability answer below sees the rules' internal errors (and later ones)
    report.internal_errors = internal_errors
    if ctx.pay_result[0] is not None:
        report.canonical_bytes = ctx.canonical
        report.expected_descriptor = encode(ctx.expected_descriptor)
    try:
        report.digests = _digest_rows(ctx)
    except Exception as e:  # pragma: no cover - defensive, as above
        internal_errors.append(f"digests: {type(e).__name__}")
    try:
        report.generation = detect_generation(ctx, report)
        report.notes = _report_notes(ctx, report)
    except Exception as e:  # pragma: no cover - defensive, as above
        internal_errors.append(f"generation: {type(e).__name__}")
    pay = ctx.pay_result[0] if ctx.payload is not None else None
    try:
        if pay is not None:
            # element spans of the run records, once: every event's span then costs only its run
            ctx.item_spans("/snapshot/run_records", pay["snapshot"].get("run_records") or [])
            report.lint = lint_payload(pay, lambda p: ctx.span("payload", p), run_events_of(ctx))
        report.resumability = decide(report, pay, report.lint)
    except Exception as e:  # pragma: no cover - defensive: lint never costs the user the verdicts
        internal_errors.append(f"lint: {type(e).__name__}")
    if views:
        error = attach_views(report, ctx)
        if error is not None:
            internal_errors.append(error)
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


def _evaluate(rule, ctx, findings, internal_errors, per_run_rank) -> Finding | None:
    """The finding of one rule (its prerequisites already decided in ``findings``); ``None``
    only while the payload's parse is deferred and the rule needs it."""
    if rule.not_evaluated:
        return Finding(rule, Verdict.NOT_EVALUATED, rule.not_evaluated)
    blocked = _blocked(rule, findings)
    if blocked is not None:
        return blocked
    try:
        violations = list(CHECKS[rule.id](ctx))
    except NotApplicable as e:
        return Finding(rule, Verdict.NOT_APPLICABLE, str(e))
    except Deferred:
        return None
    except Exception as e:  # an engine defect must not cost the user the whole report
        # type and rule only: the exception text could quote payload content
        internal_errors.append(f"{rule.id}: {type(e).__name__}")
        return Finding(rule, Verdict.NOT_EVALUATED,
                       f"internal error while evaluating this rule ({type(e).__name__}); please report it")
    if not violations:
        return Finding(rule, Verdict.PASS)
    base = (per_run_rank,) if rule.id in _PER_RUN else (rule.rank,)
    keyed = sorted(violations, key=lambda v: v.order)
    first = keyed[0]
    locations = [_location(ctx, first.source, first.pointer, first.offset)]
    locations += [_location(ctx, s, p, None) for s, p in first.extra]
    notes = list(first.notes)
    if len(keyed) > 1:
        notes += ["also: " + v.detail for v in keyed[1:6]]
        if len(keyed) > 6:
            notes.append(ours(f"... and {len(keyed) - 6} more"))
    return Finding(
        rule, Verdict.FAIL, first.detail, tuple(locations), _text(text_of(first.expected, *first.expected_at) if first.expected_at
                                               else ours_unless_text(first.expected)),
        _text(text_of(first.actual, first.source, first.pointer)),
        order=base + tuple(first.order), notes=tuple(notes), occurrences=len(keyed),
    )


def _stage(name: str, ctx, findings: dict, payload, descriptor) -> Stage:
    """A partial verdict from the rules decided so far (all ranked before every rule still to come)."""
    decided = [f for f in findings.values() if f is not None]
    failures = [f for f in decided if f.failed and f.rule.import_path]
    root = min(failures, key=lambda f: f.order) if failures else None
    digests = []
    desc = ctx.desc_result[0] if descriptor is not None else None
    if payload is not None:
        digests.append(DigestRow("payload size_bytes", "/size_bytes",
                                 desc.get("size_bytes") if isinstance(desc, dict) else None, ctx.payload_size))
        digests.append(DigestRow("payload content_digest", "/content_digest",
                                 desc.get("content_digest") if isinstance(desc, dict) else None, ctx.payload_digest,
                                 None, None, len(payload)))
    return Stage(name, decided, root, digests, has_payload=ctx.payload_size is not None,
                 has_descriptor=descriptor is not None)


def _report_notes(ctx, report) -> list[str]:
    """Sentences that explain the verdict without changing it: the writer's release (FORMAT.md 3.4)
    and a ``yolo_lanes`` order no one can reproduce (FORMAT.md 7.8)."""
    notes = []
    if report.generation is not None:
        notes.append(ours(report.generation.summary))  # from the release tables, never the file
    pay = ctx.pay_result[0] if ctx.payload is not None else None
    if pay is not None:
        notes += unreproducible_order_notes(pay)
    return notes


def _blocked(rule, findings) -> Finding | None:
    for req in rule.requires:
        f = findings[req]
        if f.verdict is Verdict.FAIL:
            return Finding(rule, Verdict.NOT_REACHED, f"not reached: {req} failed", blocked_by=req)
        if f.verdict is Verdict.NOT_REACHED:
            return Finding(rule, Verdict.NOT_REACHED, f"not reached: {f.blocked_by} failed", blocked_by=f.blocked_by)
        if f.verdict is Verdict.NOT_APPLICABLE:
            return Finding(rule, Verdict.NOT_APPLICABLE, f.detail)
    return None


_VALUE_LIMIT = 300


def _text(v) -> str | None:
    """A value for display: at most 300 characters (a 5,000-digit number stays readable)."""
    if v is None:
        return None
    s = v if isinstance(v, Text) else str(v)
    if len(s) <= _VALUE_LIMIT:
        return s
    short = f"{str(s)[:_VALUE_LIMIT - 40]}... ({len(s)} characters in all)"
    if isinstance(s, Text) and s.slots:  # one value shortened: the slot covers the shortened form
        return Text(short, (replace(s.slots[0], start=0, end=len(short)),))
    return Text(short) if isinstance(s, Text) else short


def ours_unless_text(v):
    """An expected value: a :class:`~.slotted.Text` as it is, anything else our words (the checks
    give values from the files as slots)."""
    if v is None or isinstance(v, Text):
        return v
    return ours(str(v))


def _location(ctx, source: str, pointer: str, offset: int | None) -> Location:
    if offset is not None:
        data = ctx.payload if source == "payload" else ctx.descriptor
        n = len(data) if data is not None else 0
        start = min(offset, max(n - 1, 0))
        return Location(source, pointer, (start, min(start + 1, n)))
    try:
        return Location(source, pointer, ctx.span(source, pointer))
    except Deferred:  # staged verify: located again once the payload is parsed
        return Location(source, pointer, None)


def _digest_rows(ctx) -> list[DigestRow]:
    """Stated (descriptor) vs recomputed (payload) values for the digests pane."""
    desc = ctx.desc_result[0]
    pay = ctx.pay_result[0]
    exp = ctx.expected_descriptor if pay is not None else None
    rows = []

    def get(d, *path):
        for p in path:
            if not isinstance(d, dict) or p not in d:
                return None
            d = d[p]
        return d

    def row(label, pointer, path, recomputed, domain=None, preimage=None):
        size = 0 if preimage is None else (preimage.nbytes if isinstance(preimage, memoryview) else len(preimage))
        pre = bytes(preimage) if preimage is not None and size <= _PREIMAGE_LIMIT else None
        rows.append(DigestRow(label, pointer, get(desc, *path), recomputed, domain, pre, size))

    payload = ctx.payload
    row("payload size_bytes", "/size_bytes", ("size_bytes",), ctx.payload_size)
    row("payload content_digest", "/content_digest", ("content_digest",),
        ctx.payload_digest if payload is not None else None, None, payload)
    def component(name, label, domain, evidence_input, component_bytes):
        """Size, content digest and evidence digest rows of one component (FORMAT.md 3.2)."""
        row(f"{label} size_bytes", f"/{name}/size_bytes", (name, "size_bytes"), get(exp, name, "size_bytes"))
        row(f"{label} content_digest", f"/{name}/content_digest", (name, "content_digest"),
            get(exp, name, "content_digest"), None, component_bytes)
        ev = get(exp, name) or get(desc, name)
        if ev is not None:
            preimage = domain_preimage(domain, evidence_input(ev))  # hashed once, shown as is
            row(f"{label} evidence_digest", f"/{name}/evidence_digest", (name, "evidence_digest"),
                content_digest(preimage), domain, preimage)

    component("snapshot", "snapshot", SNAPSHOT_DOMAIN, snapshot_evidence_input,
              ctx.snapshot_component if pay is not None else None)
    if (pay is not None and pay.get("logical_resume") is not None) or get(desc, "logical_resume") is not None:
        component("logical_resume", "logical resume", LOGICAL_DOMAIN, logical_evidence_input,
                  ctx.logical_component if pay is not None else None)
    d = exp or desc
    if d is not None:
        preimage = domain_preimage(DESCRIPTOR_DOMAIN, descriptor_digest_input(d))
        row("descriptor_digest", "/descriptor_digest", ("descriptor_digest",),
            content_digest(preimage), DESCRIPTOR_DOMAIN, preimage)
    return rows
