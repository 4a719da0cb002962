"""A file beside the canonical bytes the reference would write (P-CANONICAL, FORMAT.md 3.1, 6.2).

Both byte strings are pretty-printed token by token (:func:`pretty_lines`): every token keeps
its exact bytes (key order, number spelling, escapes, repeated keys stay as they are in the
file) and every line knows the byte offset of its first token. The two line lists are aligned
(:func:`canonical_diff`) and each row of the file's side is marked with the difference classes
of :func:`.diagnose.diagnose_canonical` that fall on it (whitespace between its tokens
included). :func:`unified` renders a unified diff with byte offsets for the CLI.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from inspector.checkpoint.diagnosis.diagnose import CanonicalDiagnosis, Difference

__all__ = ["LAYOUT_CLASSES", "PrettyLine", "CanonRow", "CanonicalDiff", "pretty_lines", "canonical_diff", "unified"]

# a string token, a structural byte, or a run of anything else up to the next one (a literal
# or number; whitespace is matched separately and skipped)
_TOKEN = re.compile(rb'"(?:[^"\\]++|\\.)*+"?|[{}\[\]:,]|[ \t\r\n]++|[^ \t\r\n{}\[\]:,"]++', re.S)
_INDENT = "  "
#: Indentation stops growing past serde_json's 128 levels (deeper nesting only occurs in a value the
#: reference skips, e.g. an unknown key's): a line's text stays bounded, so 100,000 nested brackets in
#: a 200 KB file give 100,000 short lines, not 20 GB of spaces.
_MAX_INDENT_DEPTH = 128
#: Classes the pretty-printed forms cannot show (whitespace between tokens): marked, never stops.
LAYOUT_CLASSES = frozenset({"whitespace", "crlf"})


@dataclass(frozen=True)
class PrettyLine:
    """One line of a pretty-printed form: ``text`` (indentation and the tokens' own bytes,
    decoded as UTF-8 with replacement), ``start``/``end``: byte span of its tokens in the
    original bytes (``end`` exclusive; whitespace before the next line's first token belongs
    to this line)."""

    start: int
    end: int
    text: str


def pretty_lines(data: bytes) -> list[PrettyLine]:
    """Pretty-print JSON ``data`` one member or element per line, keeping every token's bytes.

    No parse is needed and nesting is tracked by a counter (no recursion): malformed input
    still gives lines. ``end`` of a line runs up to the next line's first token, so every byte
    of ``data`` belongs to exactly one line.
    """
    lines: list[list] = []  # [start, text parts]
    depth = 0
    cur: list | None = None
    pending_key = False
    for m in _TOKEN.finditer(data):
        tok = m.group(0)
        c = tok[:1]
        if c in b" \t\r\n":
            continue
        start = m.start()
        text = tok.decode("utf-8", "replace")
        if c == b",":
            if cur is not None:
                cur[1].append(",")
            continue
        if c == b":":
            if cur is not None:
                cur[1].append(": ")
                pending_key = True
            continue
        if c in b"}]":
            depth = max(0, depth - 1)
            if cur is not None and cur[1] and cur[1][-1] in ("{", "[") and cur[2] == depth:
                cur[1].append(text)  # an empty container stays on one line
                continue
            cur = [start, [_INDENT * min(depth, _MAX_INDENT_DEPTH), text], depth]
            lines.append(cur)
            continue
        if pending_key and cur is not None:
            cur[1].append(text)
            pending_key = False
        else:
            cur = [start, [_INDENT * min(depth, _MAX_INDENT_DEPTH), text], depth]
            lines.append(cur)
        if c in b"{[":
            depth += 1
    out = []
    for i, (start, parts, _d) in enumerate(lines):
        end = lines[i + 1][0] if i + 1 < len(lines) else len(data)
        out.append(PrettyLine(start, end, "".join(parts)))
    return out


@dataclass(frozen=True)
class CanonRow:
    """One aligned row: ``tag`` is ``equal``, ``changed``, ``removed`` (only in the file),
    ``added`` (only in the canonical form); ``left`` (file) and ``right`` (canonical) lines,
    ``None`` on the side without one; ``classes``: difference classes on the file's line
    (a row can be ``equal`` as text and still carry ``whitespace``)."""

    tag: str
    left: PrettyLine | None
    right: PrettyLine | None
    classes: tuple[str, ...] = ()

    @property
    def marked(self) -> bool:
        """True for a row to stop at with "next difference": the texts differ, or a class other
        than whitespace between tokens is on it (a pretty-printed file has whitespace on every
        line; those rows are marked but not stops)."""
        return self.tag != "equal" or any(c not in LAYOUT_CLASSES for c in self.classes)


@dataclass
class CanonicalDiff:
    """The file beside its canonical form.

    Attributes:
        data, canonical: the file's bytes and the canonical bytes (``canonical`` is ``None``
            when the reference would not write the file: ``error`` then says why).
        kind: ``payload`` (canonical = the typed payload re-encoded, as the reference writes it)
            or ``json`` (canonical_json_v1 of the free-form value).
        rows: the aligned rows (empty when the file is canonical or unparsable).
        diagnosis: the P-CANONICAL diagnosis (payloads), else ``None``.
        first_offset: first differing byte (``None`` when equal).
        canonical_size: length in bytes of the canonical form (``None`` when there is none); kept
            when a worker process drops the bytes themselves before sending the result back.
        same: whether the file's bytes were exactly the canonical bytes when compared (kept, like
            ``canonical_size``, when the bytes are dropped).
    """

    data: bytes
    canonical: bytes | None
    kind: str
    rows: list[CanonRow] = field(default_factory=list)
    diagnosis: CanonicalDiagnosis | None = None
    first_offset: int | None = None
    error: str | None = None
    canonical_size: int | None = None
    same: bool = False

    def __post_init__(self):
        if self.canonical is not None:
            self.canonical_size = len(self.canonical)
            self.same = self.canonical == self.data

    @property
    def equal(self) -> bool:
        """True when the file's bytes are exactly their canonical_json_v1 form (FORMAT.md 3.1;
        P-CANONICAL passes); False when they differ or could not be canonicalized (``error``)."""
        return self.same

    def differences_at(self, row: CanonRow) -> list[Difference]:
        """The diagnosis' differences whose file offset falls on ``row``'s file line."""
        if self.diagnosis is None or row.left is None:
            return []
        return [d for d in self.diagnosis.differences if row.left.start <= d.offset < row.left.end]


def _canonical_of(data: bytes, kind: str):
    """``(canonical bytes, diagnosis, error)``."""
    from inspector.checkpoint.jsontext.canonical import CanonicalError, canonicalize
    from inspector.checkpoint.rules.context import Context

    if kind == "payload":
        ctx = Context(data, None)
        typed, err = ctx.pay_result
        if typed is None:
            return None, None, f"the payload does not decode (P-PARSE): {err}; the reference would not write it"
        if ctx.is_canonical:
            return data, None, None
        from inspector.checkpoint.diagnosis.diagnose import diagnose_canonical

        return ctx.canonical, diagnose_canonical(ctx), None
    try:
        return canonicalize(data), None, None
    except CanonicalError as e:
        return None, None, f"{e} (serde_json {e.category} error at byte {e.offset})"


def canonical_diff(data: bytes, kind: str = "payload") -> CanonicalDiff:
    """Align ``data`` with the canonical bytes the reference would write for it.

    Args:
        data: the file's bytes.
        kind: ``payload`` (typed re-encoding and P-CANONICAL diagnosis) or ``json``.

    Returns:
        a :class:`CanonicalDiff`; ``error`` is set (and ``rows`` empty) when the file does not
        parse or decode.
    """
    from inspector.checkpoint.diagnosis.diagnose import first_difference

    canonical, diagnosis, error = _canonical_of(data, kind)
    result = CanonicalDiff(data, canonical, kind, diagnosis=diagnosis, error=error)
    if canonical is None or canonical == data:
        return result
    result.first_offset = first_difference(data, canonical)
    left, right = pretty_lines(data), pretty_lines(canonical)
    marks = _classes_by_line(left, diagnosis)
    rows = result.rows
    lt, rt = [x.text for x in left], [x.text for x in right]
    for tag, i1, i2, j1, j2 in _opcodes(lt, rt):
        if tag == "equal":
            for d in range(i2 - i1):
                rows.append(CanonRow("equal", left[i1 + d], right[j1 + d], marks.get(i1 + d, ())))
            continue
        n = max(i2 - i1, j2 - j1)
        for d in range(n):
            li = i1 + d if i1 + d < i2 else None
            rj = j1 + d if j1 + d < j2 else None
            t = "changed" if li is not None and rj is not None else ("removed" if rj is None else "added")
            rows.append(CanonRow(t, left[li] if li is not None else None, right[rj] if rj is not None else None,
                                 marks.get(li, ()) if li is not None else ()))
    return result


def _opcodes(a: list[str], b: list[str]):
    from inspector.checkpoint.analysis.compare import common_ends

    n, m = len(a), len(b)
    lo, hi = common_ends(a, b, str.__eq__)
    ops = [("equal", 0, lo, 0, lo)] if lo else []
    sm = difflib.SequenceMatcher(None, a[lo:n - hi], b[lo:m - hi], autojunk=(n - hi - lo) > 20000)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        ops.append(("equal" if tag == "equal" else "replace", lo + i1, lo + i2, lo + j1, lo + j2))
    if hi:
        ops.append(("equal", n - hi, n, m - hi, m))
    return ops


def _classes_by_line(lines: list[PrettyLine], diagnosis: CanonicalDiagnosis | None) -> dict[int, tuple[str, ...]]:
    """Line index -> difference classes whose offset falls on the line (by binary search)."""
    import bisect

    out: dict[int, list[str]] = {}
    if diagnosis is None or not lines:
        return {}
    starts = [x.start for x in lines]
    for d in diagnosis.differences:
        i = max(0, bisect.bisect_right(starts, d.offset) - 1)
        kinds = out.setdefault(i, [])
        if d.kind not in kinds:
            kinds.append(d.kind)
    return {i: tuple(k) for i, k in out.items()}


def unified(cd: CanonicalDiff, name: str, context: int = 3) -> str:
    """A unified diff of the two pretty-printed forms; each line shows its byte offset in its
    own bytes (file or canonical) and the classes marked on it. Rows that differ only in
    a class but the same text on both sides (e.g. a duplicate key) are shown as ``~`` lines;
    whitespace between tokens is not shown line by line (the class list counts it)."""
    rows = cd.rows
    marked = [i for i, r in enumerate(rows) if r.marked]
    out = [f"--- {name} (the file, {len(cd.data)} bytes)",
           f"+++ canonical (what the reference writes, {len(cd.canonical or b'')} bytes)"]
    if not marked:
        return "\n".join(out) + "\n"
    hunks: list[list[int]] = []
    for i in marked:
        lo, hi = max(0, i - context), min(len(rows), i + context + 1)
        if hunks and lo <= hunks[-1][1]:
            hunks[-1][1] = max(hunks[-1][1], hi)
        else:
            hunks.append([lo, hi])
    width = len(str(max(len(cd.data), len(cd.canonical or b""))))
    for lo, hi in hunks:
        lnum = [r.left for r in rows[lo:hi] if r.left is not None]
        rnum = [r.right for r in rows[lo:hi] if r.right is not None]
        out.append(f"@@ file bytes {lnum[0].start if lnum else '-'}..{lnum[-1].end if lnum else '-'}, "
                   f"canonical bytes {rnum[0].start if rnum else '-'}..{rnum[-1].end if rnum else '-'} @@")
        for r in rows[lo:hi]:
            shown = [c for c in r.classes if c not in LAYOUT_CLASSES or r.tag != "equal"]
            tail = f"    <- {', '.join(shown)}" if shown else ""
            if r.tag == "equal":
                mark = "~" if shown else " "
                out.append(f"{mark}{r.left.start:>{width}} {r.left.text}{tail}")
                continue
            if r.left is not None:
                out.append(f"-{r.left.start:>{width}} {r.left.text}{tail}")
            if r.right is not None:
                out.append(f"+{r.right.start:>{width}} {r.right.text}")
    return "\n".join(out) + "\n"
