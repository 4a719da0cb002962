"""The redacted payload: a copy of a payload (or descriptor) for review and sharing, made through the
one gate (:mod:`.gate`).

Every value is judged by its place and by value: shown only when its place is on the allow-list
and it passes the check of its place's class (an integer in an integer field, an enum's variant,
an id that passes the id check, a digest...); everything else is replaced whole by
``"[redacted: KIND, N bytes]"`` (``N``: UTF-8 bytes of the string, or of the compact JSON of any
other value), with every replacement listed. Object keys are shown only where the typed layout
declares them (keys inside free-form values are content).

Verification never sees any of this: it runs on the original bytes first.
"""

from __future__ import annotations

from dataclasses import dataclass

from . import jsonstack
from .allowlist import AllowList
from .gate import _INDEX, _ROOTS, CREDENTIAL_ID, Gate, child_types, declares, is_struct, marker, scalar_shown

__all__ = ["Replacement", "marker", "redact_value", "redact_payload", "parse_lenient", "gate_for", "PARSE_LIMIT"]

#: Files larger than this are not parsed for redaction (the report then judges their values without
#: the tags of their tagged unions).
PARSE_LIMIT = 32 << 20


@dataclass(frozen=True)
class Replacement:
    """One redaction in a redacted payload: ``pointer`` (JSON Pointer as shown: keys that are
    themselves redacted appear as their marker), ``kind``, ``size`` (bytes), ``what``
    (``value`` or ``key``), ``digest`` (``tag`` + 8 hex of the keyed tag, only when asked for)."""

    pointer: str
    kind: str
    size: int
    what: str = "value"
    digest: str | None = None


def redact_value(value, source: str, *, hash_prefix: bool = False, gate: Gate | None = None,
                 allow: AllowList | None = None, trusted: bool | None = None):
    """Redact a parsed JSON value (dicts keep their key order) through the gate.

    Args:
        value: the parsed document. source: ``payload`` or ``descriptor``.
        hash_prefix: give each marker the gate's keyed tag (:data:`.gate.TAG_NOTE`).
        gate: the report's gate (so the redacted copy and the report share one tag key), or ``None``.
        trusted: ignored (kept for callers): values are judged by value, whether the file decodes or not.

    Returns:
        ``(redacted_value, [Replacement, ...])`` in document order. Walks with an explicit stack.
    """
    gate = gate or Gate(tags=hash_prefix, allow=allow)
    if hash_prefix:
        gate.tags = True
    allow = gate.allow
    vocab = allow.vocabulary
    reps: list[Replacement] = []
    holder = [None]
    n_keys = 0
    # (value, pointer, shape: the pointer with every index 0, shown pointer, types, parent, slot, forced)
    stack = [(value, "", "", "", _ROOTS.get(source, ()), holder, 0, False)]
    while stack:
        v, ptr, shape, shown, types, parent, slot, forced = stack.pop()
        judged: tuple = (True, None)  # (shown, class) of a scalar at an allowed place
        container = isinstance(v, (dict, list))
        if v is None or (container and not v):
            out = v  # null, {} and [] carry no content: kept, so the structure stays readable
        elif forced or not allow.allows_shape(source, shape) or (
                not container and not (judged := scalar_shown(types, ptr, v, vocab))[0]):
            kind = CREDENTIAL_ID if judged[1] == CREDENTIAL_ID else gate.kind(source, ptr)
            out = gate.mark(v, kind)
            reps.append(_replacement(gate, v, shown, kind, "value"))
        elif isinstance(v, dict):
            out = {}
            children = []
            struct = is_struct(types)
            for k, child in v.items():
                ek = _esc(k)
                # a key that reads as an array index is never a field name (the allow-list's `*` is an index)
                if not _INDEX.fullmatch(k) and not k.isdigit() and (allow.allows_shape(source, f"{shape}/{ek}") or declares(
                        types, k, v) or (struct and k in allow.known_keys)):
                    key = k
                else:
                    n_keys += 1
                    raw = k.encode("utf-8", "surrogatepass")
                    tag = gate.tag(raw) if gate.tags else None
                    gate.count += 1
                    key = f"[redacted key #{n_keys}: {len(raw)} bytes" + (f", tag {tag}" if tag else "") + "]"
                    reps.append(Replacement(f"{shown}/{_esc(key)}", "key", len(raw), "key",
                                            f"tag {tag}" if tag else None))
                out[key] = None
                children.append((child, f"{ptr}/{ek}", f"{shape}/{ek}", f"{shown}/{_esc(key)}",
                                 child_types(types, k, v), out, key, key != k))
            stack.extend(reversed(children))
        elif isinstance(v, list):
            out = [None] * len(v)
            stack.extend(reversed([(c, f"{ptr}/{i}", shape + "/0", f"{shown}/{i}", child_types(types, "0", v), out, i,
                                    False) for i, c in enumerate(v)]))
        else:
            out = v
        parent[slot] = out
    return holder[0], reps


def _replacement(gate: Gate, v, shown: str, kind: str, what: str) -> Replacement:
    raw = (v if isinstance(v, str) else jsonstack.dumps(v)).encode("utf-8", "surrogatepass")
    return Replacement(shown, kind, len(raw), what, f"tag {gate.tag(raw)}" if gate.tagged(kind) else None)


def parse_lenient(data: bytes):
    """Parse JSON leniently for redaction, at any nesting depth (orjson; past its 1024 levels
    or its 64-bit integers, the explicit-stack reader :func:`.jsonstack.loads`).

    Raises:
        ValueError: not JSON (``not valid JSON (<reason> at character N)``).
    """
    import orjson

    body = data[3:] if data[:3] == b"\xef\xbb\xbf" else data
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        pass
    try:
        return jsonstack.loads(body.decode("utf-8"))
    except ValueError as e:
        raise ValueError(f"not valid JSON ({e})") from None


def redact_payload(data: bytes, *, source: str = "payload", hash_prefix: bool = False, gate: Gate | None = None,
                   trusted: bool | None = None) -> tuple[bytes, list[Replacement]]:
    """A redacted copy of a payload's (or descriptor's) bytes, for review and sharing.

    The copy is compact JSON (UTF-8, keys in file order) and is *not* a checkpoint: its digests no
    longer match. Verification always runs on the original bytes.

    Args:
        hash_prefix: markers carry the gate's keyed tags; gate: the report's gate (shared tag key).
        trusted: ignored (kept for callers).

    Returns:
        ``(bytes, replacements)``.

    Raises:
        ValueError: the file is not JSON, so no redacted copy can be made.
    """
    value, reps = redact_value(parse_lenient(data), source, hash_prefix=hash_prefix, gate=gate)
    return jsonstack.dumps(value).encode("utf-8", "surrogatepass"), reps


def _esc(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def gate_for(payload: bytes | None, descriptor: bytes | None, *, tags: bool = False, key: bytes | None = None,
             allow: AllowList | None = None) -> Gate:
    """The gate of one report over these file bytes: each file parsed (when it is JSON and at most
    :data:`PARSE_LIMIT` bytes) so the tags of its tagged unions narrow each place's types."""
    docs = {}
    for source, data in (("payload", payload), ("descriptor", descriptor)):
        if data is None or len(data) > PARSE_LIMIT:
            continue
        try:
            docs[source] = parse_lenient(data)
        except ValueError:
            continue
    return Gate(docs, tags=tags, key=key, allow=allow)
