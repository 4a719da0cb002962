"""The typed fast path: a payload decoded by msgspec straight into typed structs, the large text fields kept
as raw JSON (``verify`` CPU and peak memory).

:func:`decode_typed` proves what :func:`.fastpath.decode_fast` proves (the value is exactly what
:func:`.typed.decode` would return, and the file is canonical, or one of the printings
:class:`.fastpath.NotCanonical` accepts), by other means:

- msgspec decodes the bytes into ``Struct`` classes made from :mod:`.schema` by :mod:`.fastcheck`'s builder
  (strict types, no unknown field, integer ranges, enums, tagged unions); what msgspec cannot judge runs the
  Python walk's own validator in a hook, as in :mod:`.fastcheck`;
- three text fields, which hold most of a large payload's bytes (a text block's ``text``, a tool result's
  ``content``, an artifact's ``content``), are not made into Python strings: msgspec keeps them as
  :class:`msgspec.Raw` slices of the file. Each slice is proven to be a string token spelled exactly as the
  canonical encoding spells it, in valid UTF-8 (or, for a tool result's array form, decoded and proven in turn);
- the structs become the dicts the rules read (``msgspec.to_builtins``; a raw slice becomes a
  :class:`memoryview` of the file), and their canonical printing (:func:`.canonical.encode`, which prints such a
  slice verbatim and refuses integers over 64 bits) is compared with the file, member by member in the top
  three levels (their spans are recorded for locations, as the dict fast path records its own). Equal
  bytes mean every number, key and string is spelled as the canonical encoding spells it, with no duplicate
  key, so serde reads the same value. A file that does not start as the canonical printing does (pretty-
  printed, CRLF, any whitespace between tokens) is first stripped of that whitespace
  (``msgspec.json.format(indent=-1)``, tokens copied as they are, :func:`_minified`), and the stripped
  bytes must be canonical;
- an escape only the canonical encoding's own ``\\u`` escapes and ``\\/`` can spell differently is searched
  for in the whole file first (:func:`_canonical_escapes`); the floats are checked as the dict fast path does.

The value returned is the payload in serialized form (dicts, lists, scalars, as :func:`.typed.decode` returns
it), except that the three text fields are :class:`memoryview` slices of the file holding the field's canonical
JSON token (quotes and escapes included): :func:`text_of` reads one, and :func:`.canonical.encode` prints it
verbatim. Anything not proven raises :class:`.fastpath.NotFast`, and the caller takes the dict fast path or the
exact path.
"""

from __future__ import annotations

import re
from array import array
from typing import Annotated, Literal

import orjson

from inspector.checkpoint.schema import model as S
from inspector.checkpoint.jsontext.canonical import encode, format_f64
from inspector.checkpoint.read.fastcheck import _Builder, _Hooked, _max_depth
from inspector.checkpoint.read.fastpath import NotCanonical, NotFast, _compile, _encoded_end
from inspector.checkpoint.read.relaid import _same_layout
from inspector.checkpoint.schema.serde_errors import INT_RANGES

__all__ = ["decode_typed", "text_of"]

_INT64_MAX = (1 << 63) - 1


class _Wrapped(_Hooked):
    """A value a hook proved (``v``: the builtin value msgspec read)."""

    __slots__ = ("v",)


class _TypedBuilder(_Builder):
    """:mod:`.fastcheck`'s builder for decoding: hooked values are kept (:class:`_Wrapped`), the text fields
    are :class:`msgspec.Raw`, ``u64``/``usize`` have no upper bound here (msgspec's bounds stop at 2**63 - 1;
    the canonical encoder refuses a value over 2**64 - 1 later), and structs omit their defaults when
    converted (the absent-allowed fields, absent from the file, stay absent from the dicts)."""

    hooked_base = _Wrapped
    struct_options = {"omit_defaults": True}

    def field_type(self, t, f):
        if (t is S.TEXT_VARIANT and f.key == "text") or (t is S.TOOL_ARTIFACT and f.key == "content") \
                or f.type is S.TOOL_RESULT_FIELD:
            return self.msgspec.Raw
        if not f.skip_if or f.skip_if == S.NONE or f.default is S.REQUIRED or not f.omitted_when(f.default):
            return None
        # written only when not the default, and absent when it is: what the reference omits, said in
        # msgspec's terms instead of a hook (the field's default is then None: absent stays absent)
        ft = f.type
        if isinstance(ft, S.Vec) and len(f.skip_if) == 1 and f.skip_if[0] == [] and type(f.skip_if[0]) is list:
            return Annotated[list[self.type_of(ft.inner)], self.msgspec.Meta(min_length=1)]
        if isinstance(ft, S.Enum) and all(type(x) is str for x in f.skip_if):
            written = tuple(x for x in ft.variants if x not in f.skip_if)
            if written:
                return Literal[written]
        return None

    def namespace(self, t):
        """A text block's ``text`` and an artifact's ``content`` are strings: their raw slice must be a string
        token (only a tool result's ``content`` may also be the array form, which :func:`decode_typed` reads as
        tool-result blocks); anything else is refused while decoding (serde: "invalid type")."""
        if t is S.TEXT_VARIANT or t is S.TOOL_ARTIFACT:
            return {"__post_init__": _string_token_check(f"f{[f.key for f in t.fields].index(_RAW_KEY[t.name])}")}
        return None

    def _make(self, t):
        if isinstance(t, S.Prim) and t.name in INT_RANGES and INT_RANGES[t.name][1] > _INT64_MAX:
            return Annotated[int, self.msgspec.Meta(ge=INT_RANGES[t.name][0])]
        return super()._make(t)


#: The raw text field of each struct holding one that must be a string.
_RAW_KEY = {S.TEXT_VARIANT.name: "text", S.TOOL_ARTIFACT.name: "content"}


def _string_token_check(attr: str):
    """A ``__post_init__`` refusing a struct whose raw field ``attr`` is not a JSON string token."""
    from operator import attrgetter

    get = attrgetter(attr)

    def __post_init__(self):
        if memoryview(get(self))[:1] != b'"':
            raise ValueError("a string is expected")  # msgspec's ValidationError: NotFast
    return __post_init__


_TYPES: dict = {}


def _types(t):
    """``(msgspec type, tool-result array type)`` for schema type ``t``, built once."""
    got = _TYPES.get(id(t))
    if got is None:
        import msgspec

        bound = _max_depth(t)
        builder = _TypedBuilder(msgspec, _compile, bound)
        target = builder.type_of(t)
        items = builder.type_of(S.Vec(S.TOOL_RESULT_CONTENT))
        got = _TYPES[id(t)] = (t, target, items)
    return got[1], got[2]


def text_of(v: "str | memoryview") -> str:
    """The ``str`` of a text field: ``v`` itself, or the string a :func:`decode_typed` raw slice spells (a
    string token proven valid, so this never raises for one)."""
    if type(v) is memoryview:
        return orjson.loads(v)
    return v


def decode_typed(data: bytes, t=S.PAYLOAD, *, spans: dict | None = None, big: int | None = None) -> dict:
    """Decode ``data`` as schema type ``t`` when it is exactly canonical (see the module docstring).

    ``spans``: a dict to fill, when ``data`` is canonical, with the member spans of the objects at the top
    three levels and the element spans of the arrays of more than :data:`_BATCH` elements there, in the
    form :func:`.fastpath.decode_fast` gives (``{start: ("object", end, starts, ends, key_starts, keys)}``,
    ``("array", end, starts, ends, None, None)``); left empty otherwise. With ``big`` (bytes), the index a
    front-end's trees need instead: the children of every container of at least ``big`` bytes, objects and arrays, recorded by the
    dict fast path's own walks (:func:`.fastpath._encoded_end`, and :func:`.relaid._same_layout` for the
    printings it accepts, pretty-printed or in the file's own key order, with the offsets of that file).

    Returns:
        the value in serialized form, text fields as :class:`memoryview` slices of ``data``.

    Implements, for the payloads it can prove, what the exact path decides for P-PARSE and P-SCHEMA (FORMAT.md
    3.1, 4: the value serde_json and the typed layout read) and P-CANONICAL (FORMAT.md 3.1, 6.2: whether the
    file is its own canonical encoding); it never decides a failure of P-PARSE or P-SCHEMA itself.

    Raises:
        NotCanonical: ``data`` is read exactly as serde reads it, but it is the canonical printing with
            whitespace between its tokens (JSON's space, tab, line feed, carriage return), not the canonical
            printing itself (P-CANONICAL fails); carries the value (:class:`.fastpath.NotCanonical`) and, as
            ``canonical``, its canonical printing (``bytes``: the file without that whitespace).
        NotFast: not proven; use :func:`.fastpath.decode_fast` or :func:`.typed.decode`.
    """
    from codecs import utf_8_decode

    import msgspec

    from inspector.checkpoint.jsontext.reader import serde_f64_from_text

    if big is None and data[:2] not in (b'{"', b"{}"):
        return _minified(data, t)
    target, items = _types(t)
    ascii_file = data.isascii()  # then every raw slice is valid UTF-8 (stops at the first other byte)
    if not _canonical_escapes(data):
        raise NotFast
    floats: list = []

    def hook(tp, obj):
        tp.check(obj, tp.depth, floats)
        w = tp.__new__(tp)
        w.v = obj
        return w

    try:
        value = msgspec.json.Decoder(target, dec_hook=hook).decode(data)
    except Exception:  # ValidationError/DecodeError, or the walk's NotFast from a hook
        raise NotFast from None
    for x in set(floats):
        if serde_f64_from_text(format_f64(x)) != x:
            raise NotFast

    item_decoder = None

    def raw_value(raw):
        """The builtin form of a raw text field (``memoryview`` of a string token, or a tool result's array)."""
        nonlocal item_decoder
        mv = memoryview(raw)
        if mv[:1] == b'"':
            if not ascii_file:
                try:
                    utf_8_decode(mv, "strict", True)  # msgspec skipped it unchecked; the escapes are checked
                except UnicodeDecodeError:
                    raise NotFast from None
            return mv
        if mv[:1] != b"[":
            raise NotFast  # not a string nor an array: serde's untagged enum refuses it (exact path)
        if item_decoder is None:
            item_decoder = msgspec.json.Decoder(items, dec_hook=hook)
        try:
            blocks = item_decoder.decode(mv)
        except Exception:
            raise NotFast from None
        return to_builtins(blocks)  # printed again with the rest: compared with the file there

    def to_builtins_hook(o):
        if type(o) is msgspec.Raw:
            return raw_value(o)
        return o.v

    def to_builtins(v):
        return msgspec.to_builtins(v, enc_hook=to_builtins_hook, builtin_types=(memoryview,))

    value = to_builtins(value)  # the structs are freed here: the dicts are what the rules read
    if big is not None and spans is not None:
        return _indexed(value, data, spans, big)
    record = {} if spans is None else spans
    try:
        end = _printed_end(value, data, 0, 0, record)
    except TypeError:  # an integer over 64 bits: orjson cannot print it, serde reads it otherwise
        end = None
    except NotFast:
        end = None
    if end == len(data):
        return value
    record.clear()
    raise NotFast  # not canonical: the dict fast path or the exact path


def _minified(data: bytes, t):
    """:func:`decode_typed` of a file that does not start as a canonical printing does (``{"`` or ``{}``):
    the file without the whitespace between its tokens (``msgspec.json.format(indent=-1)``, which refuses
    what is not JSON and copies every string and number token as it is) must be canonical; then the file
    reads as that does (JSON's whitespace, space, tab, line feed and carriage return, never changes a value),
    and :class:`NotCanonical` carries the value and, as ``canonical``, those bytes. Anything else is
    :class:`NotFast`."""
    import msgspec

    try:
        minified = msgspec.json.format(data, indent=-1)
    except Exception:  # DecodeError, RecursionError: not JSON as msgspec reads it; the other paths judge it
        raise NotFast from None
    if minified[:2] not in (b'{"', b"{}"):
        raise NotFast
    e = NotCanonical(decode_typed(minified, t))
    e.canonical = minified
    raise e


def _indexed(value, data: bytes, spans: dict, big: int):
    """:func:`decode_typed`'s end with ``big``: the comparison with the file recording the index of every
    container of at least ``big`` bytes (:func:`_printed_end` for the canonical file, the dict fast path's
    :func:`.relaid._same_layout` for the printings it accepts)."""
    try:
        if data[:2] in (b'{"', b"{}"):
            if _printed_end(value, data, 0, 0, spans, big) == len(data):
                return value
        elif _same_layout(value, data, spans, big) is not None:
            raise NotCanonical(value)
    except (NotFast, TypeError) as e:  # TypeError: orjson cannot print an integer over 64 bits
        if isinstance(e, NotCanonical):
            raise
    spans.clear()
    raise NotFast


def _printed_end(v, data: bytes, pos: int, depth: int, spans: dict, big: int | None = None) -> int:
    """Compare the canonical printing of ``v`` with ``data`` at ``pos`` and return its end offset
    (:class:`NotFast` when they differ; ``TypeError`` when orjson cannot print ``v``).

    Objects in the top four levels are compared member by member, those of the top three with their
    members' spans recorded in ``spans``; arrays in the top three levels element by element, those of more
    than :data:`_BATCH` elements with their elements' spans recorded too (the run records: lint's locations
    then need no second pass over them, 0.07 s on the bench payload); a long array in the fourth or fifth
    level a batch of elements at a time (element by element with ``big``, its elements' spans recorded). No buffer as large as the payload is made, nor one as large as a
    run record holding a million events (``snapshot.run_records[i].events``, level 4). Recursion is bounded
    by those levels.
    ``big``: also record the children of every container of at least ``big`` bytes, as
    :func:`.fastpath._encoded_end` does (long arrays then element by element; a deeper large container by
    that walk, which records its own)."""
    if type(v) is dict and v and depth < 4:
        start = pos
        pos = _expect(data, b"{", pos)
        starts, ends, key_starts, keys = array("q"), array("q"), array("q"), []
        for i, k in enumerate(sorted(v)):
            if i:
                pos = _expect(data, b",", pos)
            kb = orjson.dumps(k)
            key_starts.append(pos)
            keys.append(k)
            pos = _expect(data, kb + b":", pos)
            starts.append(pos)
            pos = _printed_end(v[k], data, pos, depth + 1, spans, big)
            ends.append(pos)
        pos = _expect(data, b"}", pos)
        if depth < 3 or (big is not None and pos - start >= big):
            spans[start] = ("object", pos, starts, ends, key_starts, keys)
        return pos
    if type(v) is list and v and (depth < 3 or len(v) > _BATCH and big is not None and depth < 5):
        start = pos
        pos = _expect(data, b"[", pos)
        starts, ends = array("q"), array("q")
        for i, x in enumerate(v):
            if i:
                pos = _expect(data, b",", pos)
            starts.append(pos)
            pos = _printed_end(x, data, pos, depth + 1 if len(v) <= _BATCH else 4, spans, big)
            ends.append(pos)
        pos = _expect(data, b"]", pos)
        if (len(v) > _BATCH and big is None) or (big is not None and pos - start >= big):
            spans[start] = ("array", pos, starts, ends, None, None)
        return pos
    if type(v) is list and len(v) > _BATCH and depth < (4 if big is not None else 5):
        pos = _expect(data, b"[", pos)
        for i in range(0, len(v), _BATCH):
            if i:
                pos = _expect(data, b",", pos)
            pos = _expect(data, memoryview(encode(v[i:i + _BATCH]))[1:-1], pos)
        return _expect(data, b"]", pos)
    enc = encode(v)
    if big is not None and len(enc) >= big and type(v) in (dict, list):
        return _encoded_end(v, data, pos, depth, spans, big, force=True)  # a large container: its own walk
    return _expect(data, enc, pos)


def _expect(data: bytes, piece, pos: int) -> int:
    """The offset after ``piece`` (bytes-like) when ``data`` has it at ``pos``, else :class:`NotFast`."""
    if not data.startswith(piece, pos):
        raise NotFast
    return pos + len(piece)


#: Elements of a long array printed and compared at a time (:func:`_printed_end`).
_BATCH = 64


#: A ``\\u`` escape with the four bytes after it, or a ``\\/`` (:func:`_canonical_escapes`).
_ESCAPES = re.compile(rb"\\(?:u....|/)", re.DOTALL)
#: The ``\\u`` escapes the canonical encoding writes: control characters without a short escape, lowercase.
_CANONICAL_U = frozenset(b"\\u00%02x" % c for c in range(0x20) if c not in (8, 9, 10, 12, 13))


def _canonical_escapes(data: bytes) -> bool:
    """True when no escape in ``data`` (a JSON text) is spelled otherwise than the canonical encoding spells
    it. Only ``\\u`` and ``\\/`` escapes can be: every ``\\u`` followed by four bytes must be one of
    :data:`_CANONICAL_U`, and no ``\\/`` may start an escape. (A match that is not a real escape, after an
    escaped backslash, is judged the same way: at worst a false "no", which only costs the slower paths; a
    real escape cannot hide inside an earlier match, which would then hold a backslash and fail.)"""
    found = set(_ESCAPES.findall(data))
    if b"\\/" in found:
        found.discard(b"\\/")
        p = data.find(b"\\/")
        while p != -1:
            q = p
            while q > 0 and data[q - 1] == 0x5C:
                q -= 1
            if (p - q) % 2 == 0:  # an even run of backslashes before it: this one starts an escape
                return False
            p = data.find(b"\\/", p + 2)
    return found <= _CANONICAL_U
