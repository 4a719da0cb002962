"""The allow-list: which fields of a payload or descriptor may leave this machine in clear.

Data in ``allowlist.toml`` (JSON Pointer patterns, grouped with a sentence each, which the window
shows as "What leaves this machine"). Anything not matched is redacted: fail closed.

Pattern syntax: an RFC 6901 JSON Pointer in which ``*`` matches one array index and ``{a,b}``
matches any one of the alternatives (an alternative may contain ``/`` and ``*``). ``*`` never
matches an object key, so every key shown in clear is named.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

__all__ = ["AllowGroup", "AllowList", "DigestGroup", "allowlist", "compile_pattern"]


@dataclass(frozen=True)
class AllowGroup:
    """One group of ``allowlist.toml``: ``source`` (``payload``/``descriptor``), ``what`` (a
    sentence for people) and ``paths`` (patterns)."""

    source: str
    what: str
    paths: tuple[str, ...]


@dataclass(frozen=True)
class DigestGroup:
    """One ``[[digest]]`` table of ``allowlist.toml``: digest, size and token-estimate places classified
    by what they were computed over. ``treatment`` is ``clear`` (shown as its place and class allow),
    ``file`` (a digest of the files themselves: tagged like ``tag`` unless the gate is asked for the
    files' digests, :attr:`Gate.file_digests <inspector.ticket.gate.Gate>`) or ``tag`` (never shown: a marker of KIND ``kind``, always with the report's keyed tag);
    ``digests`` says what they digest or measure; ``paths`` are patterns."""

    source: str
    treatment: str
    digests: str
    paths: tuple[str, ...]
    kind: str | None = None


def compile_pattern(pattern: str) -> str:
    """Regular-expression source for one pattern (``*`` -> an array index, ``{a,b}`` -> ``(?:a|b)``).

    Raises:
        ValueError: unbalanced or nested braces.
    """
    out, depth = [], 0
    for ch in pattern:
        if ch == "{":
            if depth:
                raise ValueError(f"nested braces in allow-list pattern {pattern!r}")
            depth = 1
            out.append("(?:")
        elif ch == "}":
            if not depth:
                raise ValueError(f"unbalanced braces in allow-list pattern {pattern!r}")
            depth = 0
            out.append(")")
        elif ch == "," and depth:
            out.append("|")
        elif ch == "*":
            out.append("(?:0|[1-9][0-9]*)")
        else:
            out.append(re.escape(ch))
    if depth:
        raise ValueError(f"unbalanced braces in allow-list pattern {pattern!r}")
    return "".join(out)


class AllowList:
    """The compiled allow-list.

    Args:
        raw: the parsed ``allowlist.toml`` (``allow``, ``kind`` and ``keys`` tables).
        vocabulary: further strings of the format itself (field names, enum variants, schema
            constants) that may be shown when quoted in a message.
    """

    def __init__(self, raw: dict, vocabulary: frozenset = frozenset()):
        self.groups = tuple(AllowGroup(g["source"], g["what"], tuple(g["paths"])) for g in raw["allow"])
        self._allow = {}
        for source in ("payload", "descriptor"):
            pats = [compile_pattern(p) for g in self.groups if g.source == source for p in g.paths]
            self._allow[source] = re.compile("(?:" + "|".join(pats) + ")")
        self.digests = tuple(DigestGroup(d["source"], d["treatment"], d["digests"], tuple(d["paths"]), d.get("kind"))
                             for d in raw.get("digest", []))
        for d in self.digests:
            if d.treatment not in ("clear", "file", "tag") or (d.treatment != "clear") != bool(d.kind):
                raise ValueError(f"allow-list [[digest]] {d.digests!r}: treatment must be clear, or file or tag "
                                 "with a kind")
        self._withheld = {}
        for source in ("payload", "descriptor"):
            pats = [compile_pattern(p) for d in self.digests if d.source == source and d.treatment == "tag"
                    for p in d.paths]
            self._withheld[source] = re.compile("(?:" + "|".join(pats) + ")") if pats else None
        self._file = {}
        for source in ("payload", "descriptor"):
            pats = [compile_pattern(p) for d in self.digests if d.source == source and d.treatment == "file"
                    for p in d.paths]
            self._file[source] = re.compile("(?:" + "|".join(pats) + ")") if pats else None
        self._digest_kinds = [(d.source, d.kind, re.compile("(?:" + "|".join(compile_pattern(p) for p in d.paths) + ")"))
                              for d in self.digests if d.treatment != "clear"]
        #: the marker KIND of a digest of the files themselves (``[[digest]]`` treatment ``file``)
        self.file_kind = next((d.kind for d in self.digests if d.treatment == "file"), "digest of the files")
        #: marker KINDs that always carry the report's keyed tag (a digest or size of redacted content)
        self.tagged_kinds = frozenset(d.kind for d in self.digests if d.kind)
        self._kinds = [(k["kind"], re.compile("(?:" + "|".join(compile_pattern(p) for p in k["paths"]) + ")"))
                       for k in raw.get("kind", [])]
        literal = set()
        for g in self.groups:
            for p in g.paths:
                literal.update(s for s in re.split(r"[/{},]", p) if s and s != "*")
        for k in raw.get("kind", []):
            for p in k["paths"]:
                literal.update(s for s in re.split(r"[/{},]", p) if s and s != "*")
        #: object keys that may be shown in clear (field names of the format)
        self.known_keys = frozenset(literal) | frozenset(raw.get("keys", {}).get("known", ())) | vocabulary
        #: strings of the format itself: may be shown when a message quotes them
        self.vocabulary = self.known_keys
        self._shapes: dict = {}

    def allows(self, source: str, pointer: str) -> bool:
        """True when the value at ``pointer`` (RFC 6901, escaped) of a ``source`` file may be
        shown in clear (a container: kept as structure, its members judged one by one)."""
        pat = self._allow.get(source)
        if pat is None or pat.fullmatch(pointer) is None:
            return False
        return not self.withheld(source, pointer)

    def withheld(self, source: str, pointer: str) -> bool:
        """True when ``pointer`` is a digest or size place whose ``[[digest]]`` treatment is ``tag``:
        never shown in clear, whatever the allow-list's ``[[allow]]`` patterns say."""
        pat = self._withheld.get(source)
        return pat is not None and pat.fullmatch(pointer) is not None

    def file_digest(self, source: str, pointer: str) -> bool:
        """True when ``pointer`` is a digest of the files themselves (``[[digest]]`` treatment ``file``):
        shown in clear only when the report is asked for the files' digests."""
        pat = self._file.get(source)
        return pat is not None and pat.fullmatch(pointer) is not None

    def allows_shape(self, source: str, shape: str) -> bool:
        """:meth:`allows` for a pointer whose array indices are all written ``0`` (its *shape*),
        remembered: the walks over a document ask once per shape, not once per value."""
        key = (source, shape)
        hit = self._shapes.get(key)
        if hit is None:
            hit = self._shapes[key] = self.allows(source, shape)
        return hit

    def kind(self, source: str, pointer: str) -> str:
        """What a redacted value at ``pointer`` is (``message text``, ``tool input``, ...): the
        first ``[[kind]]`` group matching the pointer or one of its ancestors; ``value`` if none.
        A digest or size place withheld by ``[[digest]]`` is named by its table's ``kind``."""
        for src, name, pat in self._digest_kinds:
            if src == source and pat.fullmatch(pointer):
                return name
        if source == "payload":
            p = pointer
            while True:
                for name, pat in self._kinds:
                    if pat.fullmatch(p):
                        return name
                if not p:
                    break
                p = p.rsplit("/", 1)[0]
        return "value"

    def key_known(self, key: str) -> bool:
        """True when an object key may be shown in clear."""
        return key in self.known_keys


@lru_cache(maxsize=1)
def allowlist() -> AllowList:
    """The packaged allow-list (``allowlist.toml``) with the engine's typed layout's field names,
    enum variants and constants as vocabulary. Loaded once."""
    raw = tomllib.loads(resources.files(__package__).joinpath("allowlist.toml").read_text("utf-8"))
    return AllowList(raw, _schema_vocabulary())


def _schema_vocabulary() -> frozenset:
    """Every string constant of :mod:`inspector.checkpoint.schema.model` (field names, aliases, enum
    variants, tags, type names, default values): words of the format, never customer content."""
    from inspector.checkpoint.schema import model as schema

    seen, out = set(), set()
    stack = [v for k, v in vars(schema).items() if not k.startswith("_")]
    while stack:
        obj = stack.pop()
        if isinstance(obj, str):
            out.add(obj)
        elif isinstance(obj, (tuple, list, set, frozenset)):
            stack.extend(obj)
        elif isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif hasattr(obj, "__dataclass_fields__") and not isinstance(obj, type) and id(obj) not in seen:
            seen.add(id(obj))
            stack.extend(getattr(obj, f) for f in obj.__dataclass_fields__)
    return frozenset(out)
