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

import json
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from json.encoder import encode_basestring as _encode_str

from inspector.checkpoint.schema.kinds import Tagged

from . import jsonstack
from .allowlist import AllowList
from .gate import _INDEX, _ROOTS, Gate, _flat, child_types, declares, is_struct, marker, scalar_shown

__all__ = ["Replacement", "marker", "redact_value", "redact_payload", "redacted_chunks", "parse_lenient", "gate_for",
           "PARSE_LIMIT"]

#: Files larger than this are not parsed for redaction (the report then judges their values without
#: the tags of their tagged unions).
PARSE_LIMIT = 32 << 20


@dataclass(frozen=True, slots=True)
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
        ``(redacted_value, [Replacement, ...])`` in document order: the value that
        :func:`redact_payload`'s bytes spell (read back from them).
    """
    gate = gate or Gate(tags=hash_prefix, allow=allow)
    reps: list[Replacement] = []
    text = b"".join(_Walk(value, source, gate, hash_prefix, reps).chunks())
    return parse_lenient(text), reps


class _Walk:
    """One walk of a parsed document through the gate, writing the redacted copy's compact JSON as it goes
    (keys in file order, non-ASCII kept, as :func:`.jsonstack.dumps` writes them) in chunks of
    :data:`_CHUNK` pieces, and listing each replacement in document order. Nothing of the copy is kept
    beyond the chunk being filled; the stack holds one frame per open container (explicit stack: no
    recursion per nesting level).

    Each place's types are carried down from its parent (never looked up from the root again), and
    :func:`.gate.child_types`, :func:`.gate.declares` and :func:`.gate.is_struct` are asked once per distinct
    question: their answers depend on the parent's types, the key, and the parent's tag values only (the tag
    of each tagged union among its types); tests/ticket/test_redact_walk.py checks that against the gate."""

    def __init__(self, value, source: str, gate: Gate, hash_prefix: bool, reps: list):
        if hash_prefix:
            gate.tags = True
        self.value, self.source, self.gate, self.reps = value, source, gate, reps
        self.allow = gate.allow
        self.n_keys = 0
        self._child: dict = {}
        self._declares: dict = {}
        self._struct: dict = {}
        self._tags: dict = {}
        self._keep: list = []  # every types tuple answered, so that their ids stay theirs for the walk

    # -- the gate's answers, asked once each ------------------------------------------------------------------
    def _tag_values(self, types: tuple, node) -> tuple:
        tags = self._tags.get(id(types))
        if tags is None:
            tags = self._tags[id(types)] = tuple(t.tag for t in _flat(types) if isinstance(t, Tagged))
            self._keep.append(types)
        if not tags or not isinstance(node, dict):
            return ()
        return tuple(_hashable(node.get(tag)) for tag in tags)

    def child_types(self, types: tuple, key: str, node) -> tuple:
        memo = (id(types), key, self._tag_values(types, node))
        got = self._child.get(memo)
        if got is None:
            got = self._child[memo] = child_types(types, key, node)
            self._keep.append(got)
        return got

    def declares(self, types: tuple, key: str, node) -> bool:
        memo = (id(types), key, self._tag_values(types, node))
        got = self._declares.get(memo)
        if got is None:
            got = self._declares[memo] = declares(types, key, node)
        return got

    def is_struct(self, types: tuple) -> bool:
        got = self._struct.get(id(types))
        if got is None:
            got = self._struct[id(types)] = is_struct(types)
            self._keep.append(types)
        return got

    # -- the walk ------------------------------------------------------------------------------------------------
    def chunks(self):
        """Yield the redacted copy as UTF-8 ``bytes`` chunks (lone surrogates kept: ``surrogatepass``)."""
        source, gate, allow, reps = self.source, self.gate, self.allow, self.reps
        vocab = allow.vocabulary
        buf: list[str] = []
        emit = buf.append
        # frames: [kind, members, position, ptr, shape, shown, types, node]; members of a dict: (key, shown key, value)
        stack: list[list] = []
        pending = [(self.value, "", "", "", _ROOTS.get(source, ()), False)]
        while True:
            if pending:
                v, ptr, shape, shown, types, forced = pending.pop()
                container = isinstance(v, (dict, list))
                if v is None:
                    emit("null")
                elif container and not v:
                    emit("{}" if isinstance(v, dict) else "[]")  # carry no content: kept, so the structure stays readable
                elif forced or not allow.allows_shape(source, shape) or (
                        not container and not scalar_shown(types, ptr, v, vocab)[0]):
                    kind = gate.kind(source, ptr)
                    emit(_encode_str(gate.mark(v, kind)))
                    reps.append(_replacement(gate, v, shown, kind, "value"))
                elif isinstance(v, dict):
                    emit("{")
                    stack.append(["{", self._members(v, ptr, shape, shown, types), 0, ptr, shape, shown, types, v])
                elif isinstance(v, list):
                    emit("[")
                    stack.append(["[", v, 0, ptr, shape, shown, types, v])
                else:
                    emit(_scalar(v))
                if len(buf) >= _CHUNK:
                    yield "".join(buf).encode("utf-8", "surrogatepass")
                    buf.clear()
            if not stack:
                break
            frame = stack[-1]
            kind, members, i = frame[0], frame[1], frame[2]
            if i == len(members):
                emit("}" if kind == "{" else "]")
                stack.pop()
                continue
            frame[2] = i + 1
            if i:
                emit(",")
            ptr, shape, shown, types, node = frame[3:8]
            if kind == "{":
                k, key, child = members[i]
                ek = _esc(k)
                emit(_encode_str(key) + ":")
                pending.append((child, f"{ptr}/{ek}", f"{shape}/{ek}", f"{shown}/{_esc(key)}",
                                self.child_types(types, k, node), key != k))
            else:
                pending.append((members[i], f"{ptr}/{i}", shape + "/0", f"{shown}/{i}",
                                self.child_types(types, "0", node), False))
        if buf:
            yield "".join(buf).encode("utf-8", "surrogatepass")

    def _members(self, v: dict, ptr: str, shape: str, shown: str, types: tuple) -> list:
        """The object's members as ``(key, key as shown, value)``: every key judged (and each redacted key
        numbered and listed) when the object is reached, before any of its values, as the copy has always
        numbered them."""
        source, gate, allow = self.source, self.gate, self.allow
        struct = self.is_struct(types)
        out = []
        for k, child in v.items():
            ek = _esc(k)
            # a key that reads as an array index is never a field name (the allow-list's `*` is an index)
            if not _INDEX.fullmatch(k) and not k.isdigit() and (allow.allows_shape(source, f"{shape}/{ek}") or self.declares(
                    types, k, v) or (struct and k in allow.known_keys)):
                key = k
            else:
                self.n_keys += 1
                raw = k.encode("utf-8", "surrogatepass")
                tag = gate.tag(raw) if gate.tags else None
                gate.count += 1
                key = f"[redacted key #{self.n_keys}: {len(raw)} bytes" + (f", tag {tag}" if tag else "") + "]"
                self.reps.append(Replacement(f"{shown}/{_esc(key)}", "key", len(raw), "key",
                                             f"tag {tag}" if tag else None))
            out.append((k, key, child))
        return out


#: Pieces of JSON text gathered before a chunk is encoded and handed on.
_CHUNK = 16384


def _hashable(v):
    """A tag value as a memo key: itself when it is a string, number, boolean or null; else its type (no
    container is a variant's name)."""
    return v if v is None or isinstance(v, (str, int, float)) else ("a", type(v).__name__)


def _scalar(v) -> str:
    """A scalar as :func:`json.dumps` (``ensure_ascii=False``) writes it, which :func:`.jsonstack.dumps` uses."""
    if isinstance(v, str):
        return _encode_str(v)
    if v is True:
        return "true"
    if v is False:
        return "false"
    if isinstance(v, int):
        return int.__repr__(v)
    if isinstance(v, float):
        if v != v:
            return "NaN"
        if v in (_INF, -_INF):
            return "Infinity" if v > 0 else "-Infinity"
        return float.__repr__(v)
    return json.dumps(v, ensure_ascii=False)


_INF = float("inf")


def _replacement(gate: Gate, v, shown: str, kind: str, what: str) -> Replacement:
    raw = (v if isinstance(v, str) else jsonstack.dumps(v)).encode("utf-8", "surrogatepass")
    return Replacement(shown, kind, len(raw), what, f"tag {gate.tag(raw)}" if gate.tags else None)


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
    chunks, reps = redacted_chunks(data, source=source, hash_prefix=hash_prefix, gate=gate)
    return b"".join(chunks), reps


def redacted_chunks(data: bytes, *, source: str = "payload", hash_prefix: bool = False,
                    gate: Gate | None = None) -> tuple[Iterator[bytes], list[Replacement]]:
    """:func:`redact_payload` as a stream: the file is parsed now (once: the gate's own parse of these very
    bytes is reused, see :func:`gate_for`), the copy is written as the chunks are taken.

    Returns:
        ``(chunks, replacements)``: an iterator of ``bytes`` whose concatenation is :func:`redact_payload`'s
        bytes, and the list it fills, in document order, as it goes (complete once the chunks are exhausted).

    Raises:
        ValueError: the file is not JSON, so no redacted copy can be made (raised here, before any chunk).
    """
    gate = gate or Gate(tags=hash_prefix)
    parsed = _PARSED.get(gate, {})
    if parsed.get(source) is data and source in gate.docs:
        value = gate.docs[source]
    else:
        value = parse_lenient(data)
    reps: list[Replacement] = []
    return _Walk(value, source, gate, hash_prefix, reps).chunks(), reps


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
    gate = Gate(docs, tags=tags, key=key, allow=allow)
    _PARSED[gate] = {source: data for source, data in (("payload", payload), ("descriptor", descriptor))
                     if source in docs}
    return gate


#: The bytes each gate made by :func:`gate_for` parsed, by source: the redacted copy of those very bytes
#: walks the gate's parse instead of parsing them again.
_PARSED: "weakref.WeakKeyDictionary[Gate, dict]" = weakref.WeakKeyDictionary()
