"""Building blocks of :mod:`.schema`: how a serde type is described as data.

``Prim`` (primitives, integer widths, ``Value``, the chrono timestamp stand-in), ``Opt``,
``Vec``, ``Map`` (``HashMap``/``BTreeMap`` with enum keys), ``Set`` (``HashSet``), unit-variant
``Enum``, ``Struct`` of ``Field`` s, internally ``Tagged`` and ``Untagged`` enums. Interpreted by
:mod:`.typed` exactly like serde derive + serde_json (FORMAT.md 4).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

__all__ = [
    "Prim", "Opt", "Vec", "Map", "Set", "Enum", "Struct", "Field", "Tagged", "Untagged", "REQUIRED", "NONE",
    "EMPTY", "STR", "PATH", "BOOL", "U16", "U32", "U64", "USIZE", "I32", "I64", "F32", "F64", "VALUE",
    "TIMESTAMP", "camel",
]

REQUIRED = object()  # marker: no read default (serde: "missing field")


@dataclass(frozen=True)
class Prim:
    """A serde primitive: ``str``, ``bool``, an integer width, ``f32``/``f64`` or ``Value``."""

    name: str  # "str" | "bool" | "u16" | "u32" | "u64" | "usize" | "i32" | "i64" | "f32" | "f64"
    #            | "value" | "timestamp"
    expecting: str


STR = Prim("str", "a string")
PATH = Prim("str", "path string")  # PathBuf: a string, with its own expectation text
BOOL = Prim("bool", "a boolean")
U16 = Prim("u16", "u16")
U32 = Prim("u32", "u32")
U64 = Prim("u64", "u64")
USIZE = Prim("usize", "usize")
I32 = Prim("i32", "i32")
I64 = Prim("i64", "i64")
F32 = Prim("f32", "f32")
F64 = Prim("f64", "f64")
VALUE = Prim("value", "any valid JSON value")
#: The reference's stand-in for ``chrono::DateTime<Utc>`` (FORMAT.md 4.13): an RFC 3339 string.
TIMESTAMP = Prim("timestamp", "an RFC 3339 formatted date and time string")


@dataclass(frozen=True)
class Opt:
    """``Option<T>``: ``null`` reads as None."""

    inner: object


@dataclass(frozen=True)
class Vec:
    """``Vec<T>``."""

    inner: object


@dataclass(frozen=True)
class Map:
    """``HashMap<K, V>`` / ``BTreeMap<K, V>`` keyed by a unit enum ``key``: a JSON object.

    Written with sorted keys by the canonical form; a repeated key keeps the last value."""

    key: object
    value: object


@dataclass(frozen=True)
class Set:
    """``HashSet<T>``: a JSON array read into a set. Repeated elements collapse to one, and the
    reference writes the set in hash-iteration order, which is not reproducible with two or more
    elements (FORMAT.md 3.1 "Order not reproducible")."""

    inner: object


@dataclass(frozen=True)
class Enum:
    """A unit-variant enum written as its variant name (e.g. ``"Active"``)."""

    name: str
    variants: tuple


@dataclass(frozen=True)
class Field:
    """One struct field.

    ``key``: serialized/deserialized key. ``default``: serialized form used when the key is
    missing on read (``REQUIRED`` for none; ``Option`` fields read None without one).
    ``skip_if``: when the serialized value equals one of these, the key is omitted on write
    (``skip_serializing_if``). ``never_written``: ``skip_serializing`` (``api_key``).
    """

    key: str
    type: object
    default: object = REQUIRED
    aliases: tuple = ()
    skip_if: tuple = ()
    never_written: bool = False

    def omitted_when(self, value) -> bool:
        """True when ``skip_serializing_if`` drops this serialized ``value`` (a loop, not ``any()`` over a
        generator: the typed decode asks this for every optional field it reads)."""
        for s in self.skip_if:
            if value is s or (type(value) is type(s) and value == s):
                return True
        return False


@dataclass(frozen=True)
class Struct:
    """A ``#[derive(Deserialize)]`` struct; ``deny`` = ``deny_unknown_fields``."""

    name: str
    fields: tuple
    deny: bool = False

    @property
    def keys(self) -> tuple:
        """Serialized keys in declaration order (serde's ``expected one of`` list)."""
        return tuple(f.key for f in self.fields)

    @cached_property
    def by_key(self) -> dict:
        """Field by every key it is read from: its own and its aliases (serde's field visitor)."""
        out = {}
        for f in self.fields:
            out[f.key] = f
            for a in f.aliases:
                out[a] = f
        return out


@dataclass(frozen=True)
class Tagged:
    """An internally tagged enum (``#[serde(tag = "type")]``): variant name -> Struct."""

    name: str
    tag: str
    variants: tuple  # ((wire name, Struct named "Enum::RustVariant"), ...)

    @cached_property
    def names(self) -> tuple:
        """Wire names in declaration order (``expected one of`` list; index = variant index). Computed
        once: the redaction walk asks for it per value and per variant."""
        return tuple(n for n, _ in self.variants)


@dataclass(frozen=True)
class Untagged:
    """An untagged enum: the first alternative that deserializes wins."""

    name: str
    alternatives: tuple
    #: ``PermissionRule`` (FORMAT.md 4.15): a string alternative is written as ``{as_object: s}``.
    as_object: str | None = None



NONE = (None,)
EMPTY = ([],)  # skip_serializing_if = "Vec::is_empty"


def camel(name: str) -> str:
    """serde ``rename_all = "camelCase"`` of a snake_case Rust field name."""
    head, *rest = name.split("_")
    return head + "".join(w[:1].upper() + w[1:] for w in rest)
