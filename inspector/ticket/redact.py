"""Redaction, decided by the allow-list (fail closed), for ticket reports and redacted payloads.

Two jobs:

* :func:`redact_payload`: a copy of a payload (or descriptor) in which every value the allow-list
  does not name is replaced by ``"[redacted: KIND, N bytes]"`` (``N``: UTF-8 bytes of the string,
  or of the compact JSON of any other value), with every replacement listed.
* :class:`Redactor`: the texts of a report (messages, notes, expected/actual values, locations).
  Expected/actual values are shown only when they come from a field in clear; quoted parts of
  messages (``"…"``, `` `…` ``, ``'…'``) only when they quote a value in clear or a word of the
  format itself; and any occurrence of a redacted string of the files (4 bytes or longer, raw
  or escaped) is replaced wherever it appears.

Verification never sees any of this: it runs on the original bytes first.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass


from . import jsonstack
from .allowlist import AllowList, allowlist

__all__ = ["Replacement", "marker", "redact_value", "redact_payload", "Redactor", "PARSE_LIMIT"]

#: Files larger than this are not parsed for redaction (the report then shows fewer values).
PARSE_LIMIT = 32 << 20
_MIN_SECRET = 4


@dataclass(frozen=True)
class Replacement:
    """One redaction in a redacted payload: ``pointer`` (JSON Pointer as shown: keys that are
    themselves redacted appear as their marker), ``kind``, ``size`` (bytes), ``what``
    (``value`` or ``key``), ``digest`` (``sha256:`` + 8 hex, only when opted in)."""

    pointer: str
    kind: str
    size: int
    what: str = "value"
    digest: str | None = None


def marker(kind: str, size: int, digest: str | None = None) -> str:
    """``[redacted: KIND, N bytes]`` or, with an opted-in digest, ``[redacted: KIND, N bytes, sha256:1234abcd]``."""
    return f"[redacted: {kind}, {size} byte{'' if size == 1 else 's'}" + (f", {digest}" if digest else "") + "]"


def _prefix(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()[:8]


def _compact(v) -> str:
    return jsonstack.dumps(v)


def _esc(key: str) -> str:
    return key.replace("~", "~0").replace("/", "~1")


def _unesc(seg: str) -> str:
    return seg.replace("~1", "/").replace("~0", "~")


def _key_shown(allow: AllowList, key: str) -> bool:
    return allow.key_known(key) and not key.isdigit()


def _word(allow: AllowList, s: str) -> bool:
    """A string that may be shown wherever it is: a word of the format or a number/digest."""
    return s in allow.vocabulary or _HARMLESS.fullmatch(s) is not None


def redact_value(value, source: str, *, hash_prefix: bool = False, trusted: bool = True,
                 allow: AllowList | None = None):
    """Redact a parsed JSON value (dicts keep their key order).

    Args:
        value: the parsed document. source: ``payload`` or ``descriptor`` (which patterns apply).
        trusted: the document decodes as its typed layout (P-PARSE / D-PARSE pass), so every
            field in clear holds its declared type. When ``False``, a string in a field in clear
            is shown only if it is a word of the format or a number or digest: in a document that
            does not decode, free text may sit where an id or enum belongs.
        hash_prefix: add the first 8 hex digits of each redacted value's SHA-256 (opt-in: a
            short digest lets engineering compare values without seeing them, but also lets
            anyone confirm a guessed value).

    Returns:
        ``(redacted_value, [Replacement, ...])`` in document order. Walks with an explicit stack.
    """
    allow = allow or allowlist()
    reps: list[Replacement] = []
    holder = [None]
    stack = [(value, "", "", "", holder, 0, False)]  # (value, pointer, shape, shown pointer, parent, slot, forced)
    n_keys = 0
    while stack:
        v, ptr, shape, shown, parent, slot, forced = stack.pop()
        if v is None or (isinstance(v, (dict, list)) and not v):
            out = v  # null, {} and [] carry no content: kept, so the structure stays readable
        elif forced or not allow.allows_shape(source, shape) or (not trusted and isinstance(v, str)
                                                                 and not _word(allow, v)):
            text = v if isinstance(v, str) else _compact(v)
            raw = text.encode("utf-8", "surrogatepass")
            kind = allow.kind(source, ptr)
            digest = _prefix(raw) if hash_prefix else None
            out = marker(kind, len(raw), digest)
            reps.append(Replacement(shown, kind, len(raw), "value", digest))
        elif isinstance(v, dict):
            out = {}
            children = []
            for k, child in v.items():
                if _key_shown(allow, k):
                    key = k
                else:
                    n_keys += 1
                    raw = k.encode("utf-8", "surrogatepass")
                    digest = _prefix(raw) if hash_prefix else None
                    key = f"[redacted key #{n_keys}: {len(raw)} bytes" + (f", {digest}" if digest else "") + "]"
                    reps.append(Replacement(f"{shown}/{_esc(key)}", "key", len(raw), "key", digest))
                out[key] = None
                ek = _esc(k)
                children.append((child, f"{ptr}/{ek}", f"{shape}/{ek}", f"{shown}/{_esc(key)}", out, key, key != k))
            stack.extend(reversed(children))
        elif isinstance(v, list):
            out = [None] * len(v)
            stack.extend(reversed([(c, f"{ptr}/{i}", shape + "/0", f"{shown}/{i}", out, i, False)
                                   for i, c in enumerate(v)]))
        else:
            out = v
        parent[slot] = out
    return holder[0], reps


def _parse(data: bytes):
    """Parse JSON leniently for redaction, at any nesting depth (orjson; past its 1024 levels
    or its 64-bit integers, the explicit-stack reader :func:`.jsonstack.loads`).

    Raises:
        ValueError: not JSON (``not valid JSON (<reason> at character N)``).
    """
    import orjson

    body = data[3:] if data[:3] == b"\xef\xbb\xbf" else data
    try:
        return orjson.loads(body)
    except orjson.JSONDecodeError:
        pass
    try:
        return jsonstack.loads(body.decode("utf-8"))
    except ValueError as e:
        raise ValueError(f"not valid JSON ({e})") from None


def redact_payload(data: bytes, *, source: str = "payload", hash_prefix: bool = False,
                   trusted: bool = False) -> tuple[bytes, list[Replacement]]:
    """A redacted copy of a payload's (or descriptor's) bytes, for review and sharing.

    The copy is compact JSON (UTF-8, keys in file order) and is *not* a checkpoint: its digests no
    longer match. Verification always runs on the original bytes.

    Args:
        trusted: the file decodes as its typed layout (see :func:`redact_value`); the default,
            ``False``, shows fewer values.

    Returns:
        ``(bytes, replacements)``.

    Raises:
        ValueError: the file is not JSON, so no redacted copy can be made.
    """
    value, reps = redact_value(_parse(data), source, hash_prefix=hash_prefix, trusted=trusted)
    return jsonstack.dumps(value).encode("utf-8", "surrogatepass"), reps


# Quoted parts of a message: Rust/JSON "…" (with escapes), serde's `…`, Python's '…' (a quote
# that does not follow a letter, so the apostrophe of "payload's" is not taken for one).
_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"|`([^`]*)`|(?<![A-Za-z])\'((?:[^\'\\]|\\.)*)\'(?![A-Za-z])', re.S)
#: Texts that quote a value between backticks without escaping it (serde's unknown variant/field,
#: the reference's durable-memory profile texts): the value runs to the *last* backtick before the
#: words that follow it, so a value holding backticks is still caught whole (the generic pairing of
#: ``_QUOTED`` would split it and show the parts between its backticks).
_BACKTICK_VALUES = (
    re.compile(r"unknown (?:variant|field) `(.*)`(?=, (?:expected|there are no) )", re.S),
    re.compile(r"profile `(.*)`(?= is incompatible with )", re.S),
    re.compile(r"unrecognized durable-memory (?:retrieval|context identity) profile `(.*)`$", re.S),
)
_HARMLESS = re.compile(r"-?[0-9][0-9.eE+-]*|sha256:[0-9a-f]*|[0-9a-f]{64}|")
#: Rust's ``{:?}`` escapes of ASCII characters inside a ``str`` (char::escape_debug).
_RUST_ASCII = {c: f"\\u{{{c:x}}}" for c in list(range(0x20)) + [0x7F]}
_RUST_ASCII.update({0: "\\0", 9: "\\t", 10: "\\n", 13: "\\r", 0x22: '\\"', 0x5C: "\\\\"})
_RUST_ASCII_RE = re.compile('[\x00-\x1f\x7f"\\\\]')
_STRING_TOKEN = re.compile(rb'"((?:[^"\\]|\\.)*)"', re.S)


class Redactor:
    """Redacts the texts of one report.

    Args:
        payload, descriptor: the original file bytes (``None`` when absent).
        hash_prefix: add ``sha256:`` + 8 hex of each redacted value (opt-in).

    Attributes:
        count: how many replacements the report's texts received.
    """

    def __init__(self, payload: bytes | None, descriptor: bytes | None, *, hash_prefix: bool = False,
                 trusted: dict | None = None, allow: AllowList | None = None):
        self.allow = allow or allowlist()
        #: per source: it decodes as its typed layout (see :func:`redact_value`); default False
        self.trusted = dict(trusted or {})
        self.hash_prefix = hash_prefix
        self.count = 0
        self.docs: dict = {}
        self.clear: set[str] = set()
        secrets: set[str] = set()
        self.strict = False
        for source, data in (("payload", payload), ("descriptor", descriptor)):
            if data is None:
                continue
            if len(data) > PARSE_LIMIT:
                self.strict = True
                continue
            try:
                doc = _parse(data)
            except ValueError:
                secrets.update(self._tokens(data))
                continue
            self.docs[source] = doc
            self._collect(source, doc, secrets)
        secrets -= self.clear
        secrets -= self.allow.vocabulary
        forms: set[str] = set()
        for s in secrets:
            forms.add(s)
            forms.add(json.dumps(s, ensure_ascii=False)[1:-1])
            # Rust's {:?} of its ASCII characters (a {:?} text is always quoted, so the quote guard
            # of text() catches it whole; this form finds a piece of one in a snippet)
            forms.add(_RUST_ASCII_RE.sub(lambda m: _RUST_ASCII[ord(m.group())], s))
            forms.add(repr(s)[1:-1])  # Python's quoting, as diagnoses name keys
            forms.add(_esc(s))  # as a JSON Pointer segment (~0, ~1)
        self._index: dict[str, list[str]] = {}
        for f in forms:
            if len(f) >= _MIN_SECRET:
                self._index.setdefault(f[:_MIN_SECRET], []).append(f)
        for lst in self._index.values():
            lst.sort(key=len, reverse=True)

    # -- collecting ---------------------------------------------------------------------------
    def _collect(self, source: str, doc, secrets: set) -> None:
        """Sort every string (values and keys) of ``doc`` into clear or secret."""
        stack = [(doc, "", True)]  # (value, shape: the pointer with every index 0, in clear so far)
        while stack:
            v, shape, ok = stack.pop()
            ok = ok and self.allow.allows_shape(source, shape)
            if isinstance(v, dict):
                for k, child in v.items():
                    shown = _key_shown(self.allow, k)
                    if not shown:
                        secrets.add(k)
                    stack.append((child, f"{shape}/{_esc(k)}", ok and shown))
            elif isinstance(v, list):
                child_shape = shape + "/0"
                stack.extend((c, child_shape, ok) for c in v)
            elif isinstance(v, str):
                shown = ok and (self.trusted.get(source) or _word(self.allow, v))
                (self.clear if shown else secrets).add(v)

    def _tokens(self, data: bytes) -> set[str]:
        """Every JSON string token of bytes that are not valid JSON (all of them secret)."""
        out = set()
        for m in _STRING_TOKEN.finditer(data):
            try:
                out.add(json.loads(m.group(0).decode("utf-8", "replace")))
            except ValueError:
                out.add(m.group(1).decode("utf-8", "replace"))
        return out

    # -- judging ------------------------------------------------------------------------------
    def _node(self, source: str, pointer: str):
        doc = self.docs.get(source)
        if doc is None:
            return None, False
        node = doc
        for seg in pointer.split("/")[1:] if pointer else ():
            key = _unesc(seg)
            if isinstance(node, dict) and key in node:
                node = node[key]
            elif isinstance(node, list) and key.isdigit() and int(key) < len(node):
                node = node[int(key)]
            else:
                return None, False
        return node, True

    def location_clear(self, source: str, pointer: str) -> bool:
        """True when everything at ``pointer`` of ``source`` may be shown: the pointer is allowed,
        each of its keys is a field name, and (for an object or array) every value inside is."""
        if not self.allow.allows(source, pointer):
            return False
        if any(not (seg.isdigit() or _key_shown(self.allow, _unesc(seg))) for seg in pointer.split("/")[1:]):
            return False
        node, found = self._node(source, pointer)
        if not found:
            return source in self.docs or not self.strict
        stack = [(node, pointer)]
        while stack:
            v, ptr = stack.pop()
            if not self.allow.allows(source, ptr):
                return False
            if isinstance(v, dict):
                for k, c in v.items():
                    if not _key_shown(self.allow, k):
                        return False
                    stack.append((c, f"{ptr}/{_esc(k)}"))
            elif isinstance(v, list):
                stack.extend((c, f"{ptr}/{i}") for i, c in enumerate(v))
        return True

    def _mark(self, text: str, kind: str) -> str:
        self.count += 1
        raw = text.encode("utf-8", "surrogatepass")
        return marker(kind, len(raw), _prefix(raw) if self.hash_prefix else None)

    def value(self, text: str | None, source: str, pointer: str) -> str | None:
        """An expected/actual value found at ``pointer`` of ``source``: shown (scrubbed) when that
        location is in clear, else ``[redacted: KIND, N bytes]``."""
        if text is None:
            return None
        if self.location_clear(source, pointer) and (self.trusted.get(source) or _HARMLESS.fullmatch(text)):
            return self.text(text, self.allow.kind(source, pointer))
        return self._mark(text, self.allow.kind(source, pointer))

    def pointer(self, pointer: str) -> str:
        """A JSON Pointer with every key that is not a field name of the format redacted."""
        if not pointer:
            return pointer
        segs = []
        for seg in pointer.split("/")[1:]:
            key = _unesc(seg)
            segs.append(seg if seg.isdigit() or _key_shown(self.allow, key) else self._mark(key, "key"))
        return "/" + "/".join(segs)

    def text(self, text: str | None, kind: str = "value", *, serde: bool = False) -> str | None:
        """A message or note: quoted parts that are not in clear, and every occurrence of a
        redacted string of the files, replaced by markers.

        ``serde``: the text is a serde error (P-PARSE, D-PARSE, ...), which quotes whatever value
        was found where another type was expected: its quoted parts are kept only when they are
        words of the format (field names, variants), never because the field is in clear."""
        if not text:
            return text
        clear = frozenset() if serde else self.clear

        def shown(decoded: str) -> bool:
            return decoded in clear or decoded in self.allow.vocabulary or _HARMLESS.fullmatch(decoded) is not None

        spans = []
        whole = sorted((m.start(1) - 1, m.end(1) + 1, m.group(1)) for pat in _BACKTICK_VALUES for m in pat.finditer(text))
        pos = 0
        for start, end, value in whole + [(len(text), len(text), None)]:
            for m in _QUOTED.finditer(text, pos, max(pos, start)):  # the quotes outside those values
                inner = next(g for g in m.groups() if g is not None)
                decoded = inner
                if m.group(1) is not None:
                    try:
                        decoded = json.loads(m.group(0))
                    except ValueError:
                        decoded = inner
                if not shown(decoded):
                    spans.append((m.start(), m.end()))
            if value is not None and not shown(value):
                spans.append((start, end))
            pos = max(pos, end)
        i, n = 0, len(text)
        while i <= n - _MIN_SECRET:
            cands = self._index.get(text[i:i + _MIN_SECRET])
            hit = next((c for c in cands if text.startswith(c, i)), None) if cands else None
            if hit:
                spans.append((i, i + len(hit)))
                i += len(hit)
            else:
                i += 1
        if not spans:
            return text
        spans.sort()
        merged = [list(spans[0])]
        for s, e in spans[1:]:
            if s <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], e)
            else:
                merged.append([s, e])
        out, last = [], 0
        for s, e in merged:
            out.append(text[last:s])
            part = text[s:e]
            if len(part) >= 2 and part[0] == part[-1] and part[0] in "\"`'":
                part = part[1:-1]  # one quoted value: its own size
            out.append(self._mark(part, kind))
            last = e
        out.append(text[last:])
        return "".join(out)
