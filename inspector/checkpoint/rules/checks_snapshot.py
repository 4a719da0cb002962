"""The snapshot's rules (stage S of FORMAT.md 6.3, and P-SESSION-ID): session, policies, runs and run events,
each registered with ``@check``. The binding rules are in :mod:`.checks_bindings`. Messages are the
reference's verbatim texts.
"""

from __future__ import annotations

import hashlib
from itertools import islice
from operator import lt

import orjson

from inspector.checkpoint.digest import is_sha256
from inspector.checkpoint.rules.registry import (
    SESSION_ID_POINTER, U64_MAX, Violation, check, id_violations, nv, qv, runs_of, session_id_of,
)
from inspector.checkpoint.rules.runevents import for_context
from inspector.checkpoint.slotted import fmt, ours


@check("S-VERSION")
def s_version(ctx):
    """S-VERSION: Snapshot schema_version is 1 (FORMAT.md 6.3). Yields a Violation per failure."""
    v = ctx.pay["snapshot"]["schema_version"]
    if v != 1:
        yield Violation(fmt("unsupported session snapshot schema version {}; expected 1",
                            nv(v, "/snapshot/schema_version")), "payload",
                        "/snapshot/schema_version", expected=1, actual=v)


@check("S-SESSION-MATCH")
def s_session_match(ctx):
    """S-SESSION-MATCH: Snapshot belongs to the requested session (FORMAT.md 6.3). Yields a Violation per failure."""
    # The checkpoint path requests the snapshot's own session id, so this cannot fire here.
    requested = session_id_of(ctx)
    if requested != session_id_of(ctx):  # pragma: no cover - kept to state the rule
        yield Violation(fmt("requested session {}, but snapshot payload belongs to session {}",
                            qv(requested, SESSION_ID_POINTER), qv(session_id_of(ctx), SESSION_ID_POINTER)))


def transform_policy_error(p: dict) -> str | None:
    """``ToolResultTransformPolicyV1::validate`` (FORMAT.md 6.3); the error text or None."""
    if p["schema"] != "a3s.code.tool-result-transform-policy.v1":
        return fmt("unsupported Tool result transform policy schema {}",
                   qv(p["schema"], "/snapshot/session/config/tool_result_transform_policy/schema"))
    if not 1024 <= p["max_output_bytes"] <= 102400:
        return "Tool result max_output_bytes must be between 1024 and 102400"
    if p["head_bytes"] == 0:
        return "Tool result head_bytes must be positive"
    retained = min(p["head_bytes"] + p["tail_bytes"], U64_MAX)  # saturating_add
    compatibility = p["tail_bytes"] == 0 and retained == p["max_output_bytes"]
    if not (compatibility or min(retained + 512, U64_MAX) <= p["max_output_bytes"]):
        return "Tool result head_bytes + tail_bytes must reserve 512 bytes for transformation evidence"
    if not 2 <= p["repeated_line_threshold"] <= 10000:
        return "Tool result repeated_line_threshold must be between 2 and 10000"
    if p["structured_sample_items"] > 1024:
        return "Tool result structured_sample_items must not exceed 1024"
    return None


@check("S-TRANSFORM-POLICY")
def s_transform_policy(ctx):
    """S-TRANSFORM-POLICY: Tool result transform policy is valid (FORMAT.md 6.3). Yields a Violation per failure."""
    err = transform_policy_error(ctx.pay["snapshot"]["session"]["config"]["tool_result_transform_policy"])
    if err:
        yield Violation(fmt("session snapshot {} has an invalid Tool result transform policy: {}", qv(session_id_of(ctx), SESSION_ID_POINTER),
                            ours(err)),
                        "payload", "/snapshot/session/config/tool_result_transform_policy", actual=err)


def immutable_binding_error(b: dict) -> str | None:
    """``ImmutableContentAdapterBindingV1::validate``: its Display text or None.

    The binding digest uses *declared-order* JSON (not sorted keys), FORMAT.md 3.2/4.3.
    """
    schema = "a3s.code.immutable-content-adapter-binding.v1"
    inner = None
    if b["schema"] != schema:
        inner = "schema is unsupported"
    elif not is_sha256(b["authority_digest"]):
        inner = "authority_digest must be canonical lowercase SHA-256"
    elif b["maximum_bytes"] == 0:
        inner = "maximum_bytes must be positive"
    elif not is_sha256(b["binding_digest"]):
        inner = "binding_digest must be canonical lowercase SHA-256"
    elif b["binding_digest"] != immutable_binding_digest(b):
        inner = "binding_digest does not bind the authority and byte ceiling"
    return None if inner is None else "invalid immutable content adapter binding: " + inner


def immutable_binding_digest(b: dict) -> str:
    """Declared-order domain digest over ``{schema, authority_digest, maximum_bytes}``."""
    body = orjson.dumps({"schema": b["schema"], "authority_digest": b["authority_digest"], "maximum_bytes": b["maximum_bytes"]})
    return "sha256:" + hashlib.sha256(b"a3s.code.immutable-content-adapter-binding.v1\x00" + body).hexdigest()


@check("S-IMMUTABLE")
def s_immutable(ctx):
    """S-IMMUTABLE: Immutable-content adapter binding is valid (FORMAT.md 6.3). Yields a Violation per failure."""
    b = ctx.pay["snapshot"]["session"].get("immutable_content_adapter_binding")
    if b is None:
        return
    err = immutable_binding_error(b)
    if err:
        yield Violation(fmt("session snapshot {} has an invalid immutable-content adapter binding: {}",
                            qv(session_id_of(ctx), SESSION_ID_POINTER), ours(err)),
                        "payload", "/snapshot/session/immutable_content_adapter_binding", actual=err)




@check("S-RUN-DUP")
def s_run_dup(ctx):
    """S-RUN-DUP: Run ids are unique (FORMAT.md 6.3). Yields a Violation per failure."""
    seen = set()
    for i, rec in enumerate(runs_of(ctx)):
        run = rec["snapshot"]["id"]
        if run in seen:
            at = f"/snapshot/run_records/{i}/snapshot/id"
            yield Violation(fmt("session snapshot {} contains duplicate run id {} at run record {}",
                                qv(session_id_of(ctx), SESSION_ID_POINTER), qv(run, at), i),
                            "payload", at, actual=run, order=(i, 2))
        seen.add(run)


@check("S-RUN-OWNER")
def s_run_owner(ctx):
    """S-RUN-OWNER: Every run belongs to the snapshot's session (FORMAT.md 6.3). Yields a Violation per failure."""
    sid = session_id_of(ctx)
    for i, rec in enumerate(runs_of(ctx)):
        owner = rec["snapshot"]["session_id"]
        if owner != sid:
            run = rec["snapshot"]["id"]
            at = f"/snapshot/run_records/{i}/snapshot/session_id"
            yield Violation(fmt("run {} at record {} belongs to session {}, but snapshot belongs to session {}",
                                qv(run, f"/snapshot/run_records/{i}/snapshot/id"), i, qv(owner, at), qv(sid, SESSION_ID_POINTER)),
                            "payload", at, expected=nv(sid, SESSION_ID_POINTER), actual=owner,
                            order=(i, 3))


@check("S-EVENT-SEQ")
def s_event_seq(ctx):
    """S-EVENT-SEQ: Run event sequences strictly increase (FORMAT.md 6.3). Yields a Violation per failure."""
    for i, (rec, read) in enumerate(zip(runs_of(ctx), for_context(ctx))):
        run = rec["snapshot"]["id"]
        seqs = read.sequences
        try:
            if all(map(lt, seqs, islice(seqs, 1, None))):
                continue  # strictly increasing: nothing to report (the walk below finds the failures)
        except TypeError:
            pass
        prev = None
        for j, ev in enumerate(rec["events"]):
            s = ev["sequence"]
            if prev is not None and s <= prev:
                at = f"/snapshot/run_records/{i}/events/{j}/sequence"
                before = nv(prev, f"/snapshot/run_records/{i}/events/{j - 1}/sequence")
                yield Violation(fmt("run {} event {} has sequence {}, which is not strictly greater than previous sequence {}",
                                    qv(run, f"/snapshot/run_records/{i}/snapshot/id"), j, nv(s, at), before),
                                "payload", at, expected="> " + before, actual=s,
                                order=(i, 4, j))
            prev = s


def _last_sequence(rec):
    return rec["events"][-1]["sequence"] if rec["events"] else None


@check("S-EVENT-COUNT-OVERFLOW")
def s_event_count_overflow(ctx):
    """S-EVENT-COUNT-OVERFLOW: Max retained sequence + 1 is representable (FORMAT.md 6.3). Yields a Violation per failure."""
    for i, rec in enumerate(runs_of(ctx)):
        s = _last_sequence(rec)
        if s is not None and s + 1 > U64_MAX:
            at = f"/snapshot/run_records/{i}/events/{len(rec['events']) - 1}/sequence"
            yield Violation(fmt("run {} retained event sequence {} cannot be represented by event_count",
                                qv(rec["snapshot"]["id"], f"/snapshot/run_records/{i}/snapshot/id"), nv(s, at)),
                            "payload", at, actual=s, order=(i, 5))


@check("S-EVENT-COUNT")
def s_event_count(ctx):
    """S-EVENT-COUNT: event_count covers every retained event (FORMAT.md 6.3). Yields a Violation per failure."""
    for i, rec in enumerate(runs_of(ctx)):
        s = _last_sequence(rec)
        if s is None or s + 1 > U64_MAX:
            continue
        n = rec["snapshot"]["event_count"]
        if n < s + 1:
            last = f"/snapshot/run_records/{i}/events/{len(rec['events']) - 1}/sequence"
            yield Violation(fmt("run {} event_count {} does not cover retained event sequence {}; expected at least {}",
                                qv(rec["snapshot"]["id"], f"/snapshot/run_records/{i}/snapshot/id"),
                                nv(n, f"/snapshot/run_records/{i}/snapshot/event_count"), nv(s, last), s + 1),
                            "payload", f"/snapshot/run_records/{i}/snapshot/event_count", expected=f">= {s + 1}", actual=n,
                            order=(i, 6), extra=(("payload", f"/snapshot/run_records/{i}/events/{len(rec['events']) - 1}/sequence"),))


@check("S-SUBAGENT-OWNER")
def s_subagent_owner(ctx):
    """S-SUBAGENT-OWNER: Subagent tasks belong to the snapshot's session (FORMAT.md 6.3). Yields a Violation per failure."""
    sid = session_id_of(ctx)
    for i, t in enumerate(ctx.pay["snapshot"]["subagent_tasks"]):
        parent = t["parent_session_id"]
        if parent and parent != sid:
            at = f"/snapshot/subagent_tasks/{i}/parent_session_id"
            yield Violation(fmt("subagent task {} at record {} belongs to parent session {}, but snapshot belongs to session {}",
                                qv(t["task_id"], f"/snapshot/subagent_tasks/{i}/task_id"), i, qv(parent, at), qv(sid, SESSION_ID_POINTER)),
                            "payload", at, expected=nv(sid, SESSION_ID_POINTER), actual=parent, order=(i,))




@check("P-SESSION-ID")
def p_session_id(ctx):
    """P-SESSION-ID: Session id is a valid id (FORMAT.md 6.2). Yields a Violation per failure."""
    yield from id_violations("P-SESSION-ID", "payload", "/snapshot/session/id", session_id_of(ctx))
