"""The fast path's schema walk at C speed: msgspec validation types compiled from :mod:`.schema`.

:func:`checker` turns a schema type into a function ``check(value, floats) -> bool`` that proves,
with ``msgspec.convert`` (strict) into ``Struct`` classes made once per schema type (``gc=False``,
``forbid_unknown_fields``, internally tagged unions as msgspec tagged unions, integer ranges as
``Meta(ge=, le=)``, enums as ``Literal``), what :func:`.fastpath._compile`'s Python walk proves: every
struct has exactly its written keys with their exact types and ranges, nothing serde would drop,
default or omit. What msgspec cannot say alone (``f32``/``f64`` floats, timestamps, free ``Value``
subtrees, hash sets, untagged enums, fields omitted on a value other than ``null``) is a small custom
type whose hook runs the Python walk's own validator on that piece, at a depth bound no smaller than
any depth the piece can sit at, so floats are collected as the walk collects them.

``check`` returns ``True`` only when the Python walk would accept ``value`` too (the converted
structs are dropped at once); ``False`` means "not proven here": the caller runs the Python walk,
which decides. The converse (msgspec refusing what the walk accepts) only costs time.
"""

from __future__ import annotations

from typing import Annotated, Literal, Optional, Union

from inspector.checkpoint.schema import model as S
from inspector.checkpoint.schema.serde_errors import INT_RANGES

__all__ = ["checker", "NotFast"]


class NotFast(Exception):
    """The fast path cannot prove equivalence with serde; use :func:`.schema.typed.decode` (the read
    door does). Defined here, the lowest module of the fast path, and re-exported by :mod:`.fastpath`."""


_INT64_MAX = (1 << 63) - 1
#: An integer over 2**64 - 1 in a ``u64`` field passes this check; the fast path still refuses it
#: because orjson cannot print it (its re-encoding raises ``TypeError`` -> ``NotFast``).
_U64_NOTE = "u64 upper bound: enforced by the re-encoding"


class _Hooked:
    """Base of the custom types: ``check`` is the Python walk's validator for the piece."""

    check = None
    depth = 0


def checker(t, compile_walk):
    """``check(value, floats) -> bool`` for schema type ``t`` (see the module docstring), or ``None``
    without msgspec or when the schema is recursive (no static depth bound).

    Args:
        t: a schema type (:mod:`.schema_types`), usually :data:`.schema.PAYLOAD`.
        compile_walk: :func:`.fastpath._compile` (the Python walk's validator of one schema type).
    """
    try:
        import msgspec
    except ImportError:  # pragma: no cover - msgspec is a dependency
        return None
    try:
        bound = _max_depth(t)
    except RecursionError:  # pragma: no cover - the schema is not recursive today
        return None
    if bound >= 127:  # pragma: no cover
        return None
    builder = _Builder(msgspec, compile_walk, bound)
    try:
        target = builder.type_of(t)
    except (TypeError, ValueError):  # pragma: no cover - a type msgspec cannot express: the walk alone
        return None
    ok = builder.ok

    def check(value, floats: list) -> bool:
        def hook(tp, obj):
            tp.check(obj, tp.depth, floats)
            return ok[tp]
        try:
            msgspec.convert(value, target, strict=True, dec_hook=hook)
        except Exception:  # ValidationError, or the walk's NotFast from a hook: not proven here
            floats.clear()
            return False
        return True
    return check


def _max_depth(t, seen=()) -> int:
    """Most containers (structs, arrays, maps) the schema can nest around any value of ``t``
    (free ``Value`` subtrees count as depth 0 here: their hook walks them from this bound)."""
    if id(t) in seen:
        raise RecursionError
    seen = seen + (id(t),)
    if isinstance(t, S.Opt):
        return _max_depth(t.inner, seen)
    if isinstance(t, (S.Vec, S.Set)):
        return 1 + _max_depth(t.inner, seen)
    if isinstance(t, S.Map):
        return 1 + _max_depth(t.value, seen)
    if isinstance(t, S.Struct):
        return 1 + max((_max_depth(f.type, seen) for f in t.fields), default=0)
    if isinstance(t, S.Tagged):
        return max(_max_depth(st, seen) for _, st in t.variants)
    if isinstance(t, S.Untagged):
        return max(_max_depth(a, seen) for a in t.alternatives)
    return 0


class _Builder:
    """Makes the msgspec types, once per schema type (identity-keyed)."""

    def __init__(self, msgspec, compile_walk, bound: int):
        self.msgspec = msgspec
        self.compile_walk = compile_walk
        self.bound = bound
        self.memo: dict = {}
        self.ok: dict = {}  # custom type -> its one instance (what the hook returns)
        self.names = 0

    def hooked(self, t, name: str):
        """A custom type whose hook runs the Python walk's validator of ``t``."""
        key = ("hook", id(t))
        if key not in self.memo:
            self.names += 1
            cls = type(f"Hooked{self.names}_{name}", (self.hooked_base,), {})
            walk = _compile_omitting(t, self.compile_walk) if isinstance(t, _Omitting) else self.compile_walk(t)
            cls.check = staticmethod(walk)
            cls.depth = self.bound
            self.ok[cls] = cls()
            self.memo[key] = (t, cls)
        return self.memo[key][1]

    def type_of(self, t):
        key = id(t)
        if key in self.memo:
            return self.memo[key][1]
        out = self._make(t)
        self.memo[key] = (t, out)  # keeps t alive: ids stay unique
        return out

    def _make(self, t):
        if isinstance(t, S.Opt):
            return Optional[self.type_of(t.inner)]
        if isinstance(t, S.Prim):
            if t.name == "str":
                return str
            if t.name == "bool":
                return bool
            if t.name in INT_RANGES:
                lo, hi = INT_RANGES[t.name]
                if hi > _INT64_MAX:  # u64/usize: msgspec bounds stop at int64; see _U64_NOTE
                    return Annotated[int, self.msgspec.Meta(ge=lo)]
                return Annotated[int, self.msgspec.Meta(ge=lo, le=hi)]
            return self.hooked(t, t.name)  # f32, f64, timestamp, value
        if isinstance(t, S.Vec):
            return list[self.type_of(t.inner)]
        if isinstance(t, S.Map) and isinstance(t.key, S.Enum):
            return dict[Literal[t.key.variants], self.type_of(t.value)]
        if isinstance(t, S.Enum):
            return Literal[t.variants]
        if isinstance(t, S.Struct):
            return self.struct(t, None, None)
        if isinstance(t, S.Tagged) and len(t.variants) > 1 and all(isinstance(st, S.Struct) for _, st in t.variants):
            return Union[tuple(self.struct(st, t.tag, wire) for wire, st in t.variants)]
        if (isinstance(t, S.Untagged) and t.as_object is None and len(t.alternatives) == 2
                and isinstance(t.alternatives[0], S.Prim) and t.alternatives[0].name == "str"
                and isinstance(t.alternatives[1], S.Vec)):
            # a string or an array: at most one alternative can match, so "first match wins" is "either"
            return Union[str, self.type_of(t.alternatives[1])]
        return self.hooked(t, getattr(t, "name", "t").replace(":", "_"))  # Set, Map, Untagged, one-variant Tagged

    #: Base class of the custom types (:meth:`hooked`).
    hooked_base = _Hooked
    #: Extra ``msgspec.defstruct`` options of every struct (a subclass's).
    struct_options: dict = {}

    def field_type(self, t: S.Struct, f: S.Field):
        """The msgspec type of field ``f`` of struct ``t`` when a subclass decides it, else ``None``."""
        return None

    def namespace(self, t: S.Struct) -> dict | None:
        """Extra class attributes (e.g. ``__post_init__``) of the msgspec Struct made for ``t``, when a
        subclass adds some (fields are named ``f{i}``, ``i`` the field's index in ``t.fields``)."""
        return None

    def struct(self, t: S.Struct, tag_field, tag):
        """A msgspec Struct for ``t`` (a variant of a tagged union when ``tag_field`` is given)."""
        msgspec = self.msgspec
        fields = []
        for i, f in enumerate(t.fields):
            if f.never_written:
                continue  # present in a file: an unknown field here, refused
            default = f.default if f.default is not S.REQUIRED else (None if isinstance(f.type, S.Opt) else S.REQUIRED)
            absent_ok = default is not S.REQUIRED and bool(f.skip_if) and f.omitted_when(default)
            ft = f.type
            typ = self.field_type(t, f)
            if typ is not None:
                pass
            elif not f.skip_if:
                typ = self.type_of(ft)
            elif (f.skip_if == S.NONE and isinstance(ft, S.Opt)
                  and not _is_hooked(self.type_of(ft.inner))):
                # written only when not null: msgspec refuses a null for a non-optional type (a hook's
                # validator may accept null, e.g. a free Value: those take the hooked rule below)
                typ = self.type_of(ft.inner)
            else:
                typ = self.hooked(_Omitting(f), "omitting")
            spec = msgspec.field(name=f.key) if not absent_ok else msgspec.field(name=f.key, default=None)
            fields.append((f"f{i}", typ, spec))
        fields.sort(key=lambda x: x[2].default is not msgspec.NODEFAULT)  # required fields first
        self.names += 1
        opts = dict(forbid_unknown_fields=True, gc=False, **self.struct_options)
        if tag_field is not None:
            opts.update(tag_field=tag_field, tag=tag)
        return msgspec.defstruct(f"S{self.names}_{t.name.replace(':', '_')}", fields, namespace=self.namespace(t),
                                 **opts)


def _is_hooked(typ) -> bool:
    """True for a custom type made by :meth:`_Builder.hooked`."""
    return isinstance(typ, type) and issubclass(typ, _Hooked)


class _Omitting:
    """A field with a ``skip_serializing_if`` other than ``null``: the walk's own field rule (the
    value must not be one the reference omits, then its type's validator)."""

    def __init__(self, f: S.Field):
        self.field = f


def _compile_omitting(o: _Omitting, compile_walk):
    f = o.field
    inner = compile_walk(f.type)

    def check(v, d, fl):
        if f.omitted_when(v):
            raise NotFast
        inner(v, d, fl)
    return check
