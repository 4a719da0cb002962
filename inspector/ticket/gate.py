"""The one redaction gate: every value from the files that reaches a shareable output passes here.

A value is shown only when it is proven harmless, by value:

1. its place is on the allow-list (:mod:`.allowlist`, ``[[allow]]``), and
2. it passes the check of the class of value its place holds: from the typed layout where the
   reference types the field (an integer in an integer field, a number in a float field, a boolean,
   one of an enum's variants or a tag's, an RFC 3339 timestamp), else the ``[[class]]`` the
   allow-list names for that String place (digest, id, schema, media type, listed values, word of
   the format). A String place with no class shows nothing.

Everything else is replaced whole by a marker ``[redacted: KIND, N bytes]`` (optionally with a tag
that is keyed per report, see :class:`Gate`). Engine texts are :class:`~inspector.checkpoint.slotted.Text`:
our words pass as they are, each slot (a value from a file, with its place) goes through the same
checks; a plain ``str`` from the engine is of unknown origin and is replaced whole. Nothing here
parses a message back to find what it quotes.

Qt-free; used by the ticket report (every format), Copy for ticket, Export Report and the redacted
payload alike.
"""

from __future__ import annotations

from inspector.checkpoint.jsontext.pointer import escape as escape_pointer_token, unescape as unescape_token

import hashlib
import hmac
import re
import secrets
import tomllib
import unicodedata
from collections import Counter
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

from inspector.checkpoint.schema import model as S
from inspector.checkpoint.digest import is_valid_id
from inspector.checkpoint.schema.kinds import Enum, Map, Opt, Prim, Set, Struct, Tagged, Untagged, Vec
from inspector.checkpoint.slotted import KEY, POINTER, RELATIVE, VARIANT, Slot, Text

from . import jsonstack
from .allowlist import AllowList, allowlist, compile_pattern
from .credentials import CREDENTIAL_SHAPED, credential_reason

__all__ = ["Gate", "ValueClass", "marker", "types_at", "child_types", "place_classes", "TAG_NOTE", "UNLABELLED",
           "CREDENTIAL_ID"]

#: What the redaction tags allow, said in every report that carries them.
TAG_NOTE = ("each redacted value carries a tag: HMAC-SHA256 of the value under a random key made for this "
            "report and never written, first 8 hex digits. Two equal values in this report have the same tag; "
            "a tag cannot be checked against a guessed value, here or in any other report")

#: The marker KIND of an engine text that carries no provenance (a plain ``str``): replaced whole.
#: Never seen in practice (every engine text is a ``Text``); a test fails if it is.
UNLABELLED = "unlabelled text"

#: The marker KIND of a value of the id class that looks like a credential or a personal number
#: (:mod:`.credentials`): redacted and counted ("1 id redacted: credential-shaped").
CREDENTIAL_ID = f"{CREDENTIAL_SHAPED} id"

_INT = frozenset({"u16", "u32", "u64", "usize", "i32", "i64"})
_FLOAT = frozenset({"f32", "f64"})
#: RFC 3339 with its fields in range (a timestamp carries no free digits beyond its fraction).
_RFC3339 = re.compile(r"(?:19[7-9][0-9]|2[01][0-9]{2})-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])"
                      r"T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](?:\.[0-9]{1,9})?(?:Z|[+-](?:[01][0-9]|2[0-3]):[0-5][0-9])")
_DIGEST = re.compile(r"(?:sha256:)?[0-9a-f]{64}")
_GIT_OBJECT = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
#: An id or name: one token of letters, digits and ``_ . -`` (no ``/ : @ =``: no path, URL, address
#: or base64 blob), at most 64 characters; it must also not look like a credential (:mod:`.credentials`).
_ID_TOKEN = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}")
_INDEX = re.compile(r"0|[1-9][0-9]*")
_SCHEMA = re.compile(r"(?=.{1,128}$)[a-z][a-z0-9_-]*(?:\.[a-z0-9_-]+)+")
#: Types the reference reads out of a free-form value (``tool_end`` metadata, FORMAT.md 4.7.3).
_EMBEDDED = {"a3s_tool_result_evidence": S.TOOL_RESULT_EVIDENCE,
             "a3s_tool_result_transform_binding": S.TOOL_RESULT_TRANSFORM_BINDING}
_ROOTS = {"payload": (S.PAYLOAD,), "descriptor": (S.DESCRIPTOR,)}


def marker(kind: str, size: int, tag: str | None = None) -> str:
    """``[redacted: KIND, N bytes]`` or, with a tag, ``[redacted: KIND, N bytes, tag 1234abcd]``."""
    return f"[redacted: {kind}, {size} byte{'' if size == 1 else 's'}" + (f", tag {tag}" if tag else "") + "]"


# ------------------------------------------------------------------------------- typed layout
def _flat(types, node=None) -> list:
    """``types`` with Option and untagged unions opened; a tagged union narrowed to the variant
    ``node`` names by its tag (all variants when ``node`` does not say)."""
    out, stack = [], list(types)
    while stack:
        t = stack.pop()
        if isinstance(t, Opt):
            stack.append(t.inner)
        elif isinstance(t, Untagged):
            stack.extend(t.alternatives)
        else:
            out.append(t)
    return out


def child_types(types: tuple, key: str, node=None) -> tuple:
    """The types of member ``key`` (an object key, or an array index as digits) of a value of one of
    ``types``; ``node`` is that value (its tag picks a tagged union's variant). Empty: free-form or
    unknown (nothing inside is typed)."""
    out = []
    for t in _flat(types):
        if isinstance(t, Struct):
            f = t.by_key.get(key)
            if f is not None:
                out.append(f.type)
        elif isinstance(t, Tagged):
            if key == t.tag:
                out.append(Enum(t.name, t.names))
                continue
            tag = node.get(t.tag) if isinstance(node, dict) else None
            for name, v in t.variants:
                if isinstance(v, Struct) and (tag is None or tag not in t.names or name == tag):
                    f = v.by_key.get(key)
                    if f is not None:
                        out.append(f.type)
        elif isinstance(t, (Vec, Set)):
            if key.isdigit():
                out.append(t.inner)
        elif isinstance(t, Map):
            out.append(t.value)
        elif isinstance(t, Prim) and t.name == "value" and key in _EMBEDDED:
            out.append(_EMBEDDED[key])
    return tuple(out)


def types_at(source: str, pointer: str, doc=None) -> tuple:
    """The typed layout's types at ``pointer`` (RFC 6901) of a ``source`` file, narrowed by the tags
    in ``doc`` (the parsed file) when given. Empty when the place is free-form or not in the layout."""
    types = _ROOTS.get(source, ())
    node = doc
    for seg in pointer.split("/")[1:] if pointer else ():
        key = unescape_token(seg)
        types = child_types(types, key, node)
        if not types:
            return ()
        if isinstance(node, dict):
            node = node.get(key)
        elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
            node = node[int(key)]
        else:
            node = None
    return types


def declares(types: tuple, key: str, node=None) -> bool:
    """True when a value of ``types`` is a struct (or tagged variant) that declares the field ``key``."""
    for t in _flat(types):
        if isinstance(t, Struct) and key in t.by_key:
            return True
        if isinstance(t, Tagged) and (key == t.tag or child_types((t,), key, node)):
            return True
    return False


def is_struct(types: tuple) -> bool:
    """True when a value of ``types`` is a struct or tagged union (its keys are field names)."""
    return any(isinstance(t, (Struct, Tagged)) for t in _flat(types))


# ------------------------------------------------------------------------------- value classes
@dataclass(frozen=True)
class ValueClass:
    """A class of String value a place may show (``allowlist.toml`` ``[[class]]``): ``name``,
    ``check`` (``digest``, ``git object``, ``id``, ``schema``, ``values``, ``word``), ``values``."""

    name: str
    check: str
    values: frozenset = frozenset()

    def accepts(self, v: str, vocabulary: frozenset) -> bool:
        """True when the string ``v`` is of this class (see ``allowlist.toml`` for each check)."""
        c = self.check
        if c == "digest":
            return _DIGEST.fullmatch(v) is not None
        if c == "git object":
            return _GIT_OBJECT.fullmatch(v) is not None
        if c == "id":
            return id_shaped(v) and credential_reason(v) is None
        if c == "schema":
            return _SCHEMA.fullmatch(v) is not None
        if c == "values":
            return v in self.values
        if c == "word":
            return v in vocabulary
        return False


def id_shaped(v: str) -> bool:
    """True when ``v`` passes the reference's id check and is one token of at most 64 letters, digits
    and ``_ . -`` (the id class before its credential check)."""
    return is_valid_id(v) and _ID_TOKEN.fullmatch(v) is not None and _no_format_chars(v)


def _no_format_chars(v: str) -> bool:
    return not any(unicodedata.category(ch) in ("Cf", "Cc", "Zl", "Zp", "Zs") for ch in v)


class _Classes:
    """The ``[[class]]`` tables: a String place's class by its pointer (``paths``) or its key (``fields``)."""

    def __init__(self, raw: list):
        self.by_field: dict[str, ValueClass] = {}
        self.by_path: list[tuple[re.Pattern, ValueClass]] = []
        for c in raw:
            vc = ValueClass(c["name"], c["check"], frozenset(c.get("values", ())))
            for f in c.get("fields", ()):
                self.by_field[f] = vc
            for p in c.get("paths", ()):
                self.by_path.append((re.compile(compile_pattern(p)), vc))

    def of(self, pointer: str) -> ValueClass | None:
        for pat, vc in self.by_path:
            if pat.fullmatch(pointer):
                return vc
        last = unescape_token(pointer.rsplit("/", 1)[-1])
        return None if last.isdigit() else self.by_field.get(last)


@lru_cache(maxsize=1)
def _classes() -> _Classes:
    raw = tomllib.loads(resources.files(__package__).joinpath("allowlist.toml").read_text("utf-8"))
    return _Classes(raw.get("class", []))


def typed_class(types: tuple) -> str | None:
    """The class the typed layout gives a scalar place (``integer``, ``number``, ``boolean``,
    ``enum``, ``timestamp``), ``string`` for a plain String, or ``None`` (free-form, container)."""
    kinds = set()
    for t in _flat(types):
        if isinstance(t, Prim):
            kinds.add("integer" if t.name in _INT else "number" if t.name in _FLOAT else "boolean" if t.name == "bool"
                      else "timestamp" if t.name == "timestamp" else "string" if t.name == "str" else None)
        elif isinstance(t, Enum):
            kinds.add("enum")
    kinds.discard(None)
    for k in ("enum", "timestamp", "integer", "number", "boolean", "string"):
        if k in kinds:
            return k
    return None


def scalar_shown(types: tuple, pointer: str, v, vocabulary: frozenset) -> tuple[bool, str]:
    """``(shown, class name)`` for a scalar ``v`` at a place of ``types`` (already allow-listed). A
    value of the id class refused only because it looks like a credential gets :data:`CREDENTIAL_ID`
    as its class name (its marker's KIND)."""
    if v is None or v == "":
        return True, "null" if v is None else "empty"  # null and "" carry no content
    flat = _flat(types)
    if isinstance(v, bool):
        return any(isinstance(t, Prim) and t.name == "bool" for t in flat), "boolean"
    if isinstance(v, int):
        return any(isinstance(t, Prim) and (t.name in _INT or t.name in _FLOAT) for t in flat), "integer"
    if isinstance(v, float):
        return any(isinstance(t, Prim) and t.name in _FLOAT for t in flat), "number"
    if not isinstance(v, str):
        return False, "value"
    for t in flat:
        if isinstance(t, Enum) and v in t.variants:
            return True, "enum"
        if isinstance(t, Prim) and t.name == "timestamp" and _RFC3339.fullmatch(v):
            return True, "timestamp"
    if any(isinstance(t, Prim) and t.name == "str" for t in flat):
        vc = _classes().of(pointer)
        if vc is not None:
            if vc.accepts(v, vocabulary):
                return True, vc.name
            if vc.check == "id" and id_shaped(v):
                return False, CREDENTIAL_ID  # an id that looks like a credential: its marker says so
            return False, vc.name
    return False, "text"


def place_classes(allow: AllowList | None = None) -> Counter:
    """How many allow-listed places show values, by class: every leaf place
    the allow-list names (``*`` as one index), classed by :func:`typed_class` and, for String places,
    by ``[[class]]``; ``none`` for a String place no class names (it shows nothing), ``container``
    for objects and arrays (structure only), ``untyped`` where the typed layout has no such field."""
    allow = allow or allowlist()
    out: Counter = Counter()
    for g in allow.groups:
        for p in g.paths:
            for place in _expand(p):
                types = types_at(g.source, place.replace("*", "0"))
                cls = typed_class(types)
                if cls == "string":
                    vc = _classes().of(place.replace("*", "0"))
                    cls = f"string: {vc.name}" if vc else "string: none (shows nothing)"
                elif cls is None:
                    cls = "container" if any(isinstance(t, (Struct, Tagged, Vec, Set, Map)) for t in _flat(types)) \
                        else "untyped (shows nothing)"
                out[cls] += 1
    return out


def _expand(pattern: str) -> list[str]:
    m = re.search(r"\{([^}]*)\}", pattern)
    if not m:
        return [pattern]
    out = []
    for alt in m.group(1).split(","):
        out += _expand(pattern[:m.start()] + alt + pattern[m.end():])
    return out


# ------------------------------------------------------------------------------------ the gate
class Gate:
    """Renders values and engine texts of one report (and its redacted payload) for sharing.

    Args:
        docs: the parsed payload and descriptor (``{"payload": value, ...}``; a source absent or
            unparsable is judged without its tags: every variant of a tagged union counted).
        tags: give each marker a tag (:data:`TAG_NOTE`): HMAC-SHA256 under ``key``.
        key: the tag key (random per gate when ``None``); never written anywhere.
        allow: the allow-list (default the packaged one).
        file_digests: show the digests of the files themselves (the payload's and the descriptor's
            SHA-256, the descriptor's content, evidence and descriptor digests, and the same values
            recomputed) in clear. Default ``False``: each is a tagged marker of KIND ``digest of the
            files``, because beside a redacted payload each one tests a guess at every short redacted
            value (``allowlist.toml`` ``[[digest]]`` treatment ``file``).

    Attributes:
        count: markers written so far.
        redacted: markers written so far, by KIND (``Counter``; ``credential-shaped id`` among them).
        shown: values shown in clear so far, by class (``Counter``).
    """

    def __init__(self, docs: dict | None = None, *, tags: bool = False, key: bytes | None = None,
                 allow: AllowList | None = None, file_digests: bool = False):
        self.allow = allow or allowlist()
        self.file_digests = file_digests
        self.docs = dict(docs or {})
        self.tags = tags
        self.key = key if key is not None else secrets.token_bytes(32)
        self.count = 0
        self.redacted: Counter = Counter()
        self.shown: Counter = Counter()

    # -- markers ------------------------------------------------------------------------------
    def tag(self, raw: bytes) -> str:
        """First 8 hex digits of HMAC-SHA256(key, raw)."""
        return hmac.new(self.key, raw, hashlib.sha256).hexdigest()[:8]

    def tagged(self, kind: str) -> bool:
        """True when a marker of ``kind`` carries the keyed tag: when the report asked for tags, and
        always for a digest or size of redacted content (``allowlist.toml`` ``[[digest]]``)."""
        return self.tags or kind in self.allow.tagged_kinds

    def mark(self, v, kind: str) -> str:
        """The marker replacing ``v`` (a string: its UTF-8 bytes; anything else: its compact JSON)."""
        self.count += 1
        self.redacted[kind] += 1
        raw = (v if isinstance(v, str) else _compact(v)).encode("utf-8", "surrogatepass")
        return marker(kind, len(raw), self.tag(raw) if self.tagged(kind) else None)

    # -- judging ------------------------------------------------------------------------------
    def shows(self, source: str | None, pointer: str | None, v) -> bool:
        """True when the value ``v`` read at ``pointer`` of ``source`` may be shown in clear: its
        place is allow-listed (and not a withheld digest or size, ``[[digest]]``) and ``v`` passes
        its place's class (a container: every member does)."""
        return self.judge(source, pointer, v)[0]

    def judge(self, source: str | None, pointer: str | None, v) -> tuple[bool, str | None]:
        """``(shown, kind)``: :meth:`shows`, and the marker KIND the value gets when its own value
        decides it (:data:`CREDENTIAL_ID`), else ``None`` (the place's KIND applies)."""
        if source is None or pointer is None or source == RELATIVE:
            return v is None or isinstance(v, bool), None
        if not self.allow.allows(source, pointer) or self._digit_key_in_object(source, pointer):
            return False, None
        if not self.file_digests and self.allow.file_digest(source, pointer):
            return False, self.allow.file_kind
        types = types_at(source, pointer, self.docs.get(source))
        if isinstance(v, (dict, list)):
            return self._container_shown(source, pointer, v, types), None
        ok, cls = scalar_shown(types, pointer, v, self.allow.vocabulary)
        if ok:
            self.shown[cls] += 1
        return ok, (cls if cls == CREDENTIAL_ID else None)

    def _digit_key_in_object(self, source: str, pointer: str) -> bool:
        """True when a segment of ``pointer`` that reads as an array index names an object's key in the
        parsed file (the allow-list's ``*`` matches indices only; such a key is content)."""
        node = self.docs.get(source)
        for seg in pointer.split("/")[1:] if pointer else ():
            key = unescape_token(seg)
            if isinstance(node, dict):
                if _INDEX.fullmatch(key):
                    return True
                node = node.get(key)
            elif isinstance(node, list) and _INDEX.fullmatch(key) and int(key) < len(node):
                node = node[int(key)]
            else:
                return False
        return False

    def _container_shown(self, source: str, pointer: str, v, types: tuple) -> bool:
        stack = [(v, pointer, types)]
        while stack:
            node, ptr, ts = stack.pop()
            if isinstance(node, dict):
                for k, c in node.items():
                    p = f"{ptr}/{_esc(k)}"
                    if _INDEX.fullmatch(k) or not self.allow.allows(source, p):
                        return False
                    stack.append((c, p, child_types(ts, k, node)))
            elif isinstance(node, list):
                stack.extend((c, f"{ptr}/{i}", child_types(ts, str(i), node)) for i, c in enumerate(node))
            elif not scalar_shown(ts, ptr, node, self.allow.vocabulary)[0]:
                return False
        return True

    def key_shown(self, source: str | None, parent: str | None, key: str) -> bool:
        """True when the object key ``key`` (of the object at ``parent``, or of an unknown place) may be
        shown: a field the typed layout declares there, or a known field name (``[keys]``) of a struct;
        never a key of a free-form value. At an unknown place: a word of the format."""
        if not key or not all(ch.isascii() for ch in key) or _INDEX.fullmatch(key) or key.isdigit():
            return key != "" and key in self.allow.known_keys and key.isascii() and not key.isdigit()
        if source is None or parent is None or source == RELATIVE:
            return key in self.allow.known_keys
        if self.allow.allows(source, f"{parent}/{_esc(key)}"):
            return True
        types = types_at(source, parent, self.docs.get(source))
        return declares(types, key) or (is_struct(types) and key in self.allow.known_keys and not key.isdigit())

    # -- rendering ----------------------------------------------------------------------------
    def value(self, v, source: str | None, pointer: str | None, kind: str | None = None):
        """``v`` (read at ``pointer`` of ``source``) itself when shown, else its marker (``str``).
        ``None`` stays ``None``."""
        if v is None:
            return None
        ok, own = self.judge(source, pointer, v)
        if ok:
            return v
        return self.mark(v, own or kind or self.kind(source, pointer))

    def file_value(self, v: str | None) -> str | None:
        """A digest of the files themselves that was computed here rather than read at a place (a file's
        SHA-256, a recomputed content or evidence digest): ``v`` when :attr:`file_digests`, else its
        tagged marker (the same tag as the descriptor's stated value when the two are equal)."""
        if v is None or self.file_digests:
            return v
        return self.mark(v, self.allow.file_kind)

    def kind(self, source: str | None, pointer: str | None) -> str:
        """The marker's KIND for a value at that place (``allowlist.toml`` ``[[kind]]``)."""
        if source is None or pointer is None or source == RELATIVE:
            return "value"
        return self.allow.kind(source, pointer)

    def pointer(self, source: str | None, pointer: str) -> str:
        """A JSON Pointer into ``source`` with every key that may not be shown replaced by a marker."""
        if not pointer:
            return pointer
        segs, at = [], ""
        for seg in pointer.split("/")[1:]:
            key = unescape_token(seg)
            index = _INDEX.fullmatch(seg) is not None and self._is_array(source, at)
            shown = index or self.key_shown(source, at, key)
            segs.append(seg if shown else self.mark(key, "key"))
            at = f"{at}/{seg}"
        return "/" + "/".join(segs)

    def _is_array(self, source: str | None, pointer: str) -> bool:
        """True when the value at ``pointer`` is an array: in the parsed file when there is one, else
        by the typed layout (a sequence or set there)."""
        if source in self.docs:
            node = self.docs[source]
            for seg in pointer.split("/")[1:] if pointer else ():
                key = unescape_token(seg)
                if isinstance(node, dict):
                    node = node.get(key)
                elif isinstance(node, list) and _INDEX.fullmatch(key) and int(key) < len(node):
                    node = node[int(key)]
                else:
                    return False
            return isinstance(node, list)
        return source is not None and any(isinstance(t, (Vec, Set)) for t in _flat(types_at(source, pointer)))

    def slot(self, piece: str, s: Slot) -> str:
        """One slot of an engine text: its printed form when its value is shown, else a marker."""
        if s.role == POINTER:
            return self.pointer(s.source, str(s.value))
        if s.role == KEY:
            parent = None if s.pointer is None else s.pointer.rsplit("/", 1)[0]
            return piece if self.key_shown(s.source, parent, str(s.value)) else self.mark(s.value, "key")
        if s.role == VARIANT and (s.source is None or s.pointer is None):
            return piece if isinstance(s.value, str) and s.value in self.allow.vocabulary else self.mark(s.value, "value")
        ok, own = self.judge(s.source, s.pointer, s.value)
        if ok:
            return piece
        return self.mark(s.value, own or self.kind(s.source, s.pointer))

    def text(self, t) -> str | None:
        """An engine text for sharing: a :class:`~inspector.checkpoint.slotted.Text`'s words as they
        are and each slot through :meth:`slot`; a plain ``str`` (no provenance) replaced whole."""
        if t is None:
            return None
        if not isinstance(t, Text):
            return self.mark(str(t), UNLABELLED)
        return "".join(piece if s is None else self.slot(piece, s) for piece, s in t.pieces())


def _esc(key: str) -> str:
    return escape_pointer_token(key)


def _compact(v) -> str:
    return jsonstack.dumps(v)
