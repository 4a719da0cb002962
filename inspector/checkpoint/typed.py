"""Typed decode of payloads and descriptors exactly as serde derive + serde_json do it.

:func:`decode` drives the serde_json primitives of :mod:`.jsontext` with a type from
:mod:`.schema`, reproducing the reference's ``serde_json::from_slice::<T>``: the same accepted
inputs, the same first error with the same message and ``line``/``column`` (FORMAT.md 4,
rules P-PARSE and D-PARSE). The result is the value in its *serialized* form, i.e. what
``serde_json::to_value(&typed)`` gives back (defaults filled, ``skip_serializing`` keys gone,
aliases renamed, f32 fields widened), so ``canonical.encode(result)`` is the reference's
canonical re-encoding used by P-CANONICAL.

Internally tagged and untagged enums (``ContentBlock``, ``ToolResultContentField``) are
decoded the serde way: the object is first buffered as *content*, then matched; errors from
that second step carry no position of their own and take the position of the enclosing
serde_json call, as in serde_json's ``fix_position``.
"""

from __future__ import annotations

import bisect
import math
import struct

from . import schema as S
from .canonical import format_f64
from .rust_debug import ESCAPED_RANGES
from .jsontext import EOF_VALUE, EXPECTED_VALUE, KEY_MUST_BE_STRING, EOF_OBJECT, Reader, SerdeError

__all__ = ["decode", "decode_fast", "NotFast", "rust_debug_str", "widen_f32"]

U32_MAX = (1 << 32) - 1
U64_MAX = (1 << 64) - 1
I64_MAX = (1 << 63) - 1
I64_MIN = -(1 << 63)


def widen_f32(x: float) -> float | None:
    """``x as f32`` widened back to f64 (what an f32 field re-encodes as); None if not finite."""
    try:
        y = struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return None
    return y if math.isfinite(y) else None


def rust_debug_str(s: str) -> str:
    """Rust ``{:?}`` of a string: double-quoted with Rust's ``escape_debug`` rules.

    ``\\t \\r \\n \\\\ \\" \\0`` get their short escapes; every other character that
    Rust does not print raw (non-printable, Grapheme_Extend) becomes ``\\u{hex}``. Which ones
    is decided by Rust's own tables (:mod:`.rust_debug`, generated from the reference's
    toolchain), so messages such as ``run "cafe\\u{301}"`` match the reference verbatim.
    """
    out = ['"']
    for ch in s:
        short = _SHORT_ESCAPES.get(ch)
        if short is not None:
            out.append(short)
            continue
        o = ord(ch)
        i = bisect.bisect_right(_ESC_STARTS, o) - 1
        if i >= 0 and o <= ESCAPED_RANGES[i][1]:
            out.append("\\u{%x}" % o)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


_SHORT_ESCAPES = {"\t": "\\t", "\r": "\\r", "\n": "\\n", "\\": "\\\\", '"': '\\"', "\0": "\\0"}
_ESC_STARTS = [a for a, _b in ESCAPED_RANGES]


def _one_of(names) -> str:
    names = list(names)
    if len(names) == 1:
        return "`%s`" % names[0]
    if len(names) == 2:
        return "`%s` or `%s`" % tuple(names)
    return "one of " + ", ".join("`%s`" % n for n in names)


def _unknown_field(key: str, names) -> SerdeError:
    if not names:
        return SerdeError("unknown field `%s`, there are no fields" % key)
    return SerdeError("unknown field `%s`, expected %s" % (key, _one_of(names)))


def _unknown_variant(v: str, names) -> SerdeError:
    if not names:
        return SerdeError("unknown variant `%s`, there are no variants" % v)
    return SerdeError("unknown variant `%s`, expected %s" % (v, _one_of(names)))


class CMap(list):
    """serde ``Content::Map``: a list of ``(key, value)`` pairs (duplicates kept)."""


def _unexpected(v) -> str:
    """serde_json's ``JsonUnexpected`` display of a value."""
    if v is None:
        return "null"
    if v is True or v is False:
        return "boolean `%s`" % ("true" if v else "false")
    if isinstance(v, int):
        return "integer `%d`" % v
    if isinstance(v, float):
        return "floating point `%s`" % format_f64(v)
    if isinstance(v, str):
        return "string " + rust_debug_str(v)
    if isinstance(v, list) and not isinstance(v, CMap):
        return "sequence"
    return "map"


def _invalid_type(v, expecting: str) -> SerdeError:
    return SerdeError("invalid type: %s, expected %s" % (_unexpected(v), expecting))


def _invalid_value(v, expecting: str) -> SerdeError:
    return SerdeError("invalid value: %s, expected %s" % (_unexpected(v), expecting))


def _number(t: S.Prim, v):
    """A primitive number visitor (serde's impls) applied to a parsed number ``v``."""
    name = t.name
    if name == "f64":
        return float(v)
    if name == "f32":
        return widen_f32(float(v))
    if isinstance(v, float):
        raise _invalid_type(v, t.expecting)
    if name == "i64":
        if v > I64_MAX:
            raise _invalid_value(v, t.expecting)
        return v
    hi = U32_MAX if name == "u32" else U64_MAX
    if v < 0 or v > hi:
        raise _invalid_value(v, t.expecting)
    return v


# ---------------------------------------------------------------------------------------------
# Streaming decode (serde_json Deserializer)
# ---------------------------------------------------------------------------------------------
class _Decoder:
    def __init__(self, data: bytes):
        self.r = Reader(data)

    # peek_invalid_type: consume the offending value and build "invalid type" (positioned)
    def peek_invalid_type(self, expecting: str) -> SerdeError:
        r = self.r
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
        try:
            if t.name == "str":
                if b != 0x22:
                    raise self.peek_invalid_type(t.expecting)
                r.i += 1
                return r.parse_str()
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
            raise r.fix_position(e)

    def de_seq(self, t: S.Vec):
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
        by_key = {}
        for f in t.fields:
            by_key[f.key] = f
            for a in f.aliases:
                by_key[a] = f
        got = {}
        first = True
        while r.has_next_key(first):
            first = False
            key = self._read_key()
            f = by_key.get(key)
            if f is None:
                if t.deny:
                    raise _unknown_field(key, t.keys)
                r.parse_object_colon()
                r.ignore_value()
                continue
            if f.key in got:
                raise SerdeError("duplicate field `%s`" % f.key)
            r.parse_object_colon()
            got[f.key] = self.de(f.type)
        return _finish_struct(t, got)

    def _struct_seq(self, t: S.Struct):
        r = self.r
        got = {}
        first = True
        for idx, f in enumerate(t.fields):
            if not r.has_next_element(first):
                if f.default is S.REQUIRED:
                    raise SerdeError("invalid length %d, expected %s" % (idx, _seq_expecting(t)))
                break
            first = False
            got[f.key] = self.de(f.type)
        return _finish_struct(t, got)

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
        r.i += 1
        s = r.parse_str()
        if s not in variants:
            raise r.fix_position(_unknown_variant(s, variants))
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
        names = tuple(n for n, _ in t.variants)
        if b == 0x7B:
            def object_body():
                tag = None
                rest = CMap()
                first = True
                while r.has_next_key(first):
                    first = False
                    k = self._read_key()
                    if k == t.tag:
                        if tag is not None:
                            raise SerdeError("duplicate field `%s`" % t.tag)
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
        variant = dict(t.variants)[tag]
        out = _content_struct(variant, rest)  # unpositioned errors propagate to the caller
        result = {t.tag: tag}
        result.update(out)
        return result

    def de_untagged(self, t: S.Untagged):
        content = self.parse_content()
        return _content_untagged(t, content)


def _seq_expecting(t: S.Struct) -> str:
    """serde derive's ``visit_seq`` expectation: ``struct X with N elements`` (1: ``element``)."""
    kind = "struct variant " if "::" in t.name else "struct "
    n = len(t.fields)
    return f"{kind}{t.name} with {n} element" + ("" if n == 1 else "s")


def _finish_struct(t: S.Struct, got: dict) -> dict:
    """Fill defaults / report the first missing field, then build the serialized form."""
    out = {}
    for f in t.fields:
        if f.key in got:
            v = got[f.key]
        elif f.default is not S.REQUIRED:
            v = _copy(f.default)
        elif isinstance(f.type, S.Opt):
            v = None
        else:
            raise SerdeError("missing field `%s`" % f.key)
        if f.never_written or (f.skip_if and f.omitted_when(v)):
            continue
        out[f.key] = v
    return out


def _copy(v):
    if isinstance(v, dict):
        return {k: _copy(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_copy(x) for x in v]
    return v


# ---------------------------------------------------------------------------------------------
# Decode from buffered content (serde ContentDeserializer / ContentRefDeserializer)
# ---------------------------------------------------------------------------------------------
def _content_value(v):
    if isinstance(v, CMap):
        d = {}
        for k, x in v:
            d[k] = _content_value(x)
        return d
    if isinstance(v, list):
        return [_content_value(x) for x in v]
    return v


def _content(t, v):
    if isinstance(t, S.Opt):
        return None if v is None else _content(t.inner, v)
    if isinstance(t, S.Prim):
        if t.name == "value":
            return _content_value(v)
        if t.name == "str":
            if isinstance(v, str):
                return v
            raise _invalid_type(v, t.expecting)
        if t.name == "bool":
            if v is True or v is False:
                return v
            raise _invalid_type(v, t.expecting)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return _number(t, v)
        raise _invalid_type(v, t.expecting)
    if isinstance(t, S.Vec):
        if isinstance(v, list) and not isinstance(v, CMap):
            return [_content(t.inner, x) for x in v]
        raise _invalid_type(v, "a sequence")
    if isinstance(t, S.Struct):
        if isinstance(v, CMap):
            return _content_struct(t, v)
        if isinstance(v, list):
            got = {}
            used = 0
            for idx, f in enumerate(t.fields):
                if idx >= len(v):
                    if f.default is S.REQUIRED:
                        raise SerdeError("invalid length %d, expected %s" % (idx, _seq_expecting(t)))
                    break
                got[f.key] = _content(f.type, v[idx])
                used += 1
            if len(v) > used:  # SeqDeserializer::end
                raise SerdeError("invalid length %d, expected %d element%s in sequence" % (len(v), used, "" if used == 1 else "s"))
            return _finish_struct(t, got)
        raise _invalid_type(v, "struct " + t.name)
    if isinstance(t, S.Enum):
        if isinstance(v, str):
            if v not in t.variants:
                raise _unknown_variant(v, t.variants)
            return v
        if isinstance(v, CMap):  # ContentDeserializer::deserialize_enum
            if len(v) != 1:
                raise _invalid_value(CMap(), "map with a single key")
            name, inner = v[0]
            if name not in t.variants:
                raise _unknown_variant(name, t.variants)
            if inner is not None and not (isinstance(inner, CMap) and len(inner) == 0):
                raise _invalid_type(inner, "unit")  # an empty map is a unit here
            return name
        raise _invalid_type(v, "string or map")
    if isinstance(t, S.Tagged):
        names = tuple(n for n, _ in t.variants)
        if isinstance(v, CMap):
            tag = None
            rest = CMap()
            for k, x in v:
                if k == t.tag:
                    if tag is not None:
                        raise SerdeError("duplicate field `%s`" % t.tag)
                    if not isinstance(x, str):
                        raise _invalid_type(x, "variant identifier")
                    if x not in names:
                        raise _unknown_variant(x, names)
                    tag = x
                else:
                    rest.append((k, x))
            if tag is None:
                raise SerdeError("missing field `%s`" % t.tag)
        elif isinstance(v, list):
            if not v:
                raise SerdeError("missing field `%s`" % t.tag)
            if not isinstance(v[0], str):
                raise _invalid_type(v[0], "variant identifier")
            if v[0] not in names:
                raise _unknown_variant(v[0], names)
            tag, rest = v[0], v[1:]
        else:
            raise _invalid_type(v, "internally tagged enum " + t.name)
        result = {t.tag: tag}
        result.update(_content_struct(dict(t.variants)[tag], rest))
        return result
    if isinstance(t, S.Untagged):
        return _content_untagged(t, v)
    raise TypeError(t)  # pragma: no cover


def _content_struct(t: S.Struct, v) -> dict:
    if isinstance(v, list) and not isinstance(v, CMap):
        return _content(t, v)
    by_key = {}
    for f in t.fields:
        by_key[f.key] = f
        for a in f.aliases:
            by_key[a] = f
    got = {}
    for k, x in v:
        f = by_key.get(k)
        if f is None:
            if t.deny:
                raise _unknown_field(k, t.keys)
            continue
        if f.key in got:
            raise SerdeError("duplicate field `%s`" % f.key)
        got[f.key] = _content(f.type, x)
    return _finish_struct(t, got)


def _content_untagged(t: S.Untagged, v):
    for alt in t.alternatives:
        try:
            return _content(alt, v)
        except SerdeError:
            continue
    raise SerdeError("data did not match any variant of untagged enum %s" % t.name)


def decode(data: bytes, t=S.PAYLOAD) -> dict:
    """``serde_json::from_slice::<T>(data)`` for a schema type ``t``; serialized form out.

    Args:
        data: the file bytes.
        t: a :mod:`.schema` type, :data:`~.schema.PAYLOAD` or :data:`~.schema.DESCRIPTOR`.

    Returns:
        the value as ``serde_json::to_value`` of the typed value would give it (a ``dict``).

    Raises:
        SerdeError: the reference's parse error, positioned (``line``/``column``/``index``).
    """
    d = _Decoder(data)
    try:
        value = d.de(t)
        d.r.end()
    except SerdeError as e:
        if e.index is None:
            e.index = d.r.i
        raise e.locate(data) from None
    return value


# ---------------------------------------------------------------------------------------------
# Fast path: an orjson-parsed value that is provably what serde_json would have read
# ---------------------------------------------------------------------------------------------
class NotFast(Exception):
    """The fast path cannot prove equivalence with serde; use :func:`decode`."""


def _compile(t):
    """Build a validator ``check(v, depth, floats)`` for schema type ``t``.

    It raises :class:`NotFast` unless the typed decode of ``v`` would serialize back to
    exactly ``v`` (same keys, same types, no defaults to add, nothing to drop). Compiled
    once per type, so the walk does no schema dispatch.
    """
    if isinstance(t, S.Opt):
        inner = _compile(t.inner)

        def check_opt(v, d, fl):
            if v is not None:
                inner(v, d, fl)
        return check_opt
    if isinstance(t, S.Prim):
        name = t.name
        if name == "value":
            return _free
        if name == "str":
            def check_str(v, d, fl):
                if type(v) is not str:
                    raise NotFast
            return check_str
        if name == "bool":
            def check_bool(v, d, fl):
                if type(v) is not bool:
                    raise NotFast
            return check_bool
        if name in ("f32", "f64"):
            f32 = name == "f32"

            def check_float(v, d, fl):
                if type(v) is not float or (f32 and widen_f32(v) != v):
                    raise NotFast
                fl.append(v)
            return check_float
        hi = U32_MAX if name == "u32" else (I64_MAX if name == "i64" else U64_MAX)
        lo = I64_MIN if name == "i64" else 0

        def check_int(v, d, fl):
            if type(v) is not int or not lo <= v <= hi:
                raise NotFast
        return check_int
    if isinstance(t, S.Vec):
        inner = _compile(t.inner)

        def check_vec(v, d, fl):
            if type(v) is not list or d >= 127:
                raise NotFast
            d += 1
            for x in v:
                inner(x, d, fl)
        return check_vec
    if isinstance(t, S.Struct):
        return _compile_struct(t, ())
    if isinstance(t, S.Enum):
        variants = frozenset(t.variants)

        def check_enum(v, d, fl):
            if type(v) is not str or v not in variants:
                raise NotFast
        return check_enum
    if isinstance(t, S.Tagged):
        tag_key = t.tag
        variants = {name: _compile_struct(st, (tag_key,)) for name, st in t.variants}

        def check_tagged(v, d, fl):
            if type(v) is not dict:
                raise NotFast
            tag = v.get(tag_key)
            check = variants.get(tag) if type(tag) is str else None
            if check is None:
                raise NotFast
            check(v, d, fl)
        return check_tagged
    if isinstance(t, S.Untagged):
        alts = [_compile(a) for a in t.alternatives]

        def check_untagged(v, d, fl):
            for alt in alts:
                try:
                    alt(v, d, fl)
                    return
                except NotFast:
                    continue
            raise NotFast
        return check_untagged
    raise TypeError(t)  # pragma: no cover


def _compile_struct(t: S.Struct, extra_keys: tuple):
    present_rules = {}
    required_absent_ok = []
    for f in t.fields:
        if f.never_written:
            present_rules[f.key] = None  # present in a file: never written back
            continue
        default = f.default if f.default is not S.REQUIRED else (None if isinstance(f.type, S.Opt) else S.REQUIRED)
        # absent is fine only when the reference would omit the defaulted value too
        absent_ok = default is not S.REQUIRED and bool(f.skip_if) and f.omitted_when(default)
        skip = f.skip_if
        present_rules[f.key] = (_compile(f.type), skip, f)
        if not absent_ok:
            required_absent_ok.append(f.key)
    required = tuple(required_absent_ok)
    items = [(k, r) for k, r in present_rules.items()]

    def check_struct(v, d, fl):
        if type(v) is not dict or d >= 127:
            raise NotFast
        d += 1
        for k in required:
            if k not in v:
                raise NotFast
        n = len(extra_keys)
        for k, rule in items:
            if k in v:
                if rule is None:
                    raise NotFast
                check, skip, f = rule
                x = v[k]
                if skip and f.omitted_when(x):
                    raise NotFast  # written out in the file but omitted by the reference
                check(x, d, fl)
                n += 1
        if n != len(v):
            raise NotFast  # unknown or aliased keys
    return check_struct


def _free(v, depth: int, floats: list) -> None:
    """Walk a free-form value: containers within serde's depth limit, floats collected."""
    tv = type(v)
    if tv is float:
        floats.append(v)
        return
    if tv is not dict and tv is not list:
        return
    stack = [(v, depth)]
    pop, push = stack.pop, stack.append
    while stack:
        x, d = pop()
        if d >= 127:
            raise NotFast
        for y in (x.values() if type(x) is dict else x):
            ty = type(y)
            if ty is dict or ty is list:
                push((y, d + 1))
            elif ty is float:
                floats.append(y)


_COMPILED: dict = {}


def _encoded_end(v, data: bytes, pos: int, depth: int) -> int:
    """Compare ``encode(v)`` with ``data`` at ``pos`` piece by piece; return the end offset.

    Large containers near the top are walked so no full second copy of a big payload is
    ever built; pieces are compared with ``bytes.startswith`` (no slice copies).
    """
    import orjson

    from .canonical import encode

    tv = type(v)
    if (tv is dict or tv is list) and (depth < 3 or len(v) > 16):
        n = len(data)
        if tv is dict:
            if pos >= n or data[pos] != 0x7B:
                raise NotFast
            pos += 1
            first = True
            for k in sorted(v):
                if not first:
                    if pos >= n or data[pos] != 0x2C:
                        raise NotFast
                    pos += 1
                first = False
                kb = orjson.dumps(k) + b":"
                if not data.startswith(kb, pos):
                    raise NotFast
                pos = _encoded_end(v[k], data, pos + len(kb), depth + 1)
            if pos >= n or data[pos] != 0x7D:
                raise NotFast
            return pos + 1
        if pos >= n or data[pos] != 0x5B:
            raise NotFast
        pos += 1
        for i, x in enumerate(v):
            if i:
                if pos >= n or data[pos] != 0x2C:
                    raise NotFast
                pos += 1
            pos = _encoded_end(x, data, pos, depth + 1)
        if pos >= n or data[pos] != 0x5D:
            raise NotFast
        return pos + 1
    b = encode(v)
    if not data.startswith(b, pos):
        raise NotFast
    return pos + len(b)


def decode_fast(data: bytes, t=S.PAYLOAD) -> dict:
    """Decode a file that is already exactly canonical, at C speed, or raise :class:`NotFast`.

    The result is returned only when it is provably identical to :func:`decode`'s: orjson
    parsed the bytes, the schema walk found every field with its exact type and range and no
    unknown, aliased or skipped key, nesting stays within serde_json's 127 levels, the
    re-encoding equals ``data`` byte for byte (so there were no duplicate keys, whitespace or
    other spellings), and every float's text reads back under serde_json's own (not
    correctly rounded) parser to the same double. Anything else raises :class:`NotFast`.
    """
    import orjson

    from .jsontext import serde_f64_from_text

    try:
        value = orjson.loads(data)
    except (orjson.JSONDecodeError, RecursionError):
        raise NotFast from None
    check = _COMPILED.get(id(t))
    if check is None:
        check = _COMPILED[id(t)] = _compile(t)
    floats: list = []
    check(value, 0, floats)
    if _encoded_end(value, data, 0, 0) != len(data):
        raise NotFast
    typed = value
    for x in set(floats):
        text = format_f64(x)
        if serde_f64_from_text(text) != x:
            raise NotFast
    return typed
