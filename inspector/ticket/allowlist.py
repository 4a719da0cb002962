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

__all__ = ["AllowGroup", "AllowList", "allowlist", "compile_pattern"]


@dataclass(frozen=True)
class AllowGroup:
    """One group of ``allowlist.toml``: ``source`` (``payload``/``descriptor``), ``what`` (a
    sentence for people) and ``paths`` (patterns)."""

    source: str
    what: str
    paths: tuple[str, ...]


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
        first ``[[kind]]`` group matching the pointer or one of its ancestors; ``value`` if none."""
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
