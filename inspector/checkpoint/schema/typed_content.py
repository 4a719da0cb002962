"""Typed decode from serde's buffered *content* and from a ``serde_json::Value``.

Internally tagged and untagged enums are read by serde in two steps: the JSON is first buffered
as content (:class:`~.serde_errors.CMap` for objects, duplicates kept), then the variant is
decoded from it with ``ContentDeserializer`` rules, which differ from streaming serde_json:
a tag may be a variant *index* (``"type": 0``; out of range: ``invalid value: integer `9`,
expected variant index 0 <= i < N``), a struct may be a sequence (``invalid length N, expected
struct variant E::V with M elements``; extra elements: ``expected M elements in sequence``),
an untagged enum's struct alternative takes only a map. Errors here carry no position; the
streaming caller positions them (serde_json ``fix_position``).

:func:`decode_value` is ``serde_json::from_value::<T>`` on a parsed JSON value, as the
S-TOOLEND rules need it (FORMAT.md 4.7.3, 6.3 catalog T): same texts, never a position.
Also here: the serialized form of a decoded struct (defaults, skips, ``missing field``).
"""

from __future__ import annotations

from inspector.checkpoint.schema import model as S
from inspector.checkpoint.jsontext.reader import SerdeError
from inspector.checkpoint.schema.serde_errors import (
    INT_RANGES, CMap, _invalid_type, _invalid_value, _number, _unknown_field, _unknown_variant,
)
from inspector.checkpoint.schema.timestamp import TimestampError, normalize_timestamp

__all__ = ["decode_value", "finish_struct", "seq_expecting", "content", "variant_from_index", "timestamp"]


def seq_expecting(t: S.Struct) -> str:
    """serde derive's ``visit_seq`` expectation: ``struct X with N elements`` (1: ``element``)."""
    kind = "struct variant " if "::" in t.name else "struct "
    n = len(t.fields)
    return f"{kind}{t.name} with {n} element" + ("" if n == 1 else "s")


def finish_struct(t: S.Struct, got: dict) -> dict:
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


def _rebuild(v, children, build):
    """Rebuild a nested value bottom-up with an explicit stack (no recursion per nesting level).

    ``children(x)`` gives a container's children in order, or ``None`` for a leaf (kept as is);
    ``build(x, kids)`` makes the new container from the original and its rebuilt children."""
    done: list = []
    stack = [(v, None)]  # (value, its children once expanded)
    while stack:
        x, kids = stack.pop()
        if kids is None:
            kids = children(x)
            if kids is None:
                done.append(x)
                continue
            stack.append((x, kids))
            stack.extend((c, None) for c in reversed(kids))
        else:
            n = len(kids)
            got = done[len(done) - n:] if n else []
            del done[len(done) - n:]
            done.append(build(x, got))
    return done[0]


def _content_children(x):
    if type(x) is CMap:
        return [c for _k, c in x]
    return x if type(x) is list else None


def _content_value(v):
    """Buffered content (``CMap`` objects, duplicates kept) as a ``serde_json::Value``: a repeated
    key keeps its first position and its last value."""
    return _rebuild(v, _content_children, lambda x, kids: dict(zip((k for k, _c in x), kids))
                    if type(x) is CMap else kids)


def timestamp(s: str) -> str:
    """The chrono stand-in's ``visit_str``: the re-encoded text, or serde's custom error."""
    try:
        return normalize_timestamp(s)
    except TimestampError as e:
        raise SerdeError(str(e)) from None


def variant_from_index(t: S.Tagged, x, allow_index: bool = True) -> str:
    """serde derive's variant-identifier visitor on one buffered tag value ``x``.

    Buffered content hands an integer to ``visit_u64`` (a variant index); a ``serde_json::Value``
    (``allow_index=False``) reads identifiers as strings only."""
    if type(x) is str:
        if x not in t.names:
            raise _unknown_variant(x, t.names)
        return x
    if allow_index and type(x) is int and x >= 0:  # visit_u64: a variant index
        if x >= len(t.variants):
            raise _invalid_value(x, "variant index 0 <= i < %d" % len(t.variants))
        return t.variants[x][0]
    raise _invalid_type(x, "variant identifier")


def _struct_from_seq(t: S.Struct, v: list, from_value: bool) -> dict:
    """serde derive's ``visit_seq``: fields in order; a missing field without a default is
    ``invalid length <field index>`` (defaulted ones are filled and the walk goes on)."""
    got = {}
    n = len(v)
    for idx, f in enumerate(t.fields):
        if idx < n:
            got[f.key] = content(f.type, v[idx], from_value)
        elif f.default is S.REQUIRED:
            raise SerdeError("invalid length %d, expected %s" % (idx, seq_expecting(t)))
    used = min(n, len(t.fields))
    if n > used:
        if from_value:  # serde_json::value::de::visit_array
            raise SerdeError("invalid length %d, expected fewer elements in array" % n)
        # SeqDeserializer::end
        raise SerdeError("invalid length %d, expected %d element%s in sequence" % (n, used, "" if used == 1 else "s"))
    return finish_struct(t, got)


def content(t, v, from_value: bool = False):
    """Decode buffered content ``v`` (``CMap`` objects) as schema type ``t``; serialized form out.

    With ``from_value`` the rules of ``serde_json::Value``'s deserializer apply instead (used by
    :func:`decode_value`). Raises :class:`SerdeError` without a position.
    """
    tt = type(t)
    if tt is S.Opt:
        return None if v is None else content(t.inner, v, from_value)
    if tt is S.Prim:
        name = t.name
        if name == "value":
            return _content_value(v)
        if name == "str":
            if type(v) is str:
                return v
            raise _invalid_type(v, t.expecting)
        if name == "bool":
            if v is True or v is False:
                return v
            raise _invalid_type(v, t.expecting)
        if name == "timestamp":
            if type(v) is str:
                return timestamp(v)
            raise _invalid_type(v, t.expecting)
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return _number(t, v)
        raise _invalid_type(v, t.expecting)
    if tt is S.Vec or tt is S.Set:
        if isinstance(v, list) and not isinstance(v, CMap):
            out = [content(t.inner, x, from_value) for x in v]
            return _dedupe(out) if tt is S.Set else out
        raise _invalid_type(v, "a sequence")
    if tt is S.Map:
        if not isinstance(v, CMap):
            raise _invalid_type(v, "a map")
        out = {}
        for k, x in v:
            out[content(t.key, k, from_value)] = content(t.value, x, from_value)
        return out
    if tt is S.Struct:
        if isinstance(v, CMap):
            return _content_struct(t, v, from_value)
        if isinstance(v, list):
            return _struct_from_seq(t, v, from_value)
        raise _invalid_type(v, "struct " + t.name)
    if tt is S.Enum:
        if type(v) is str:
            if v not in t.variants:
                raise _unknown_variant(v, t.variants)
            return v
        if isinstance(v, CMap):  # ContentDeserializer::deserialize_enum
            if len(v) != 1:
                raise _invalid_value(CMap(), "map with a single key")
            name, inner = v[0]
            if name not in t.variants:
                raise _unknown_variant(name, t.variants)
            # a unit: null; ContentDeserializer also takes an empty map, a Value does not
            if inner is not None and (from_value or not (isinstance(inner, CMap) and len(inner) == 0)):
                raise _invalid_type(inner, "unit")
            return name
        raise _invalid_type(v, "string or map")
    if tt is S.Tagged:
        if isinstance(v, CMap):
            tag = None
            rest = CMap()
            for k, x in v:
                if k == t.tag:
                    if tag is not None:
                        raise SerdeError("duplicate field `%s`" % t.tag)
                    tag = variant_from_index(t, x, not from_value)
                else:
                    rest.append((k, x))
            if tag is None:
                raise SerdeError("missing field `%s`" % t.tag)
        elif isinstance(v, list):
            if not v:
                raise SerdeError("missing field `%s`" % t.tag)
            tag, rest = variant_from_index(t, v[0], not from_value), v[1:]
        else:
            raise _invalid_type(v, "internally tagged enum " + t.name)
        result = {t.tag: tag}
        result.update(variant_struct(t, tag, rest))
        return result
    if tt is S.Untagged:
        return untagged(t, v)
    raise TypeError(t)  # pragma: no cover


def variant_struct(t: S.Tagged, tag: str, rest) -> dict:
    """The struct of variant ``tag`` from the buffered rest of the object (or sequence)."""
    st = t.variants[t.names.index(tag)][1]
    if isinstance(rest, CMap):
        return _content_struct(st, rest, False)
    return _struct_from_seq(st, rest, False)


def _dedupe(items: list) -> list:
    """A ``HashSet`` read: repeated elements kept once (first occurrence's place)."""
    seen = set()
    out = []
    for x in items:
        if x not in seen:
            seen.add(x)
            out.append(x)
    return out


def _content_struct(t: S.Struct, v: CMap, from_value: bool) -> dict:
    by_key = t.by_key
    got = {}
    for k, x in v:
        f = by_key.get(k)
        if f is None:
            if t.deny:
                raise _unknown_field(k, t.keys)
            continue
        if f.key in got:
            raise SerdeError("duplicate field `%s`" % f.key)
        got[f.key] = content(f.type, x, from_value)
    return finish_struct(t, got)


def untagged(t: S.Untagged, v):
    """``#[serde(untagged)]``: the first alternative that decodes wins. A struct alternative
    takes only a map (serde derive gives untagged struct variants no ``visit_seq``)."""
    for alt in t.alternatives:
        if type(alt) is S.Struct and not isinstance(v, CMap):
            continue
        try:
            out = content(alt, v)
        except SerdeError:
            continue
        if t.as_object is not None and type(out) is str:
            return {t.as_object: out}
        return out
    raise SerdeError("data did not match any variant of untagged enum %s" % t.name)


def to_content(v):
    """A parsed JSON value (dicts, lists) as buffered content (``CMap`` objects); explicit stack."""
    return _rebuild(v, _value_children, lambda x, kids: CMap(zip(x, kids)) if type(x) is dict else kids)


def _value_children(x):
    tx = type(x)
    if tx is dict:
        return list(x.values())
    return x if tx is list else None


def decode_value(t, value):
    """``serde_json::from_value::<T>(value)``: decode an already parsed JSON value as type ``t``.

    Args:
        t: a :mod:`.schema` type, e.g. :data:`~.schema.TOOL_RESULT_TRANSFORM_BINDING` or
            :data:`~.schema.TOOL_RESULT_EVIDENCE` (FORMAT.md 4.7.3).
        value: JSON as Python values (``dict``/``list``/``str``/``int``/``float``/``bool``/``None``),
            e.g. a sub-tree of a decoded payload such as ``tool_end.metadata[key]``.

    Returns:
        the decoded value in serialized form (what ``serde_json::to_value`` would give back).

    Raises:
        SerdeError: with serde's exact text and no line/column, e.g. ``missing field
        `binding_digest` `` or ``invalid type: null, expected struct ToolResultTransformBindingV1``.
    """
    if type(t) is S.Struct and type(value) is dict:
        got = _plain_struct(t, value)
        if got is not None:
            return finish_struct(t, got)
    return content(t, to_content(value), True)


def _plain_struct(t: S.Struct, value: dict) -> dict | None:
    """The fields a struct read from ``value`` gets (``_content_struct``'s ``got``) when every one
    of them is a plain value (:func:`_plain_plan`) and no key is unknown to a ``deny`` struct or read
    twice (an alias); ``None`` otherwise, for :func:`content` to decide (and say what is wrong).
    Spares the buffered copy of the value (``to_content``) for the common case."""
    known = _PLANS.get(id(t))
    plan = _plain_plan(t) if known is None else known[1]
    got = {}
    for k, x in value.items():
        spec = plan.get(k)
        if spec is None:
            if t.deny:
                return None
            continue
        key, optional, kind, allowed = spec
        if x is None and optional:
            pass
        elif kind is str:
            if type(x) is not str:
                return None
        elif kind is int:
            if type(x) is not int or not allowed[0] <= x <= allowed[1]:
                return None
        elif kind is S.Enum:
            if type(x) is not str or x not in allowed:
                return None
        elif kind is bool:
            if x is not True and x is not False:
                return None
        else:
            return None
        if key in got:
            return None
        got[key] = x
    return got


#: ``id(struct) -> (struct, {key or alias: (field key, Option?, kind, bounds or variants)})`` (:func:`_plain_plan`;
#: the struct is kept so that its id stays its own).
_PLANS: dict[int, tuple] = {}


def _plain_plan(t: S.Struct) -> dict:
    """How :func:`_plain_struct` reads each key of ``t``: a field of type string, boolean, integer
    (with its range) or unit enum (with its variants), or an ``Option`` of one, is read as the value
    itself, which is what ``content(type, v, True)`` returns for it when it does not raise; any other
    type has kind ``None`` (left to :func:`content`)."""
    plan = {}
    for k, f in t.by_key.items():
        ft, optional = (f.type.inner, True) if type(f.type) is S.Opt else (f.type, False)
        kind, allowed = None, None
        if type(ft) is S.Prim:
            if ft.name == "str":
                kind = str
            elif ft.name == "bool":
                kind = bool
            elif ft.name in INT_RANGES:
                kind, allowed = int, INT_RANGES[ft.name]
        elif type(ft) is S.Enum:
            kind, allowed = S.Enum, frozenset(ft.variants)
        plan[k] = (f.key, optional, kind, allowed)
    _PLANS[id(t)] = (t, plan)
    return plan
