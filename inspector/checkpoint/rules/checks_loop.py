"""The loop-checkpoint rules of FORMAT.md 6.4 (L-SCHEMA ... L-CAPABILITY-MATCH), registered with
:func:`.checks.check` like every other rule; split from :mod:`.checks` along its job.

Each check takes the :class:`~.context.Context` and yields :class:`~.checks.Violation` records
with the reference's verbatim message, or raises :class:`~.context.NotApplicable`.
"""

from __future__ import annotations

from inspector.checkpoint.digest import is_valid_id
from inspector.checkpoint.rules.context import json_equal
from inspector.checkpoint.rules.registry import (
    SESSION_ID_POINTER, U64_MAX, Violation, check, expect_equal, nv, qv, reference_message, runs_of, session_id_of,
    short_json,
)
from inspector.checkpoint.slotted import fmt, ours
from inspector.checkpoint.slotted import value as fv

_RUN_ID = "/logical_resume/run_id"


@check("L-SCHEMA")
def l_schema(ctx):
    """L-SCHEMA: Loop checkpoint schema_version is exactly 1 (FORMAT.md 6.4). Yields a Violation per failure."""
    yield from expect_equal("L-SCHEMA", "payload", "/logical_resume/schema_version", ctx.lr["schema_version"], 1)


@check("L-LOADABLE-VERSION")
def l_loadable_version(ctx):
    """L-LOADABLE-VERSION: Loop checkpoint is not from a future version (FORMAT.md 6.4). Yields a Violation per failure."""
    lr = ctx.lr
    if lr["schema_version"] > 1:
        yield Violation(fmt("loop checkpoint for run {} has schema version {} but this build supports at most 1; "
                            "refusing to resume from an incompatible future checkpoint",
                            nv(lr["run_id"], _RUN_ID), nv(lr["schema_version"], "/logical_resume/schema_version")),
                        "payload", "/logical_resume/schema_version", expected="<= 1", actual=lr["schema_version"])


@check("L-ADDRESS")
def l_address(ctx):
    """L-ADDRESS: Loop checkpoint is addressed by its own run id (FORMAT.md 6.4). Yields a Violation per failure."""
    ctx.lr  # the checkpoint is looked up by its own run id, so this cannot fire here
    return ()


@check("L-OWNER")
def l_owner(ctx):
    """L-OWNER: Loop checkpoint belongs to the snapshot's session (FORMAT.md 6.4). Yields a Violation per failure."""
    lr, sid = ctx.lr, session_id_of(ctx)
    if lr["session_id"] != sid:
        yield Violation(fmt("loop checkpoint ownership mismatch for run {}: current session is {}, payload belongs to {}",
                            qv(lr["run_id"], _RUN_ID), qv(sid, SESSION_ID_POINTER), qv(lr["session_id"], "/logical_resume/session_id")),
                        "payload", "/logical_resume/session_id", expected=nv(sid, SESSION_ID_POINTER), actual=lr["session_id"],
                        extra=(("payload", "/snapshot/session/id"),))


@check("L-BOUNDARY")
def l_boundary(ctx):
    """L-BOUNDARY: Loop checkpoint is at a completed tool round (FORMAT.md 6.4). Yields a Violation per failure."""
    if ctx.lr["turn"] == 0:
        yield Violation(reference_message("L-BOUNDARY"), "payload", "/logical_resume/turn", expected=">= 1", actual=0)


def _source(ctx):
    run = ctx.lr["run_id"]
    for i, rec in enumerate(runs_of(ctx)):
        if rec["snapshot"]["id"] == run:
            return i, rec
    return None, None


@check("L-SOURCE-RUN")
def l_source_run(ctx):
    """L-SOURCE-RUN: Source run is in the snapshot (FORMAT.md 6.4). Yields a Violation per failure."""
    run = ctx.lr["run_id"]
    i, _rec = _source(ctx)
    if i is None:
        yield Violation(fmt("logical resume source run {} is absent from the same Session snapshot", qv(run, _RUN_ID)),
                        "payload",
                        "/logical_resume/run_id", actual=run,
                        expected="a run record with this id in /snapshot/run_records")


@check("L-SOURCE-TERMINAL")
def l_source_terminal(ctx):
    """L-SOURCE-TERMINAL: Source run is not terminal (FORMAT.md 6.4). Yields a Violation per failure."""
    i, rec = _source(ctx)
    if rec is not None and rec["snapshot"]["status"] in ("completed", "failed", "cancelled"):
        yield Violation(fmt("logical resume source run {} is already terminal", qv(ctx.lr["run_id"], _RUN_ID)), "payload",
                        f"/snapshot/run_records/{i}/snapshot/status", expected="created, planning, executing or verifying",
                        actual=rec["snapshot"]["status"])


@check("L-COGNITIVE-MATCH")
def l_cognitive_match(ctx):
    """L-COGNITIVE-MATCH: Source run and snapshot carry the same cognitive authority (FORMAT.md 6.4). Yields a Violation per failure."""
    i, rec = _source(ctx)
    if rec is None:
        return
    a = ctx.pay["snapshot"]["session"].get("cognitive_package_binding")
    b = rec["snapshot"].get("cognitive_package_binding")
    if not json_equal(a, b):
        here = f"/snapshot/run_records/{i}/snapshot/cognitive_package_binding"
        yield Violation(fmt("logical resume source run {} and its portable Session snapshot carry different cognitive "
                            "authorities", qv(ctx.lr["run_id"], _RUN_ID)),
                        "payload", here, expected=_sv(a, "/snapshot/session/cognitive_package_binding"), actual=_sv(b, here),
                        extra=(("payload", "/snapshot/session/cognitive_package_binding"),))


@check("L-CAPABILITY-MATCH")
def l_capability_match(ctx):
    """L-CAPABILITY-MATCH: Source run and checkpoint carry the same capability generation (FORMAT.md 6.4). Yields a Violation per failure."""
    i, rec = _source(ctx)
    if rec is None:
        return
    a = rec["snapshot"].get("capability_binding")
    b = ctx.lr.get("capability_binding")
    if not json_equal(a, b):
        yield Violation(fmt("logical resume source run {} and its checkpoint carry different capability generations",
                            qv(ctx.lr["run_id"], _RUN_ID)),
                        "payload", "/logical_resume/capability_binding",
                        expected=_sv(a, f"/snapshot/run_records/{i}/snapshot/capability_binding"),
                        actual=_sv(b, "/logical_resume/capability_binding"),
                        extra=(("payload", f"/snapshot/run_records/{i}/snapshot/capability_binding"),))


def _sv(v, pointer: str):
    """A payload value at ``pointer`` printed as :func:`.checks.short_json` does (one slot; ``absent``: ours)."""
    return ours("absent") if v is None else fv(v, "payload", pointer, form=short_json)


@check("L-EVIDENCE-IDS")
def l_evidence_ids(ctx):
    """L-EVIDENCE-IDS: Loop checkpoint ids are valid for evidence (FORMAT.md 6.4). Yields a Violation per failure."""
    lr = ctx.lr
    if not is_valid_id(lr["session_id"]):
        yield Violation(ours("logical-resume session_id is empty, unbounded, or contains control characters"), "payload",
                        "/logical_resume/session_id", actual=qv(lr["session_id"], "/logical_resume/session_id"), order=(0,))
    if not is_valid_id(lr["run_id"]):
        yield Violation(ours("logical-resume source_run_id is empty, unbounded, or contains control characters"), "payload",
                        "/logical_resume/run_id", actual=qv(lr["run_id"], "/logical_resume/run_id"), order=(1,))


@check("L-TURN-REPR")
def l_turn_repr(ctx):
    """L-TURN-REPR: Tool-round counter fits in u64 (FORMAT.md 6.4). Yields a Violation per failure."""
    if ctx.lr["turn"] > U64_MAX:  # unreachable on 64-bit, as in the reference
        yield Violation(reference_message("L-TURN-REPR"))
