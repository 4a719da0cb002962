"""One small check function per rule id of FORMAT.md section 6, registered with ``@check``.

A check takes the :class:`~.context.Context` and returns an iterable of :class:`Violation`
(empty: the rule passes), or raises :class:`~.context.NotApplicable`. Messages are the
reference's verbatim texts with its interpolations (Rust ``{:?}`` via ``rust_debug_str``).
Checks evaluate independently of one another: the reference stops at its first error, we show
every failure and let :mod:`.verify` pick the root cause by evaluation order.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import islice
from operator import lt
from typing import Callable, Iterable

import hashlib

import orjson

from inspector.checkpoint.rules.catalogue import rule as _rule
from inspector.checkpoint.rules.context import (
    DESCRIPTOR_SCHEMA, ENCODING, FORMAT, LOGICAL_EVIDENCE_SCHEMA, MEDIA_TYPE, PAYLOAD_SCHEMA, RESUME_SEMANTICS,
    SNAPSHOT_EVIDENCE_SCHEMA, Context, Deferred, NotApplicable, json_equal,
)
from inspector.checkpoint.digest import (
    DESCRIPTOR_DOMAIN, LOGICAL_DOMAIN, MAX_CONTENT_BYTES, SNAPSHOT_DOMAIN, descriptor_digest_input,
    domain_digest, is_sha256, is_valid_id, logical_evidence_input, snapshot_evidence_input,
)
from inspector.checkpoint.rules.runevents import for_context
from inspector.checkpoint.slotted import Text, fmt, ours, value as fv
from inspector.checkpoint.schema.typed import rust_debug_str as q

__all__ = ["Violation", "CHECKS", "check"]

U64_MAX = (1 << 64) - 1


@dataclass(frozen=True)
class Violation:
    """One failure of a rule.

    ``detail``: the reference message without prefix, a :class:`~.slotted.Text` (our words, values
    from the files as slots; a plain ``str`` is of unknown origin and never shown in a ticket).
    ``expected``: our words unless a :class:`~.slotted.Text` says otherwise; ``actual``: the value
    found at ``source``/``pointer`` unless a :class:`~.slotted.Text` says otherwise (fail closed).
    ``expected_at``: ``(source, pointer)`` when ``expected`` is a value read from a file there.
    ``source``/``pointer``: where
    (``payload``/``descriptor`` and a JSON Pointer). ``offset``: a byte offset when there is
    no pointer (parse errors). ``order``: sub-order within the rule's rank (run index, ...).
    """

    detail: str
    source: str = "payload"
    pointer: str = ""
    expected: object = None
    actual: object = None
    offset: int | None = None
    order: tuple = ()
    notes: tuple = ()
    extra: tuple = ()  # more (source, pointer) locations
    expected_at: tuple | None = None  # (source, pointer) when ``expected`` is a raw value read there


CHECKS: dict[str, Callable[[Context], Iterable[Violation]]] = {}


def check(rule_id: str):
    """Register ``fn`` as the check of ``rule_id`` (the id must exist in the catalogue)."""
    _rule(rule_id)

    def deco(fn):
        CHECKS[rule_id] = fn
        return fn

    return deco


def _msg(rule_id: str) -> Text:
    """The reference's fixed message of a rule (rules.toml): our words, no slot."""
    return ours(_rule(rule_id).message)


def qv(v, pointer: str, source: str = "payload") -> Text:
    """A string from the file at ``pointer``, printed as Rust's ``{:?}`` (a slot)."""
    return fv(v, source, pointer, form=q)


def nv(v, pointer: str, source: str = "payload") -> Text:
    """A number (or other scalar) from the file at ``pointer``, printed as it is (a slot)."""
    return fv(v, source, pointer)


def _eq(rule_id, source, pointer, actual, expected, expected_at=None):
    """A violation when ``actual`` (read at ``pointer``) differs from ``expected``: a constant of the
    format, or a value read from a file at ``expected_at`` (``(source, pointer)``)."""
    if actual != expected:
        yield Violation(_msg(rule_id), source, pointer, expected=expected, actual=actual, expected_at=expected_at)


# ---------------------------------------------------------------------------------- D rules
@check("D-PARSE")
def d_parse(ctx: Context):
    """D-PARSE: Descriptor parses as SessionCheckpointDescriptorV1 (FORMAT.md 6.1). Yields a Violation per failure."""
    if ctx.descriptor is None:
        raise NotApplicable("no descriptor")
    err = ctx.desc_result[1]
    if err is not None:
        yield Violation(err.text(), "descriptor", "", offset=err.offset)


@check("D-SCHEMA")
def d_schema(ctx):
    """D-SCHEMA: Descriptor schema is the v1 descriptor schema (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from _eq("D-SCHEMA", "descriptor", "/schema", ctx.desc["schema"], DESCRIPTOR_SCHEMA)


@check("D-FORMAT")
def d_format(ctx):
    """D-FORMAT: Descriptor format is a3s_code_session_checkpoint_v1 (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from _eq("D-FORMAT", "descriptor", "/format", ctx.desc["format"], FORMAT)


@check("D-MEDIA")
def d_media(ctx):
    """D-MEDIA: Descriptor media type is the v1 media type (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from _eq("D-MEDIA", "descriptor", "/media_type", ctx.desc["media_type"], MEDIA_TYPE)


def _snap(ctx):
    return ctx.desc["snapshot"]


def _lev(ctx):
    lr = ctx.desc.get("logical_resume")
    if lr is None:
        raise NotApplicable("the descriptor has no logical_resume evidence")
    return lr


def _id(rule_id, source, pointer, value):
    if not is_valid_id(value):
        yield Violation(_msg(rule_id), source, pointer, expected="non-blank, <= 256 bytes, no control characters",
                        actual=qv(value, pointer, source))


def _size(rule_id, pointer, value):
    if value == 0 or value > MAX_CONTENT_BYTES:
        yield Violation(_msg(rule_id), "descriptor", pointer, expected="1..268435456", actual=value)


def _sha(rule_id, pointer, value, msg=None):
    if not is_sha256(value):
        yield Violation(msg or _msg(rule_id), "descriptor", pointer, expected="sha256: + 64 lowercase hex digits",
                        actual=value)


@check("DS-SCHEMA")
def ds_schema(ctx):
    """DS-SCHEMA: Snapshot evidence schema is supported (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from _eq("DS-SCHEMA", "descriptor", "/snapshot/schema", _snap(ctx)["schema"], SNAPSHOT_EVIDENCE_SCHEMA)


@check("DS-ENCODING")
def ds_encoding(ctx):
    """DS-ENCODING: Snapshot encoding is canonical_json_v1 (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from _eq("DS-ENCODING", "descriptor", "/snapshot/encoding", _snap(ctx)["encoding"], ENCODING)


@check("DS-SESSION-ID")
def ds_session_id(ctx):
    """DS-SESSION-ID: Snapshot evidence session_id is a valid id (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from _id("DS-SESSION-ID", "descriptor", "/snapshot/session_id", _snap(ctx)["session_id"])


@check("DS-VERSION")
def ds_version(ctx):
    """DS-VERSION: Snapshot schema version is exactly 1 (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from _eq("DS-VERSION", "descriptor", "/snapshot/snapshot_schema_version", _snap(ctx)["snapshot_schema_version"], 1)


@check("DS-SIZE")
def ds_size(ctx):
    """DS-SIZE: Snapshot size is within (0, 256 MiB] (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from _size("DS-SIZE", "/snapshot/size_bytes", _snap(ctx)["size_bytes"])


@check("DS-CONTENT-DIGEST")
def ds_content_digest(ctx):
    """DS-CONTENT-DIGEST: Snapshot content_digest is canonical lowercase SHA-256 (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from _sha("DS-CONTENT-DIGEST", "/snapshot/content_digest", _snap(ctx)["content_digest"])


@check("DS-EVIDENCE-FORMAT")
def ds_evidence_format(ctx):
    """DS-EVIDENCE-FORMAT: Snapshot evidence_digest is canonical lowercase SHA-256 (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from _sha("DS-EVIDENCE-FORMAT", "/snapshot/evidence_digest", _snap(ctx)["evidence_digest"])


@check("DS-EVIDENCE-DIGEST")
def ds_evidence_digest(ctx):
    """DS-EVIDENCE-DIGEST: Snapshot evidence_digest binds the snapshot identity (FORMAT.md 6.1). Yields a Violation per failure."""
    ev = _snap(ctx)
    yield from _eq("DS-EVIDENCE-DIGEST", "descriptor", "/snapshot/evidence_digest", ev["evidence_digest"],
                   domain_digest(SNAPSHOT_DOMAIN, snapshot_evidence_input(ev)))


@check("DL-SCHEMA")
def dl_schema(ctx):
    """DL-SCHEMA: Logical-resume evidence schema is supported (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from _eq("DL-SCHEMA", "descriptor", "/logical_resume/schema", _lev(ctx)["schema"], LOGICAL_EVIDENCE_SCHEMA)


@check("DL-SEMANTICS")
def dl_semantics(ctx):
    """DL-SEMANTICS: Resume semantics are between_tool_rounds_v1 (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from _eq("DL-SEMANTICS", "descriptor", "/logical_resume/resume_semantics", _lev(ctx)["resume_semantics"], RESUME_SEMANTICS)


@check("DL-SESSION-ID")
def dl_session_id(ctx):
    """DL-SESSION-ID: Logical-resume session_id is a valid id (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from _id("DL-SESSION-ID", "descriptor", "/logical_resume/session_id", _lev(ctx)["session_id"])


@check("DL-RUN-ID")
def dl_run_id(ctx):
    """DL-RUN-ID: Logical-resume source_run_id is a valid id (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from _id("DL-RUN-ID", "descriptor", "/logical_resume/source_run_id", _lev(ctx)["source_run_id"])


@check("DL-VERSION")
def dl_version(ctx):
    """DL-VERSION: Loop checkpoint schema version is exactly 1 (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from _eq("DL-VERSION", "descriptor", "/logical_resume/checkpoint_schema_version", _lev(ctx)["checkpoint_schema_version"], 1)


@check("DL-ROUNDS")
def dl_rounds(ctx):
    """DL-ROUNDS: Logical resume has a completed tool round (FORMAT.md 6.1). Yields a Violation per failure."""
    if _lev(ctx)["completed_tool_rounds"] == 0:
        yield Violation(_msg("DL-ROUNDS"), "descriptor", "/logical_resume/completed_tool_rounds", expected=">= 1", actual=0)


@check("DL-SIZE")
def dl_size(ctx):
    """DL-SIZE: Logical-resume size is within (0, 256 MiB] (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from _size("DL-SIZE", "/logical_resume/size_bytes", _lev(ctx)["size_bytes"])


@check("DL-CONTENT-DIGEST")
def dl_content_digest(ctx):
    """DL-CONTENT-DIGEST: Logical-resume content_digest is canonical lowercase SHA-256 (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from _sha("DL-CONTENT-DIGEST", "/logical_resume/content_digest", _lev(ctx)["content_digest"])


@check("DL-EVIDENCE-FORMAT")
def dl_evidence_format(ctx):
    """DL-EVIDENCE-FORMAT: Logical-resume evidence_digest is canonical lowercase SHA-256 (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from _sha("DL-EVIDENCE-FORMAT", "/logical_resume/evidence_digest", _lev(ctx)["evidence_digest"])


@check("DL-EVIDENCE-DIGEST")
def dl_evidence_digest(ctx):
    """DL-EVIDENCE-DIGEST: Logical-resume evidence_digest binds the boundary (FORMAT.md 6.1). Yields a Violation per failure."""
    ev = _lev(ctx)
    yield from _eq("DL-EVIDENCE-DIGEST", "descriptor", "/logical_resume/evidence_digest", ev["evidence_digest"],
                   domain_digest(LOGICAL_DOMAIN, logical_evidence_input(ev)))


@check("D-SESSION-MATCH")
def d_session_match(ctx):
    """D-SESSION-MATCH: Logical-resume and snapshot evidence name the same session (FORMAT.md 6.1). Yields a Violation per failure."""
    ev = _lev(ctx)
    yield from _eq("D-SESSION-MATCH", "descriptor", "/logical_resume/session_id", ev["session_id"],
                   _snap(ctx)["session_id"], ("descriptor", "/snapshot/session_id"))


@check("D-SIZE")
def d_size(ctx):
    """D-SIZE: Payload size is within (0, 256 MiB] (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from _size("D-SIZE", "/size_bytes", ctx.desc["size_bytes"])


@check("D-CONTENT-DIGEST")
def d_content_digest(ctx):
    """D-CONTENT-DIGEST: Payload content_digest is canonical lowercase SHA-256 (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from _sha("D-CONTENT-DIGEST", "/content_digest", ctx.desc["content_digest"])


@check("D-COMPONENT-SIZE")
def d_component_size(ctx):
    """D-COMPONENT-SIZE: No component is larger than the payload (FORMAT.md 6.1). Yields a Violation per failure."""
    d = ctx.desc
    total = d["size_bytes"]
    for name in ("snapshot", "logical_resume"):
        comp = d.get(name)
        if comp is not None and comp["size_bytes"] > total:
            yield Violation(_msg("D-COMPONENT-SIZE"), "descriptor", f"/{name}/size_bytes",
                            expected="<= " + nv(total, "/size_bytes", "descriptor"), actual=comp["size_bytes"], extra=(("descriptor", "/size_bytes"),))


@check("D-DIGEST-FORMAT")
def d_digest_format(ctx):
    """D-DIGEST-FORMAT: descriptor_digest is canonical lowercase SHA-256 (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from _sha("D-DIGEST-FORMAT", "/descriptor_digest", ctx.desc["descriptor_digest"])


@check("D-DIGEST")
def d_digest(ctx):
    """D-DIGEST: descriptor_digest binds the descriptor (FORMAT.md 6.1). Yields a Violation per failure."""
    d = ctx.desc
    yield from _eq("D-DIGEST", "descriptor", "/descriptor_digest", d["descriptor_digest"],
                   domain_digest(DESCRIPTOR_DOMAIN, descriptor_digest_input(d)))


# ---------------------------------------------------------------------------------- P rules
def _need_payload(ctx):
    if ctx.payload_size is None:
        raise NotApplicable("no payload")


@check("P-BOUND")
def p_bound(ctx):
    """P-BOUND: Payload is at most 268435456 bytes (FORMAT.md 6.2). Yields a Violation per failure."""
    _need_payload(ctx)
    if ctx.payload_size > MAX_CONTENT_BYTES:
        yield Violation(_msg("P-BOUND"), "payload", "", expected="<= 268435456 bytes", actual=ours(f"{ctx.payload_size} bytes"))


@check("P-LENGTH-REPR")
def p_length_repr(ctx):
    """P-LENGTH-REPR: Payload length fits in u64 (FORMAT.md 6.2). Yields a Violation per failure."""
    _need_payload(ctx)
    if ctx.payload_size > U64_MAX:  # unreachable on 64-bit, as in the reference
        yield Violation(_msg("P-LENGTH-REPR"))


@check("X-BYTES")
def x_bytes(ctx):
    """X-BYTES: Descriptor size and content digest match the payload bytes (FORMAT.md 6.2). Yields a Violation per failure."""
    _need_payload(ctx)
    if ctx.payload is None:
        raise NotApplicable("the payload was not read")
    d = ctx.desc
    size = len(ctx.payload)
    digest = ctx.payload_digest
    notes = []
    if d["size_bytes"] != size:
        notes.append(fmt("size_bytes: descriptor says {}, the payload has {} bytes",
                         nv(d["size_bytes"], "/size_bytes", "descriptor"), size))
    if d["content_digest"] != digest:
        notes.append(fmt("content_digest: descriptor says {}, the payload hashes to {}",
                         nv(d["content_digest"], "/content_digest", "descriptor"), ours(digest)))
    if notes:
        try:
            notes.append(_payload_form_note(ctx))
        except Deferred:  # staged verify: said once the payload is parsed (hash before parse)
            pass
        pointer = "/content_digest" if d["size_bytes"] == size else "/size_bytes"
        yield Violation(_msg("X-BYTES"), "descriptor", pointer,
                        expected=ours(digest) if pointer == "/content_digest" else ours(str(size)),
                        actual=d["content_digest"] if pointer == "/content_digest" else d["size_bytes"],
                        notes=tuple(notes), extra=(("payload", ""),))


def _first_difference(a: bytes, b: bytes) -> int:
    from inspector.checkpoint.diagnosis.diagnose import first_difference

    return first_difference(a, b)


def _payload_form_note(ctx) -> Text:
    """Why the bytes differ, when the payload itself says so (reformatted or broken)."""
    value, err = ctx.pay_result
    if err is not None:
        return fmt("the payload file does not even parse (P-PARSE: {}); it is damaged or not a payload", err.text())
    if not ctx.is_canonical:
        from inspector.checkpoint.diagnosis.diagnose import diagnose_canonical

        classes = diagnose_canonical(ctx).classes
        what = ", ".join(c.replace("-", " ") for c in classes[:3]) or "byte differences"
        return ours(f"the payload is not in canonical form either ({what}; see P-CANONICAL): it was most likely "
                    "re-saved or reformatted after export, and the reference rejects it even with a matching descriptor")
    return ours("the payload is valid canonical JSON but not the content this descriptor was made for: "
                "it was edited after export, or the files do not belong together")


@check("P-PARSE")
def p_parse(ctx):
    """P-PARSE: Payload parses as SessionCheckpointPayloadV1 (FORMAT.md 6.2). Yields a Violation per failure."""
    if ctx.payload is None:
        raise NotApplicable("no payload")
    err = ctx.pay_result[1]
    if err is not None:
        yield Violation(err.text(), "payload", "", offset=err.offset,
                        notes=(ours(f"serde_json error category: {err.category}"),))


@check("P-SCHEMA")
def p_schema(ctx):
    """P-SCHEMA: Payload schema is the v1 payload schema (FORMAT.md 6.2). Yields a Violation per failure."""
    yield from _eq("P-SCHEMA", "payload", "/schema", ctx.pay["schema"], PAYLOAD_SCHEMA)


_SID = "/snapshot/session/id"


def _sid(ctx) -> str:
    return ctx.pay["snapshot"]["session"]["id"]


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
    requested = _sid(ctx)
    if requested != _sid(ctx):  # pragma: no cover - kept to state the rule
        yield Violation(fmt("requested session {}, but snapshot payload belongs to session {}",
                            qv(requested, _SID), qv(_sid(ctx), _SID)))


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
        yield Violation(fmt("session snapshot {} has an invalid Tool result transform policy: {}", qv(_sid(ctx), _SID),
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
                            qv(_sid(ctx), _SID), ours(err)),
                        "payload", "/snapshot/session/immutable_content_adapter_binding", actual=err)


def _runs(ctx):
    return ctx.pay["snapshot"]["run_records"]


@check("S-RUN-DUP")
def s_run_dup(ctx):
    """S-RUN-DUP: Run ids are unique (FORMAT.md 6.3). Yields a Violation per failure."""
    seen = set()
    for i, rec in enumerate(_runs(ctx)):
        run = rec["snapshot"]["id"]
        if run in seen:
            at = f"/snapshot/run_records/{i}/snapshot/id"
            yield Violation(fmt("session snapshot {} contains duplicate run id {} at run record {}",
                                qv(_sid(ctx), _SID), qv(run, at), i),
                            "payload", at, actual=run, order=(i, 2))
        seen.add(run)


@check("S-RUN-OWNER")
def s_run_owner(ctx):
    """S-RUN-OWNER: Every run belongs to the snapshot's session (FORMAT.md 6.3). Yields a Violation per failure."""
    sid = _sid(ctx)
    for i, rec in enumerate(_runs(ctx)):
        owner = rec["snapshot"]["session_id"]
        if owner != sid:
            run = rec["snapshot"]["id"]
            at = f"/snapshot/run_records/{i}/snapshot/session_id"
            yield Violation(fmt("run {} at record {} belongs to session {}, but snapshot belongs to session {}",
                                qv(run, f"/snapshot/run_records/{i}/snapshot/id"), i, qv(owner, at), qv(sid, _SID)),
                            "payload", at, expected=nv(sid, _SID), actual=owner,
                            order=(i, 3))


@check("S-EVENT-SEQ")
def s_event_seq(ctx):
    """S-EVENT-SEQ: Run event sequences strictly increase (FORMAT.md 6.3). Yields a Violation per failure."""
    for i, (rec, read) in enumerate(zip(_runs(ctx), for_context(ctx))):
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
    for i, rec in enumerate(_runs(ctx)):
        s = _last_sequence(rec)
        if s is not None and s + 1 > U64_MAX:
            at = f"/snapshot/run_records/{i}/events/{len(rec['events']) - 1}/sequence"
            yield Violation(fmt("run {} retained event sequence {} cannot be represented by event_count",
                                qv(rec["snapshot"]["id"], f"/snapshot/run_records/{i}/snapshot/id"), nv(s, at)),
                            "payload", at, actual=s, order=(i, 5))


@check("S-EVENT-COUNT")
def s_event_count(ctx):
    """S-EVENT-COUNT: event_count covers every retained event (FORMAT.md 6.3). Yields a Violation per failure."""
    for i, rec in enumerate(_runs(ctx)):
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
    sid = _sid(ctx)
    for i, t in enumerate(ctx.pay["snapshot"]["subagent_tasks"]):
        parent = t["parent_session_id"]
        if parent and parent != sid:
            at = f"/snapshot/subagent_tasks/{i}/parent_session_id"
            yield Violation(fmt("subagent task {} at record {} belongs to parent session {}, but snapshot belongs to session {}",
                                qv(t["task_id"], f"/snapshot/subagent_tasks/{i}/task_id"), i, qv(parent, at), qv(sid, _SID)),
                            "payload", at, expected=nv(sid, _SID), actual=parent, order=(i,))


@check("P-SESSION-ID")
def p_session_id(ctx):
    """P-SESSION-ID: Session id is a valid id (FORMAT.md 6.2). Yields a Violation per failure."""
    yield from _id("P-SESSION-ID", "payload", "/snapshot/session/id", _sid(ctx))


def _short(v) -> str:
    s = "absent" if v is None else orjson.dumps(v, option=orjson.OPT_SORT_KEYS).decode()
    return s if len(s) <= 200 else s[:197] + "..."


@check("E-ENCODING")
def e_encoding(ctx):
    """E-ENCODING: Decoded payload serializes (FORMAT.md 6.2). Yields a Violation per failure."""
    try:
        ctx.canonical
    except TypeError as e:  # pragma: no cover - serialization of decoded values is total
        yield Violation(ours(type(e).__name__))


@check("P-CANONICAL")
def p_canonical(ctx):
    """P-CANONICAL: Payload is exactly its canonical JSON encoding (FORMAT.md 6.2). Yields a Violation per failure."""
    if ctx.is_canonical:
        return
    from inspector.checkpoint.diagnosis.diagnose import diagnose_canonical

    try:
        diag = diagnose_canonical(ctx)
    except (MemoryError, RecursionError) as e:  # the verdict stands; only the explanation is lost
        offset = _first_difference(ctx.payload, ctx.canonical)
        yield Violation(_msg("P-CANONICAL"), "payload", "", offset=offset,
                        notes=(fmt("first differing byte: offset {}", offset),
                               ours(f"the detailed explanation could not be computed ({type(e).__name__})")))
        return
    primary = diag.primary
    # A difference inside a value points at that value; whitespace points at its byte.
    at_value = primary is not None and primary.pointer and primary.kind not in ("default-field-missing",)
    pointer = primary.pointer if primary is not None else ""
    offset = None if at_value else (primary.offset if primary is not None else diag.offset)
    yield Violation(_msg("P-CANONICAL"), "payload", pointer, offset=offset,
                    expected=diag.expected, actual=diag.actual, notes=tuple(diag.notes))


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
        yield Violation(_msg("L-TURN-REPR"))


def _diff(expected, actual, pointer=""):
    """Leaf-level differences between two descriptor dicts: [(pointer, expected, actual)]."""
    if isinstance(expected, dict) and isinstance(actual, dict):
        out = []
        for k in list(expected) + [k for k in actual if k not in expected]:
            out += _diff(expected.get(k), actual.get(k), f"{pointer}/{k}")
        return out
    return [] if json_equal(expected, actual) else [(pointer, expected, actual)]


def _descriptor_violation(rule_id, ctx, expected, actual, prefix):
    diffs = _diff(expected, actual, prefix)
    if not diffs:
        return
    p, e, a = diffs[0]
    # the pointers are the descriptor's own field names (it decoded: no unknown key); the values are
    # the descriptor's (actual) and those rebuilt from the payload (expected) for the same place
    notes = tuple(fmt("{}: descriptor has {}, payload gives {}", ours(ptr), _dv(av, ptr), _dv(ev, ptr))
                  for ptr, ev, av in diffs)
    yield Violation(_msg(rule_id), "descriptor", p if a is not None else prefix, expected=_dv(e, p),
                    actual=_dv(a, p), notes=notes)


def _dv(v, pointer: str) -> Text:
    """A descriptor field's value (stated, or rebuilt from the payload) as printed by :func:`_short`."""
    return ours("absent") if v is None else fv(v, "descriptor", pointer, form=_short)


@check("X-DESCRIPTOR")
def x_descriptor(ctx):
    """X-DESCRIPTOR: Descriptor equals the one rebuilt from the payload (FORMAT.md 6.2). Yields a Violation per failure."""
    yield from _descriptor_violation("X-DESCRIPTOR", ctx, ctx.expected_descriptor, ctx.desc, "")


@check("X-SNAPSHOT-EVIDENCE")
def x_snapshot_evidence(ctx):
    """X-SNAPSHOT-EVIDENCE: Snapshot evidence matches the supplied snapshot (host check) (FORMAT.md 6.2). Yields a Violation per failure."""
    yield from _descriptor_violation("X-SNAPSHOT-EVIDENCE", ctx, ctx.expected_descriptor["snapshot"], ctx.desc["snapshot"], "/snapshot")


@check("X-LOGICAL-EVIDENCE")
def x_logical_evidence(ctx):
    """X-LOGICAL-EVIDENCE: Logical-resume evidence matches the loop checkpoint (host check) (FORMAT.md 6.2). Yields a Violation per failure."""
    ctx.lr
    _lev(ctx)
    yield from _descriptor_violation("X-LOGICAL-EVIDENCE", ctx, ctx.expected_descriptor["logical_resume"],
                                     ctx.desc["logical_resume"], "/logical_resume")


from inspector.checkpoint.rules import checks_bindings as _checks_bindings  # noqa: E402,F401  (registers the binding rules)
from inspector.checkpoint.rules import checks_loop as _checks_loop  # noqa: E402,F401  (registers the loop-checkpoint rules)
