"""The payload's bytes, parse and canonical form, and the rebuilt descriptor (FORMAT.md 6.2): P-*, X-* and
E-ENCODING, each registered with ``@check``. Messages are the reference's verbatim texts.
"""

from __future__ import annotations

from inspector.checkpoint.constants import MAX_CONTENT_BYTES
from inspector.checkpoint.constants import PAYLOAD_SCHEMA
from inspector.checkpoint.rules.context import Deferred, NotApplicable, json_equal
from inspector.checkpoint.rules.registry import (
    U64_MAX, Violation, check, descriptor_logical_resume, expect_equal, nv, reference_message, short_json,
)
from inspector.checkpoint.slotted import Text, fmt, ours
from inspector.checkpoint.slotted import value as fv


# ---------------------------------------------------------------------------------- P rules
def _need_payload(ctx):
    if ctx.payload_size is None:
        raise NotApplicable("no payload")


@check("P-BOUND")
def p_bound(ctx):
    """P-BOUND: Payload is at most 268435456 bytes (FORMAT.md 6.2). Yields a Violation per failure."""
    _need_payload(ctx)
    if ctx.payload_size > MAX_CONTENT_BYTES:
        yield Violation(reference_message("P-BOUND"), "payload", "", expected="<= 268435456 bytes", actual=ours(f"{ctx.payload_size} bytes"))


@check("P-LENGTH-REPR")
def p_length_repr(ctx):
    """P-LENGTH-REPR: Payload length fits in u64 (FORMAT.md 6.2). Yields a Violation per failure."""
    _need_payload(ctx)
    if ctx.payload_size > U64_MAX:  # unreachable on 64-bit, as in the reference
        yield Violation(reference_message("P-LENGTH-REPR"))


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
    # the payload's SHA-256, computed here, stands for the place it is compared with: a digest of the files,
    # which the ticket's gate tags unless asked (allowlist.toml [[digest]] "file")
    shown_digest = nv(digest, "/content_digest", "descriptor")
    if d["content_digest"] != digest:
        notes.append(fmt("content_digest: descriptor says {}, the payload hashes to {}",
                         nv(d["content_digest"], "/content_digest", "descriptor"), shown_digest))
    if notes:
        try:
            notes.append(_payload_form_note(ctx))
        except Deferred:  # staged verify: said once the payload is parsed (hash before parse)
            pass
        pointer = "/content_digest" if d["size_bytes"] == size else "/size_bytes"
        yield Violation(reference_message("X-BYTES"), "descriptor", pointer,
                        expected=shown_digest if pointer == "/content_digest" else ours(str(size)),
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
    yield from expect_equal("P-SCHEMA", "payload", "/schema", ctx.pay["schema"], PAYLOAD_SCHEMA)




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
        yield Violation(reference_message("P-CANONICAL"), "payload", "", offset=offset,
                        notes=(fmt("first differing byte: offset {}", offset),
                               ours(f"the detailed explanation could not be computed ({type(e).__name__})")))
        return
    primary = diag.primary
    # A difference inside a value points at that value; whitespace points at its byte.
    at_value = primary is not None and primary.pointer and primary.kind not in ("default-field-missing",)
    pointer = primary.pointer if primary is not None else ""
    offset = None if at_value else (primary.offset if primary is not None else diag.offset)
    yield Violation(reference_message("P-CANONICAL"), "payload", pointer, offset=offset,
                    expected=diag.expected, actual=diag.actual, notes=tuple(diag.notes))




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
    yield Violation(reference_message(rule_id), "descriptor", p if a is not None else prefix, expected=_dv(e, p),
                    actual=_dv(a, p), notes=notes)


def _dv(v, pointer: str) -> Text:
    """A descriptor field's value (stated, or rebuilt from the payload) as printed by :func:`short_json`."""
    return ours("absent") if v is None else fv(v, "descriptor", pointer, form=short_json)


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
    descriptor_logical_resume(ctx)
    yield from _descriptor_violation("X-LOGICAL-EVIDENCE", ctx, ctx.expected_descriptor["logical_resume"],
                                     ctx.desc["logical_resume"], "/logical_resume")
