"""Evaluate every rule of the catalogue in order, pick the root cause, and say the digests
(FORMAT.md 6; the reference's ``validate_and_decode``).

Each catalogue rule gets a verdict. A rule whose prerequisite (``requires``) failed is *not reached*;
a rule whose input is absent is *not applicable*; the rules FORMAT.md cannot pin are *not evaluated*.
The root cause is the failure with the smallest evaluation-order key among import-path rules: exactly
the error the reference's ``validate_and_decode`` returns first. Rules marked ``per_run`` in
``rules.toml`` are ordered run by run, as the reference loops over run records (FORMAT.md 6.3).

Below :mod:`inspector.checkpoint.verify` (which adds the analyses) and above the rules and the report.
"""

from __future__ import annotations

from dataclasses import replace

from inspector.checkpoint.digest import (
    DESCRIPTOR_DOMAIN, LOGICAL_DOMAIN, SNAPSHOT_DOMAIN, content_digest, descriptor_digest_input, domain_preimage,
    logical_evidence_input, snapshot_evidence_input,
)
from inspector.checkpoint.jsontext.canonical import encode
from inspector.checkpoint.report import STAGE_BYTES, STAGE_STRUCTURE, DigestRow, Finding, Location, Report, Stage, Verdict
from inspector.checkpoint.rules.catalogue import catalogue
from inspector.checkpoint.rules.checks import CHECKS
from inspector.checkpoint.rules.context import Context, Deferred, NotApplicable
from inspector.checkpoint.slotted import Text, ours, text_of

__all__ = ["evaluate", "ours_unless_text"]

_PREIMAGE_LIMIT = 1 << 20


def evaluate(ctx: Context, on_stage=None) -> Report:
    """Every rule's :class:`~inspector.checkpoint.report.Finding` for the inputs of ``ctx``, in catalogue
    order, with the root cause, the canonical bytes, the expected descriptor and the digest rows.

    Args:
        ctx: the :class:`~inspector.checkpoint.rules.context.Context` of the payload and/or descriptor.
        on_stage: ``callable(Stage)`` for the partial verdicts (hash before parse), or ``None``; see
            :func:`inspector.checkpoint.verify.verify`.

    Returns:
        a :class:`~inspector.checkpoint.report.Report` whose analyses (generation, notes, lint,
        resumability, views) are not yet filled. ``report.internal_errors`` lists each rule that raised
        (``"RULE-ID: ExceptionType"``). Never raises for bad input.
    """
    payload, descriptor = ctx.payload, ctx.descriptor
    findings: dict[str, Finding] = {}
    internal_errors: list[str] = []
    rules = catalogue()
    per_run_rank = min(r.rank for r in rules if r.per_run)
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
    # the same list, so the analyses (the resumability answer) see the rules' internal errors
    report.internal_errors = internal_errors
    if ctx.pay_result[0] is not None:
        report.canonical_bytes = ctx.canonical
        report.expected_descriptor = encode(ctx.expected_descriptor)
    try:
        report.digests = _digest_rows(ctx)
    except Exception as e:  # pragma: no cover - defensive: the digests never cost the user the verdicts
        internal_errors.append(f"digests: {type(e).__name__}")
    return report


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
    base = (per_run_rank,) if rule.per_run else (rule.rank,)
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
