"""The fast path: an orjson-parsed payload that is provably what serde_json would have read.

:func:`decode_fast` parses with orjson and walks a validator compiled once per schema type
(:func:`_compile`: no schema dispatch per node). It returns the value only when it is exactly
what :func:`.typed.decode` would return *and* the file is already canonical; anything else
(unknown, aliased or skipped keys, defaults to fill, a plain-string permission rule, a
timestamp not in chrono's form, a repeated hash-set element, out-of-range integers, floats
serde_json reads differently, nesting past 127) raises :class:`NotFast` and the exact path runs.
"""

from __future__ import annotations

from array import array
from functools import lru_cache

from inspector.checkpoint.schema import model as S
from inspector.checkpoint.jsontext.canonical import format_f64
from inspector.checkpoint.read.fastcheck import NotFast, checker
from inspector.checkpoint.read.relaid import _same_layout
from inspector.checkpoint.schema.serde_errors import INT_RANGES, widen_f32
from inspector.checkpoint.schema.timestamp import TimestampError, normalize_timestamp

__all__ = ["NotFast", "NotCanonical", "decode_fast"]


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
        return _compile_prim(t.name)
    if isinstance(t, (S.Vec, S.Set)):
        inner = _compile(t.inner)
        is_set = isinstance(t, S.Set)

        def check_vec(v, d, fl):
            if type(v) is not list or d >= 127:
                raise NotFast
            d += 1
            for x in v:
                inner(x, d, fl)
            if is_set and len(v) > 1 and len(set(v)) != len(v):  # enum elements: hashable strings
                raise NotFast  # a repeated element collapses on read
        return check_vec
    if isinstance(t, S.Map):
        key, value = _compile(t.key), _compile(t.value)

        def check_map(v, d, fl):
            if type(v) is not dict or d >= 127:
                raise NotFast
            d += 1
            for k, x in v.items():
                key(k, d, fl)
                value(x, d, fl)
        return check_map
    if isinstance(t, S.Struct):
        return _compile_struct(t, ())
    return _compile_variants(t)


def _compile_prim(name: str):
    """The validator of a primitive (``str``, ``bool``, ``timestamp``, ``f32``, ``f64``, an integer width, or a
    free ``value``): exactly that JSON type, in range, in the form serde writes (see :func:`_compile`)."""
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
    if name == "timestamp":
        def check_timestamp(v, d, fl):
            if type(v) is not str or not _canonical_timestamp(v):
                raise NotFast
        return check_timestamp
    if name == "f32":
        def check_f32(v, d, fl):
            if type(v) is not float or not _exact_f32(v):
                raise NotFast
        return check_f32
    if name == "f64":
        def check_f64(v, d, fl):
            if type(v) is not float:
                raise NotFast
            fl.append(v)
        return check_f64
    lo, hi = INT_RANGES[name]

    def check_int(v, d, fl):
        if type(v) is not int or not lo <= v <= hi:
            raise NotFast
    return check_int


def _compile_variants(t):
    """The validator of an enum, a permission rule, an internally tagged or an untagged union (see :func:`_compile`)."""
    if isinstance(t, S.Enum):
        variants = frozenset(t.variants)

        def check_enum(v, d, fl):
            if type(v) is not str or v not in variants:
                raise NotFast
        return check_enum
    if isinstance(t, S.Untagged) and t.as_object is not None:
        key = t.as_object  # PermissionRule: only the object form is written

        def check_rule(v, d, fl):
            if type(v) is not dict or len(v) != 1 or type(v.get(key)) is not str:
                raise NotFast
        return check_rule
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


@lru_cache(maxsize=4096)
def _canonical_timestamp(v: str) -> bool:
    """True when timestamp text ``v`` is read and written back unchanged (chrono's form)."""
    try:
        return normalize_timestamp(v) == v
    except TimestampError:
        return False


@lru_cache(maxsize=4096)
def _exact_f32(v: float) -> bool:
    """True when an f32 field holding ``v`` re-encodes as ``v``: ``v`` is an f32 image and its text
    (``format_f64(v)``, checked later against the file) parses under serde_json, maybe one ULP off,
    to a double that narrows to the same f32."""
    from inspector.checkpoint.jsontext.reader import serde_f64_from_text

    return widen_f32(v) == v and widen_f32(serde_f64_from_text(format_f64(v))) == v


def _pass(v, d, fl) -> None:
    """A key already checked by the enclosing tagged enum (its tag)."""


def _refuse(v, d, fl) -> None:
    """A key the reference reads but never writes (``skip_serializing``): the file is not canonical."""
    raise NotFast


def _omit_test(f: S.Field):
    """A fast ``skip_serializing_if`` test for field ``f`` (None when it has none)."""
    if not f.skip_if:
        return None
    if f.skip_if == S.NONE:
        return lambda x: x is None
    return f.omitted_when


def _compile_struct(t: S.Struct, extra_keys: tuple):
    """Validator of a struct: walks the object's own keys once (C-level required-key test)."""
    # per key: (kind, check, omit); strings and integers are tested inline (no call per field)
    rules = {k: (_CALL, _pass, None) for k in extra_keys}
    required = []
    for f in t.fields:
        if f.never_written:
            rules[f.key] = (_CALL, _refuse, None)  # present in a file: never written back
            continue
        default = f.default if f.default is not S.REQUIRED else (None if isinstance(f.type, S.Opt) else S.REQUIRED)
        # absent is fine only when the reference would omit the defaulted value too
        absent_ok = default is not S.REQUIRED and bool(f.skip_if) and f.omitted_when(default)
        ft = f.type
        opt = type(ft) is S.Opt
        base = ft.inner if opt else ft
        if type(base) is S.Prim and base.name == "str":
            rules[f.key] = (_OSTR if opt else _STR, None, _omit_test(f))
        elif type(base) is S.Prim and base.name in INT_RANGES:
            rules[f.key] = (_OINT if opt else _INT, INT_RANGES[base.name], _omit_test(f))
        else:
            rules[f.key] = (_CALL, _compile(ft), _omit_test(f))
        if not absent_ok:
            required.append(f.key)
    required = frozenset(required)
    get = rules.get

    def check_struct(v, d, fl):
        if type(v) is not dict or d >= 127 or not v.keys() >= required:
            raise NotFast
        d += 1
        for k, x in v.items():
            rule = get(k)
            if rule is None:
                raise NotFast  # unknown or aliased key
            kind, check, omit = rule
            if omit is not None and omit(x):
                raise NotFast  # written out in the file but omitted by the reference
            if kind is _STR:
                if type(x) is not str:
                    raise NotFast
            elif kind is _INT:
                if type(x) is not int or not check[0] <= x <= check[1]:
                    raise NotFast
            elif kind is _CALL:
                check(x, d, fl)
            elif x is None:
                pass
            elif kind is _OSTR:
                if type(x) is not str:
                    raise NotFast
            elif type(x) is not int or not check[0] <= x <= check[1]:  # _OINT
                raise NotFast
    return check_struct


_CALL, _STR, _INT, _OSTR, _OINT = "call", "str", "int", "Option<str>", "Option<int>"


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


def _encoded_end(v, data: bytes, pos: int, depth: int, spans: dict | None = None, big: int = 0,
                 force: bool = False) -> int:
    """Compare ``encode(v)`` with ``data`` at ``pos`` piece by piece; return the end offset.

    Large containers near the top are walked so no full second copy of a big payload is
    ever built; pieces are compared with ``bytes.startswith`` (no slice copies). With ``spans``,
    every container of at least ``big`` bytes is walked and its children's byte spans recorded
    (see :func:`decode_fast`).
    """
    import orjson

    from inspector.checkpoint.jsontext.canonical import encode

    tv = type(v)
    if (tv is dict or tv is list) and (force or depth < 3 or len(v) > 16):
        n = len(data)
        start = pos
        rec = spans is not None
        if rec:
            starts, ends = array("q"), array("q")
            key_starts, keys = (array("q"), []) if tv is dict else (None, None)
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
                if rec:
                    key_starts.append(pos)
                    keys.append(k)
                    starts.append(pos + len(kb))
                pos = _encoded_end(v[k], data, pos + len(kb), depth + 1, spans, big)
                if rec:
                    ends.append(pos)
            if pos >= n or data[pos] != 0x7D:
                raise NotFast
        else:
            if pos >= n or data[pos] != 0x5B:
                raise NotFast
            pos += 1
            for i, x in enumerate(v):
                if i:
                    if pos >= n or data[pos] != 0x2C:
                        raise NotFast
                    pos += 1
                if rec:
                    starts.append(pos)
                pos = _encoded_end(x, data, pos, depth + 1, spans, big)
                if rec:
                    ends.append(pos)
            if pos >= n or data[pos] != 0x5D:
                raise NotFast
        pos += 1
        if rec and (pos - start >= big or depth == 0):  # the root always: says the walk succeeded
            spans[start] = ("object" if tv is dict else "array", pos, starts, ends, key_starts, keys)
        return pos
    b = encode(v)
    if not data.startswith(b, pos):
        raise NotFast
    if spans is not None and (tv is dict or tv is list) and len(b) >= big:
        return _encoded_end(v, data, pos, depth, spans, big, force=True)  # a large container: record it
    return pos + len(b)


def decode_fast(data: bytes, t=S.PAYLOAD, *, spans: dict | None = None, big: int = 1 << 16,
                serde_floats: bool = False) -> dict:
    """Decode a file that is already exactly canonical, at C speed, or raise :class:`NotFast`.

    The result is returned only when it is provably identical to :func:`decode`'s: orjson
    parsed the bytes, the schema walk found every field with its exact type and range and no
    unknown, aliased or skipped key, nesting stays within serde_json's 127 levels, the
    re-encoding equals ``data`` byte for byte (so there were no duplicate keys, whitespace or
    other spellings), and every float's text reads back under serde_json's own (not
    correctly rounded) parser to the same double. Anything else raises :class:`NotFast`.

    ``serde_floats``: a float whose text serde_json reads one step off (FORMAT.md 3.1) no longer refuses the
    file; once the printing is proven to be the file's (so each such float's text is its shortest spelling),
    :class:`NotCanonical` carries the value with serde's reading of each in its place (serde's ``Value``: its
    canonical printing is not the file's). For a free-form ``Value`` read (``canon``, ``diff``), not a typed
    one (an ``f32`` field is read as ``f32``).

    ``spans``: a dict to fill, as the re-encoding is compared, with the children of every
    container of at least ``big`` bytes: ``{start: (kind, end, starts, ends, key_starts, keys)}``
    (``kind`` ``"object"``/``"array"``; half-open byte spans of the child values as
    ``array('q')``; for objects the offset of each key's opening quote and the keys, in file
    order; the root container is always recorded). Valid only when this returns (the file is
    then exactly canonical); a front-end's tree index at no extra parse.
    """

    from inspector.checkpoint.jsontext.reader import serde_f64_from_text

    value = _parse(data)
    checks = _COMPILED.get(id(t))
    if checks is None:
        checks = _COMPILED[id(t)] = (t, _compile(t), checker(t, _compile))  # t kept: its id stays unique
    _, check, fast_check = checks
    floats: list = []
    if fast_check is None or not fast_check(value, floats):  # msgspec's typed check did not prove it
        floats = []
        check(value, 0, floats)  # the Python walk decides (NotFast)
    misread = {}
    for x in set(floats):
        read = serde_f64_from_text(format_f64(x))
        if read != x:
            if not serde_floats:
                raise NotFast
            misread[x] = read
    try:
        canonical = _encoded_end(value, data, 0, 0, spans, big) == len(data)
    except (NotFast, TypeError):  # TypeError: orjson cannot print it (an integer over 64 bits)
        canonical = False
    if not canonical:
        if spans:
            spans.clear()
        if _same_layout(value, data, spans, big) is None:
            raise NotFast
    if misread:
        raise NotCanonical(_floats_replaced(value, misread))
    if not canonical:
        raise NotCanonical(value)
    return value


def _floats_replaced(value, misread: dict):
    """``value`` with each float that is a key of ``misread`` replaced by its value, in place (an explicit stack, no
    recursion per level); the value itself when it is such a float."""
    if type(value) is float:
        return misread.get(value, value)
    stack = [value]
    while stack:
        node = stack.pop()
        for k, y in (node.items() if type(node) is dict else enumerate(node)):
            ty = type(y)
            if ty is float:
                if y in misread:
                    node[k] = misread[y]
            elif ty is dict or ty is list:
                stack.append(y)
    return value


def _parse(data: bytes):
    """The JSON value of ``data`` as dicts, lists and scalars, or :class:`NotFast`.

    msgspec's decoder when installed (it builds the Python objects as it reads: about a third less
    peak memory than orjson, which first builds a document of its own, and a little faster),
    else orjson. Which parser read the value does not matter for what the fast path proves: the
    value is accepted only when its canonical printing is the file's exact bytes.
    """
    if _DECODER is not None:
        try:
            return _DECODER.decode(data)
        except (_msgspec.DecodeError, RecursionError, ValueError):
            raise NotFast from None
    import orjson

    try:
        return orjson.loads(data)
    except (orjson.JSONDecodeError, RecursionError):
        raise NotFast from None


try:
    import msgspec as _msgspec

    _DECODER = _msgspec.json.Decoder()
except ImportError:  # pragma: no cover - msgspec is a dependency; orjson alone also works
    _msgspec = _DECODER = None


class NotCanonical(NotFast):
    """The file is not canonical, but it is exactly orjson's pretty-printed (2-space indent) or
    compact printing of ``value``, in sorted or in the file's own key order, maybe with CRLF line
    ends and one final newline: every token is then spelled as the canonical encoding spells it
    (no duplicate keys, the same numbers and escapes), so ``value`` is provably what serde reads
    (a re-saved or pretty-printed payload without the pure-Python path). ``value`` is
    the typed payload; P-CANONICAL fails."""

    #: The canonical printing of ``value`` when the path that proved it made it (bytes-like), else ``None``.
    canonical = None

    def __init__(self, value):
        super().__init__()
        self.value = value
