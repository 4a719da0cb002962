"""Typed decode of payloads and descriptors exactly as serde derive + serde_json do it.

:func:`decode` drives the serde_json primitives of :mod:`.jsontext` with a type from
:mod:`.schema`, reproducing the reference's ``serde_json::from_slice::<T>``: the same accepted
inputs, the same first error with the same message and ``line``/``column`` (FORMAT.md 4,
rules P-PARSE and D-PARSE). The result is the value in its *serialized* form, i.e. what
``serde_json::to_value(&typed)`` gives back (defaults filled, ``skip_serializing`` keys gone,
aliases renamed, f32 fields widened, timestamps in chrono's form, plain-string permission rules
as objects, hash-set elements once each), so ``canonical.encode(result)`` is the reference's
canonical re-encoding used by P-CANONICAL.

Every type FORMAT.md 4-4.16 pins is typed: run events (``AgentEvent``), bindings, trace events,
verification reports, cost records, planning tasks and the ``SessionConfig`` policy objects
included (:data:`.schema.NOT_TYPE_CHECKED` lists the free-form ``Value`` parts). Structs read from
JSON objects or, as serde's ``visit_seq`` allows, from arrays (``invalid length N, expected
struct X with M elements`` at the first missing field without a default).

Internally tagged and untagged enums (``AgentEvent``, ``ContentBlock``, ``ToolErrorKind``,
``ToolResultContentField``, ``PermissionRule``) are decoded the serde way: the object is first
buffered as *content*, then matched (:mod:`.typed_content`, where variant indexes such as
``"type": 0`` are accepted as serde does); errors from that second step carry no position of
their own and take the position of the enclosing serde_json call, as in serde_json's
``fix_position``. :func:`decode_value` is ``serde_json::from_value`` for a parsed sub-tree.
The fast readers and the one door that chooses between them and this decode live in
:mod:`inspector.checkpoint.read`.
"""

from __future__ import annotations

from inspector.checkpoint.schema import model as S
from inspector.checkpoint.jsontext.reader import (
    EOF_VALUE, EXPECTED_VALUE, KEY_MUST_BE_STRING, EOF_OBJECT, Reader, SerdeError,
)
from inspector.checkpoint.schema.serde_errors import (
    CMap, _invalid_type, _number, _unknown_field, _unknown_variant, rust_debug_str, widen_f32,
)
from inspector.checkpoint.schema.typed_content import (
    _dedupe, decode_value, finish_struct, seq_expecting, timestamp, untagged, variant_struct,
)

__all__ = ["decode", "decode_value", "rust_debug_str", "widen_f32", "unreproducible_sets"]


# ---------------------------------------------------------------------------------------------
# Streaming decode (serde_json Deserializer)
# ---------------------------------------------------------------------------------------------
class _Decoder:
    def __init__(self, data: bytes, skipped: list | None = None):
        self.r = Reader(data)
        self.skipped = skipped  # value starts (byte offsets) of unknown keys skipped, when asked

    # peek_invalid_type: consume the offending value and build "invalid type" (positioned at
    # the value's end as serde does; its offset, the byte shown to users, is the value's start)
    def peek_invalid_type(self, expecting: str) -> SerdeError:
        r = self.r
        start = r.i
        b = r.peek()
        if b == 0x6E:
            r.i += 1
            r.parse_ident(b"ull")
            err = _invalid_type(None, expecting)
        elif b == 0x74:
            r.i += 1
            r.parse_ident(b"rue")
            err = _invalid_type(True, expecting)
        elif b == 0x66:
            r.i += 1
            r.parse_ident(b"alse")
            err = _invalid_type(False, expecting)
        elif b == 0x2D or (b is not None and 0x30 <= b <= 0x39):
            err = _invalid_type(r.parse_number_token(), expecting)
        elif b == 0x22:
            r.i += 1
            err = _invalid_type(r.parse_str(), expecting)
        elif b == 0x5B:
            err = _invalid_type([], expecting)
        elif b == 0x7B:
            err = _invalid_type(CMap(), expecting)
        else:
            return r.peek_error(EXPECTED_VALUE)
        err.offset = start
        return r.fix_position(err)

    def de(self, t):
        r = self.r
        if isinstance(t, S.Opt):
            if r.parse_whitespace() == 0x6E:
                r.i += 1
                r.parse_ident(b"ull")
                return None
            return self.de(t.inner)
        if isinstance(t, S.Prim):
            return self.de_prim(t)
        if isinstance(t, S.Struct):
            return self.de_struct(t)
        if isinstance(t, S.Vec):
            return self.de_seq(t)
        if isinstance(t, S.Set):
            return _dedupe(self.de_seq(t))
        if isinstance(t, S.Map):
            return self.de_map(t)
        if isinstance(t, S.Enum):
            return self.de_enum(t)
        if isinstance(t, S.Tagged):
            return self.de_tagged(t)
        if isinstance(t, S.Untagged):
            return self.de_untagged(t)
        raise TypeError(t)  # pragma: no cover

    def de_prim(self, t: S.Prim):
        r = self.r
        if t.name == "value":
            return r.parse_any()
        b = r.parse_whitespace()
        if b is None:
            raise r.peek_error(EOF_VALUE)
        start = r.i
        try:
            if t.name == "str":
                if b != 0x22:
                    raise self.peek_invalid_type(t.expecting)
                r.i += 1
                return r.parse_str()
            if t.name == "timestamp":
                if b != 0x22:
                    raise self.peek_invalid_type(t.expecting)
                r.i += 1
                return timestamp(r.parse_str())
            if t.name == "bool":
                if b == 0x74:
                    r.i += 1
                    r.parse_ident(b"rue")
                    return True
                if b == 0x66:
                    r.i += 1
                    r.parse_ident(b"alse")
                    return False
                raise self.peek_invalid_type(t.expecting)
            if b == 0x2D or 0x30 <= b <= 0x39:
                return _number(t, r.parse_number_token())
            raise self.peek_invalid_type(t.expecting)
        except SerdeError as e:
            if e.index is None and e.offset is None:  # a value error (range, timestamp): the value
                e.offset = start
            raise r.fix_position(e)

    def de_map(self, t: S.Map):
        """``HashMap<K, V>``: keys through ``MapKey::deserialize_enum``; a repeated key keeps the last."""
        r = self.r
        b = r.parse_whitespace()
        if b is None:
            raise r.peek_error(EOF_VALUE)
        if b != 0x7B:
            raise r.fix_position(self.peek_invalid_type("a map"))

        def body():
            out = {}
            first = True
            while r.has_next_key(first):
                first = False
                k = self.de(t.key)
                r.parse_object_colon()
                out[k] = self.de(t.value)
            return out

        return r.container(0x7D, body)

    def de_seq(self, t):
        r = self.r
        b = r.parse_whitespace()
        if b is None:
            raise r.peek_error(EOF_VALUE)
        if b != 0x5B:
            raise r.fix_position(self.peek_invalid_type("a sequence"))
        def body():
            out = []
            first = True
            while r.has_next_element(first):
                first = False
                out.append(self.de(t.inner))
            return out

        return r.container(0x5D, body)

    def _read_key(self) -> str:
        r = self.r
        r.i += 1
        return r.parse_str()

    def de_struct(self, t: S.Struct):
        r = self.r
        b = r.parse_whitespace()
        if b is None:
            raise r.peek_error(EOF_VALUE)
        if b not in (0x7B, 0x5B):
            raise r.fix_position(self.peek_invalid_type("struct " + t.name))
        if b == 0x7B:
            return r.container(0x7D, lambda: self._struct_map(t))
        return r.container(0x5D, lambda: self._struct_seq(t))

    def _struct_map(self, t: S.Struct):
        r = self.r
        by_key = t.by_key
        got = {}
        first = True
        while r.has_next_key(first):
            first = False
            key_start = r.i
            key = self._read_key()
            f = by_key.get(key)
            if f is None:
                if t.deny:
                    raise _at(_unknown_field(key, t.keys), key_start)
                r.parse_object_colon()
                if self.skipped is not None:
                    r.parse_whitespace()
                    self.skipped.append(r.i)
                r.ignore_value()
                continue
            if f.key in got:
                raise _at(SerdeError("duplicate field `%s`" % f.key), key_start)
            r.parse_object_colon()
            got[f.key] = self.de(f.type)
        return finish_struct(t, got)

    def _struct_seq(self, t: S.Struct):
        """serde derive's ``visit_seq``: a missing field without a default is ``invalid length
        <its index>``; defaulted ones are filled and the walk goes on (serde does not stop)."""
        r = self.r
        got = {}
        more = True
        for idx, f in enumerate(t.fields):
            if more:
                more = r.has_next_element(idx == 0)
            if more:
                got[f.key] = self.de(f.type)
            elif f.default is S.REQUIRED:
                raise SerdeError("invalid length %d, expected %s" % (idx, seq_expecting(t)))
        return finish_struct(t, got)

    def de_enum(self, t: S.Enum):
        r = self.r
        b = r.parse_whitespace()
        if b == 0x22:
            return self._variant_ident(t.name, t.variants)
        if b == 0x7B:
            r.enter()
            r.i += 1
            b = r.parse_whitespace()
            if b == 0x7D:
                raise r.peek_error(EXPECTED_VALUE)
            if b is None:
                raise r.peek_error(EOF_OBJECT)
            if b != 0x22:
                raise r.peek_error(KEY_MUST_BE_STRING)
            name = self._variant_ident(t.name, t.variants)
            r.parse_object_colon()
            b = r.parse_whitespace()
            if b == 0x6E:
                r.i += 1
                r.parse_ident(b"ull")
            elif b is None:
                raise r.peek_error(EOF_VALUE)
            else:
                raise r.fix_position(self.peek_invalid_type("unit"))
            r.leave()
            b = r.parse_whitespace()
            if b == 0x7D:
                r.i += 1
                return name
            if b is None:
                raise r.error(EOF_OBJECT)
            raise r.error(EXPECTED_VALUE)
        if b is None:
            raise r.peek_error(EOF_VALUE)
        raise r.peek_error(EXPECTED_VALUE)

    def _variant_ident(self, _name: str, variants) -> str:
        """deserialize_str with a variant-identifier visitor."""
        r = self.r
        b = r.parse_whitespace()
        if b != 0x22:
            if b is None:
                raise r.peek_error(EOF_VALUE)
            raise r.fix_position(self.peek_invalid_type("variant identifier"))
        start = r.i
        r.i += 1
        s = r.parse_str()
        if s not in variants:
            raise r.fix_position(_at(_unknown_variant(s, variants), start))
        return s

    def parse_content(self):
        """serde's ``ContentVisitor`` through ``deserialize_any``: objects keep duplicates."""
        r = self.r
        b = r.parse_whitespace()
        if b == 0x7B:
            def object_body():
                out = CMap()
                first = True
                while r.has_next_key(first):
                    first = False
                    k = self._read_key()
                    r.parse_object_colon()
                    out.append((k, self.parse_content()))
                return out

            return r.container(0x7D, object_body)
        if b == 0x5B:
            def array_body():
                out = []
                first = True
                while r.has_next_element(first):
                    first = False
                    out.append(self.parse_content())
                return out

            return r.container(0x5D, array_body)
        return r.parse_any()

    def de_tagged(self, t: S.Tagged):
        """``deserialize_any(TaggedContentVisitor)`` then the variant from content."""
        r = self.r
        b = r.parse_whitespace()
        if b is None:
            raise r.peek_error(EOF_VALUE)
        names = t.names
        start = r.i
        if b == 0x7B:
            def object_body():
                tag = None
                rest = CMap()
                first = True
                while r.has_next_key(first):
                    first = False
                    key_start = r.i
                    k = self._read_key()
                    if k == t.tag:
                        if tag is not None:
                            raise _at(SerdeError("duplicate field `%s`" % t.tag), key_start)
                        r.parse_object_colon()
                        tag = self._variant_ident(t.name, names)
                    else:
                        r.parse_object_colon()
                        rest.append((k, self.parse_content()))
                if tag is None:
                    raise SerdeError("missing field `%s`" % t.tag)
                return tag, rest

            tag, rest = r.container(0x7D, object_body)
        elif b == 0x5B:
            # TaggedContentVisitor::visit_seq: the tag is element 0, the rest is buffered.
            def array_body():
                if not r.has_next_element(True):
                    raise SerdeError("missing field `%s`" % t.tag)
                tag = self._variant_ident(t.name, names)
                rest = []
                while r.has_next_element(False):
                    rest.append(self.parse_content())
                return tag, rest

            tag, rest = r.container(0x5D, array_body)
        else:
            raise r.fix_position(self.peek_invalid_type("internally tagged enum " + t.name))
        result = {t.tag: tag}
        try:
            result.update(variant_struct(t, tag, rest))  # unpositioned errors propagate to the caller
        except SerdeError as e:
            raise _at(e, start)  # serde cannot say where inside the buffered value: its start
        return result

    def de_untagged(self, t: S.Untagged):
        self.r.parse_whitespace()
        start = self.r.i
        try:
            return untagged(t, self.parse_content())
        except SerdeError as e:
            raise _at(e, start)


def _at(err: SerdeError, offset: int | None) -> SerdeError:
    """Give a data error (not yet positioned by serde) the offset of the byte shown to users:
    the key, variant name or value at fault. serde's own position (``index``) is untouched."""
    if err.index is None and err.offset is None:
        err.offset = offset
    return err


def decode(data: bytes, t=S.PAYLOAD, skipped: list | None = None) -> dict:
    """``serde_json::from_slice::<T>(data)`` for a schema type ``t``; serialized form out.

    Args:
        data: the file bytes.
        t: a :mod:`.schema` type, :data:`~.schema.PAYLOAD` or :data:`~.schema.DESCRIPTOR`.
        skipped: when a list, receives the byte offset where each value of an unknown key
            skipped unvalidated (serde's ``IgnoredAny``) starts, in file order.

    Returns:
        the value as ``serde_json::to_value`` of the typed value would give it (a ``dict``).

    Raises:
        SerdeError: the reference's parse error, positioned (``line``/``column``/``index``).
    """
    d = _Decoder(data, skipped)
    try:
        value = d.de(t)
        d.r.end()
    except SerdeError as e:
        if e.index is None:
            e.index = d.r.i
        raise e.locate(data) from None
    return value


def unreproducible_sets(typed: dict) -> list[tuple[str, int]]:
    """``(pointer, element count)`` of each hash set in a decoded payload whose written order the
    reference cannot reproduce: two or more elements (FORMAT.md 3.1 "Order not reproducible").

    The decode keeps such a set in the file's order, so the canonical check never reports drift
    for the order alone; callers report "order not reproducible" instead.
    """
    out = []
    for pointer in S.UNORDERED_SETS:
        node = typed
        for part in pointer.strip("/").split("/"):
            node = node.get(part) if isinstance(node, dict) else None
        if isinstance(node, list) and len(node) >= 2:
            out.append((pointer, len(node)))
    return out
