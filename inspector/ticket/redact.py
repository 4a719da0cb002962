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

from inspector.checkpoint.jsontext.pointer import escape as escape_pointer_token

import json
import weakref
from collections.abc import Iterator
from dataclasses import dataclass
from json.encoder import encode_basestring as _encode_str

import msgspec
import orjson

from inspector.checkpoint.schema.kinds import Tagged

from . import jsonstack
from .allowlist import AllowList
from .gate import _INDEX, _ROOTS, CREDENTIAL_ID, Gate, _flat, child_types, declares, is_struct, marker, scalar_shown

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

    Each place's types are carried down from its parent (never looked up from the root again), and the
    gate's pure functions are asked once per distinct question: :func:`.gate.child_types`,
    :func:`.gate.declares` and :func:`.gate.is_struct` by the parent's types, the key and the parent's tag
    values (the tag of each tagged union among its types: all of the parent they read);
    :func:`.gate.scalar_shown` and :meth:`.gate.Gate.kind` by the place's *shape* (its pointer with every
    array index written 0), as :meth:`.allowlist.AllowList.allows_shape` asks the allow-list: the
    allow-list's patterns name array indices only as ``*``. tests/ticket/test_redact_walk.py checks these
    answers against the gate's own at every place of the fixtures."""

    def __init__(self, value, source: str, gate: Gate, hash_prefix: bool, reps: list, pieces: "_Pieces | None" = None):
        if hash_prefix:
            gate.tags = True
        self.value, self.source, self.gate, self.reps, self.pieces = value, source, gate, reps, pieces
        self.allow = gate.allow
        self.n_keys = 0
        self._child: dict = {}
        self._declares: dict = {}
        self._struct: dict = {}
        self._tags: dict = {}
        self._shown: dict = {}
        self._kinds: dict = {}
        self._keys: dict = {}
        self._keep: list = []  # every types tuple answered, so that their ids stay theirs for the walk

    # -- the gate's answers, asked once each ------------------------------------------------------------------
    def tag_values(self, types: tuple, node) -> tuple:
        """The values of ``node``'s tags (one per tagged union among ``types``) as a memo key."""
        tags = self._tags.get(id(types))
        if tags is None:
            tags = self._tags[id(types)] = tuple(t.tag for t in _flat(types) if isinstance(t, Tagged))
            self._keep.append(types)
        if not tags or not isinstance(node, dict):
            return ()
        return tuple(_hashable(node.get(tag)) for tag in tags)

    def child_types(self, types: tuple, key: str, node, tagv: tuple) -> tuple:
        """:func:`.gate.child_types`; ``tagv``: :meth:`tag_values` of ``types`` and ``node``."""
        memo = (id(types), key, tagv)
        got = self._child.get(memo)
        if got is None:
            got = self._child[memo] = child_types(types, key, node)
            self._keep.append(got)
        return got

    def declares(self, types: tuple, key: str, node, tagv: tuple) -> bool:
        """:func:`.gate.declares`; ``tagv`` as for :meth:`child_types`."""
        memo = (id(types), key, tagv)
        got = self._declares.get(memo)
        if got is None:
            got = self._declares[memo] = declares(types, key, node)
        return got

    def is_struct(self, types: tuple) -> bool:
        """:func:`.gate.is_struct`."""
        got = self._struct.get(id(types))
        if got is None:
            got = self._struct[id(types)] = is_struct(types)
            self._keep.append(types)
        return got

    def scalar_shown(self, types: tuple, ptr: str, shape: str, v) -> bool:
        """:func:`.gate.scalar_shown`'s verdict for the scalar ``v`` at ``ptr`` (of that ``shape``)."""
        memo = (id(types), shape, type(v), v)
        got = self._shown.get(memo)
        if got is None:
            if len(self._shown) >= _MEMO:
                self._shown.clear()  # distinct values (ids, sequence numbers) would grow it with the document
            got = self._shown[memo] = scalar_shown(types, ptr, v, self.allow.vocabulary)[0]
        return got

    def kind(self, ptr: str, shape: str) -> str:
        """:meth:`.gate.Gate.kind` at ``ptr`` (of that ``shape``)."""
        got = self._kinds.get(shape)
        if got is None:
            got = self._kinds[shape] = self.gate.kind(self.source, ptr)
        return got

    # -- the walk ------------------------------------------------------------------------------------------------
    def chunks(self):
        """Yield the redacted copy as UTF-8 ``bytes`` chunks (lone surrogates kept: ``surrogatepass``)."""
        source, allow, pieces = self.source, self.allow, self.pieces
        allows_shape, shown_scalar, shown_memo = allow.allows_shape, self.scalar_shown, self._shown
        file_digests, file_digest = self.gate.file_digests, allow.file_digest  # (a descriptor's own digests)
        shape_ok: dict = {}
        buf: list[str] = []
        emit = buf.append
        # frames: [is a dict, members, next position, ptr, shape, shown, element types (lists)];
        # members of a dict: (key, key as shown, value, the value's types). A value's own pointer and shown
        # pointer are made only when needed: from its parent's frame and its segment (``seg``, ``sseg``).
        stack: list[list] = []
        v, types, forced, shape = self.value, _ROOTS.get(source, ()), False, ""
        parent, seg, sseg = None, "", ""
        while True:
            ok = shape_ok.get(shape)
            if ok is None:
                ok = shape_ok[shape] = allows_shape(source, shape) and (file_digests or not file_digest(source, shape))
            t = type(v)
            if t is _RAW:  # a large member of a file read in pieces: split now, or decoded whole to be marked
                v = pieces.whole(memoryview(v)) if forced or not ok else pieces.split(memoryview(v))
                t = type(v)
            if v is None:
                emit("null")
            elif t is str and ok and not forced:
                got = shown_memo.get((id(types), shape, t, v))
                if got is None:
                    got = shown_scalar(types, _ptr(parent, seg), shape, v)
                emit(_encode_str(v) if got else self._mark(v, types, parent, seg, sseg, shape, judged=True))
            elif t is dict or t is list or isinstance(v, (dict, list)):
                if not v:
                    emit("{}" if isinstance(v, dict) else "[]")  # carry no content: kept, so the structure stays readable
                elif forced or not ok:
                    emit(self._mark(v, types, parent, seg, sseg, shape))
                else:
                    ptr, shown = _ptr(parent, seg), ("" if parent is None else f"{parent[5]}/{sseg}")
                    if isinstance(v, dict):
                        emit("{")
                        stack.append([True, self._members(v, shape, shown, types), 0, ptr, shape, shown, None])
                    else:
                        emit("[")
                        stack.append([False, v, 0, ptr, shape + "/0", shown, self.child_types(types, "0", v, ())])
            elif forced or not ok or not shown_scalar(types, _ptr(parent, seg), shape, v):
                emit(self._mark(v, types, parent, seg, sseg, shape))
            else:
                emit(_scalar(v))
            if len(buf) >= _CHUNK:
                yield "".join(buf).encode("utf-8", "surrogatepass")
                buf.clear()
            # the next value: the next member of the innermost open container, closing those that are done
            while stack:
                parent = stack[-1]
                members, i = parent[1], parent[2]
                if i < len(members):
                    break
                emit("}" if parent[0] else "]")
                stack.pop()
            else:
                break
            parent[2] = i + 1
            if i:
                emit(",")
            if parent[0]:
                k, key, v, types = members[i]
                seg = _esc(k) if "~" in k or "/" in k else k
                emit(_encode_str(key) + ":")
                shape = f"{parent[4]}/{seg}"
                forced = key != k
                sseg = _esc(key) if forced else seg
            else:
                v, types, forced, shape = members[i], parent[6], False, parent[4]
                seg = sseg = str(i)
        if buf:
            yield "".join(buf).encode("utf-8", "surrogatepass")

    def _mark(self, v, types: tuple, parent, seg: str, sseg: str, shape: str, judged: bool = False) -> str:
        """The marker (as JSON text) replacing ``v``, listed as a replacement. ``judged``: a string at an
        allowed place that failed its class: an id that looks like a credential gets that KIND."""
        kind = None
        if judged and scalar_shown(types, _ptr(parent, seg), v, self.allow.vocabulary)[1] == CREDENTIAL_ID:
            kind = CREDENTIAL_ID
        kind = kind or self.kind(_ptr(parent, seg), shape)
        self.reps.append(_replacement(self.gate, v, "" if parent is None else f"{parent[5]}/{sseg}", kind, "value"))
        return _encode_str(self.gate.mark(v, kind))

    def _members(self, v: dict, shape: str, shown: str, types: tuple) -> list:
        """The object's members as ``(key, key as shown, value, its types)``: every key judged (and each
        redacted key numbered and listed) when the object is reached, before any of its values, as the copy
        has always numbered them."""
        gate = self.gate
        tagv = self.tag_values(types, v)
        memo, ident = self._keys, id(types)
        out = []
        for k, child in v.items():
            question = (ident, shape, k, tagv)
            answer = memo.get(question)
            if answer is None:
                if len(memo) >= _MEMO:
                    memo.clear()  # the keys of maps (free-form keys) would grow it with the document
                answer = memo[question] = (self._key_shown(types, shape, k, v, tagv),
                                           self.child_types(types, k, v, tagv))
            if answer[0]:
                key = k
            else:
                self.n_keys += 1
                raw = k.encode("utf-8", "surrogatepass")
                tag = gate.tag(raw) if gate.tags else None
                gate.count += 1
                key = f"[redacted key #{self.n_keys}: {len(raw)} bytes" + (f", tag {tag}" if tag else "") + "]"
                self.reps.append(Replacement(f"{shown}/{_esc(key)}", "key", len(raw), "key",
                                             f"tag {tag}" if tag else None))
            out.append((k, key, child, answer[1]))
        return out

    def _key_shown(self, types: tuple, shape: str, k: str, v: dict, tagv: tuple) -> bool:
        """True when the key ``k`` of the object ``v`` (of ``types``, at ``shape``) is shown: allow-listed there, a
        field its types declare, or a known field name of a struct."""
        ek = _esc(k) if "~" in k or "/" in k else k
        # a key that reads as an array index is never a field name (the allow-list's `*` is an index)
        return not _INDEX.fullmatch(k) and not k.isdigit() and (
            self.allow.allows_shape(self.source, f"{shape}/{ek}") or self.declares(types, k, v, tagv)
            or (self.is_struct(types) and k in self.allow.known_keys))


def _ptr(parent, seg: str) -> str:
    """The pointer of a member ``seg`` of the container of frame ``parent`` (``""``: the root)."""
    return "" if parent is None else f"{parent[3]}/{seg}"


#: Distinct scalar questions remembered at most (then forgotten, and asked again).
_MEMO = 1 << 16


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
_RAW = msgspec.Raw


def _replacement(gate: Gate, v, shown: str, kind: str, what: str) -> Replacement:
    raw = (v if isinstance(v, str) else jsonstack.dumps(v)).encode("utf-8", "surrogatepass")
    return Replacement(shown, kind, len(raw), what, f"tag {gate.tag(raw)}" if gate.tagged(kind) else None)


def parse_lenient(data: bytes):
    """Parse JSON leniently for redaction, at any nesting depth (orjson; past its 1024 levels
    or its 64-bit integers, the explicit-stack reader :func:`.jsonstack.loads`).

    Raises:
        ValueError: not JSON (``not valid JSON (<reason> at character N)``).
    """
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
    return _redacted_chunks(data, source, hash_prefix, gate, _PIECE)


def _redacted_chunks(data: bytes, source: str, hash_prefix: bool, gate: Gate | None, piece: int):
    """:func:`redacted_chunks`, where a file the gate did not parse is read in pieces: containers of
    ``piece`` bytes or more are split into their members (their text kept as :class:`msgspec.Raw`, split or
    decoded when the walk reaches them), smaller values decoded whole. So the walk never holds the whole
    parsed document: only the members of the large containers on its path and one small value's tree."""
    gate = gate or Gate(tags=hash_prefix)
    parsed = _PARSED.get(gate, {})
    pieces = None
    if parsed.get(source) is data and source in gate.docs:
        value = gate.docs[source]
    else:
        body = memoryview(data)[3:] if data[:3] == b"\xef\xbb\xbf" else memoryview(data)
        pieces = _Pieces(data, piece)
        # (a root that is not allow-listed is marked whole, from its whole value)
        split = len(body) >= piece and gate.allow.allows_shape(source, "")
        value = pieces.split(body) if split else parse_lenient(data)
    reps: list[Replacement] = []
    return _Walk(value, source, gate, hash_prefix, reps, pieces).chunks(), reps


#: Containers of at least this many bytes, in a file the gate did not parse, are split into their members
#: instead of being decoded whole (:func:`_redacted_chunks`).
_PIECE = 1 << 20


class _Pieces:
    """Reads a file's values piece by piece: the same values as :func:`parse_lenient` of the whole file
    (object keys in file order, the last of a duplicated key at the place of its first, by msgspec as by
    orjson), or the same error."""

    def __init__(self, data: bytes, piece: int):
        self.data, self.piece = data, piece

    def split(self, text):
        """The value of ``text`` (a buffer holding one JSON value): a container of :attr:`piece` bytes or more
        as a ``dict``/``list`` whose large container members are :class:`msgspec.Raw`, anything else decoded
        whole."""
        first = text[0] if len(text) else 0
        if len(text) >= self.piece and first in (0x7B, 0x5B):
            try:
                members = msgspec.json.decode(text, type=dict[str, msgspec.Raw] if first == 0x7B else list[msgspec.Raw])
            except (msgspec.DecodeError, RecursionError):
                return self.whole(text)  # what msgspec refuses (NaN, a lone surrogate, depth) the lenient reader may take
            keep = self._kept
            if first == 0x7B:
                return {k: m if keep(m) else self.whole(memoryview(m)) for k, m in members.items()}
            return [m if keep(m) else self.whole(memoryview(m)) for m in members]
        return self.whole(text)

    def _kept(self, member) -> bool:
        """True for a member kept as its text until the walk reaches it: a container of :attr:`piece` bytes or
        more. Scalars are always decoded (a tag's value must be one, to name its variant)."""
        return len(member) >= self.piece and memoryview(member)[0] in (0x7B, 0x5B)

    def whole(self, text):
        """The value of ``text`` decoded whole, as :func:`parse_lenient` decodes (orjson, else the explicit-stack
        reader); a piece that neither reads makes the whole file invalid: its error is the whole file's."""
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass
        try:
            return jsonstack.loads(bytes(text).decode("utf-8"))
        except ValueError:
            pass
        parse_lenient(self.data)  # raises the whole file's own error
        raise ValueError("not valid JSON")  # (never reached: a value that does not read cannot be in a file that does)


def _esc(key: str) -> str:
    return escape_pointer_token(key)


def gate_for(payload: bytes | None, descriptor: bytes | None, *, tags: bool = False, key: bytes | None = None,
             allow: AllowList | None = None, file_digests: bool = False) -> Gate:
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
    gate = Gate(docs, tags=tags, key=key, allow=allow, file_digests=file_digests)
    _PARSED[gate] = {source: data for source, data in (("payload", payload), ("descriptor", descriptor))
                     if source in docs}
    return gate


#: The bytes each gate made by :func:`gate_for` parsed, by source: the redacted copy of those very bytes
#: walks the gate's parse instead of parsing them again.
_PARSED: "weakref.WeakKeyDictionary[Gate, dict]" = weakref.WeakKeyDictionary()
