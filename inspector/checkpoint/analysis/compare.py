"""Semantic diff of two checkpoints (two payloads, or two descriptors).

Both documents are compared as the ``serde_json::Value`` the reference's parser reads
(:func:`load_document`): key order, whitespace and number spelling never count (the canonical
diff, :mod:`.canondiff`, shows those). What has identity is aligned by it:

* messages (``/snapshot/session/messages``, ``/logical_resume/messages``) by position, role and
  tool-call ids (``tool_use.id``, ``tool_result.tool_use_id``);
* run records by run id (``snapshot.id``), their events by ``sequence``;
* artifacts by ``artifact_id``, subagent tasks by ``task_id``;
* object members by key; other arrays by position (arrays of scalars by value).

Each :class:`Change` is ``added``/``removed``/``changed`` with its JSON Pointer on both sides,
the old and new values and what it makes stale: the descriptor fields that bind it (component
content digest and size, evidence digest, the payload's ``content_digest``/``size_bytes`` and
``descriptor_digest``; FORMAT.md 3.2 and 5). The walk uses an explicit stack (no recursion per
nesting level), so it takes any value the parser produced.
"""

from __future__ import annotations

from inspector.checkpoint.jsontext.pointer import escape as escape_pointer_token

import difflib
import math
from collections import Counter
from dataclasses import dataclass, field

import orjson

from inspector.checkpoint.jsontext.canonical import encode
from inspector.checkpoint.analysis.compare_text import dump_json, locate, preview  # noqa: F401 (re-exported)
from inspector.checkpoint.digest import content_digest
from inspector.checkpoint.jsontext.reader import SerdeError
from inspector.checkpoint.analysis.staleness import invalidates_descriptor, invalidates_payload
from inspector.checkpoint.jsontext.lazyjson import ScanError, SpanWalk
from inspector.checkpoint.read.door import read_value, read_value_form
from inspector.checkpoint.schema import model as S
from inspector.checkpoint.schema.typed import decode

__all__ = ["Change", "Comparison", "ComponentDelta", "MISSING", "compare_values", "compare_documents",
           "load_document", "escape_token", "pointer_of", "dump_json", "locate", "preview"]


class _Missing:
    """The value of a side that has none (the ``old`` of an added change, the ``new`` of a removed one)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"


#: Stands for "no value on this side".
MISSING = _Missing()

#: Above this many elements in the unmatched middle of an array, it is paired by position
#: (difflib's alignment is quadratic in the worst case).
_LCS_LIMIT = 4000


@dataclass(frozen=True)
class Change:
    """One difference between document A (old) and document B (new).

    Attributes:
        op: ``added`` (only in B), ``removed`` (only in A) or ``changed`` (both, different value).
        old_pointer: JSON Pointer (RFC 6901) in A; ``None`` when added.
        new_pointer: JSON Pointer in B; ``None`` when removed.
        old: A's value (:data:`MISSING` when added); new: B's value (:data:`MISSING` when removed).
        kind: what the change is about: ``message``, ``run``, ``event``, ``artifact``,
            ``subagent task`` when it adds or removes that whole item, else ``value``.
        item: the innermost identified item holding the change, e.g. ``message 3 (assistant)``,
            ``event 12 of run run-1`` (``None`` outside any).
        invalidates: descriptor fields (JSON Pointers into the descriptor) that no longer
            match once this change is made, in descriptor order.
        patch_path: where an RFC 6902 operation applies, in the document as it is when the
            operations are applied in :func:`to_patch` order.
        within: the identified items holding the change, outermost first, as ``(kind, A pointer)``.
    """

    op: str
    old_pointer: str | None
    new_pointer: str | None
    old: object
    new: object
    kind: str = "value"
    item: str | None = None
    invalidates: tuple[str, ...] = ()
    patch_path: str = ""
    within: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True)
class ComponentDelta:
    """A component's content digest on both sides (FORMAT.md 3.2): ``name`` is ``payload``
    (the file bytes), ``snapshot`` or ``logical_resume`` (canonical component bytes) or
    ``descriptor``; ``old``/``new`` are ``sha256:`` digests or ``None`` when the side has none."""

    name: str
    old: str | None
    new: str | None

    @property
    def changed(self) -> bool:
        """True when the component's digest (``sha256:`` text, FORMAT.md 3.2) differs between A and B,
        or exists on one side only."""
        return self.old != self.new


@dataclass
class Comparison:
    """Result of :func:`compare_values` / :func:`compare_documents`.

    ``kind``: ``payload`` or ``descriptor``. ``changes``: in document order (A's order, an
    insertion where it lands). ``components``: content digests per component (payloads
    only). ``bytes_equal``: the files are byte-identical (``None`` when not compared as files).
    """

    kind: str
    changes: list[Change] = field(default_factory=list)
    components: list[ComponentDelta] = field(default_factory=list)
    bytes_equal: bool | None = None
    #: the compared values (set by :func:`compare_documents`)
    values: tuple = field(default=(None, None), repr=False)
    #: sides (``"A"``/``"B"``) that ``serde_json::Value`` cannot read but the reference's typed
    #: read can (a value nested deeper than 128 or a number out of range under a key the
    #: reference does not know, skipped like serde's ``IgnoredAny``); when non-empty both sides
    #: are compared as the reference reads them (typed, FORMAT.md 4), so unknown keys are dropped
    typed_sides: tuple = ()
    #: arrays whose elements moved: A pointer of the array -> ``[(i1, i2, j1), ...]`` (A's
    #: elements ``i1..i2-1`` are B's ``j1..``); see :meth:`map_pointer`
    index_map: dict = field(default_factory=dict, repr=False)

    def map_pointer(self, pointer: str, to: str = "b") -> str | None:
        """The pointer in B of A's ``pointer`` (``to="a"``: the reverse), following the array
        alignment; ``None`` when the element has no counterpart (added or removed)."""
        if not self.index_map:
            return pointer
        inverse = to == "a"
        if inverse:
            maps = {}
            for arr_a, blocks in self.index_map.items():
                maps[self.map_pointer(arr_a, "b") or arr_a] = [(j1, j1 + i2 - i1, i1) for i1, i2, j1 in blocks]
        else:
            maps = self.index_map
        tokens = pointer.split("/")[1:] if pointer else []
        out = ""
        src = ""
        for t in tokens:
            blocks = maps.get(src if not inverse else out)
            src += "/" + t
            if blocks is not None and t.isdigit():
                i = int(t)
                hit = next((j1 + i - i1 for i1, i2, j1 in blocks if i1 <= i < i2), None)
                if hit is None:
                    return None
                t = str(hit)
            out += "/" + t
        return out

    @property
    def equal(self) -> bool:
        """True when the two documents hold the same value (no change)."""
        return not self.changes

    def counts(self) -> Counter:
        """``Counter`` of ``(kind, op)``: whole items added/removed, items changed (every
        identified item holding a change counts once as changed), tool rounds added/removed
        (assistant messages with a ``tool_use`` block) and other values."""
        out: Counter = Counter()
        changed_items: set = set()
        for c in self.changes:
            if c.kind != "value":
                out[(c.kind, c.op)] += 1
            holders = _holders(c)
            if c.kind == "value" and not holders:
                out[("value", c.op)] += 1
            for h in holders:
                if h not in changed_items:
                    changed_items.add(h)
                    out[(h[0], "changed")] += 1
        for op in ("added", "removed"):
            rounds = {}
            for c in self.changes:
                if c.kind == "message" and c.op == op and _is_tool_round(c.new if op == "added" else c.old):
                    where = (c.new_pointer or c.old_pointer).rsplit("/", 1)[0]
                    rounds[where] = rounds.get(where, 0) + 1
            if rounds:
                out[("tool round", op)] = max(rounds.values())
        return out

    def summary(self) -> str:
        """One line: ``3 tool rounds added, 1 run changed, 12 events added`` (``no changes``)."""
        counts = self.counts()
        if not counts:
            return "no changes"
        parts = []
        for kind in _SUMMARY_ORDER:
            for op in ("added", "removed", "changed"):
                n = counts.get((kind, op))
                if n:
                    name = ("field" if n == 1 else "fields") if kind == "value" and self.kind == "descriptor" \
                        else _plural(kind, n)
                    parts.append(f"{n} {name} {op}")
        return ", ".join(parts)


_SUMMARY_ORDER = ("tool round", "message", "run", "event", "artifact", "subagent task", "value")
_PLURALS = {"value": ("other value", "other values")}


def _plural(kind: str, n: int) -> str:
    one, many = _PLURALS.get(kind, (kind, kind + "s"))
    return one if n == 1 else many


def _holders(c: Change) -> tuple:
    return c.within


def _is_tool_round(message) -> bool:
    return (isinstance(message, dict) and message.get("role") == "assistant"
            and isinstance(message.get("content"), list)
            and any(isinstance(b, dict) and b.get("type") == "tool_use" for b in message["content"]))


def escape_token(token: str) -> str:
    """One RFC 6901 reference token: ``~`` as ``~0``, ``/`` as ``~1``."""
    return escape_pointer_token(token)


def pointer_of(tokens) -> str:
    """JSON Pointer of a path given as tokens (``str`` keys, ``int`` indices)."""
    return "".join("/" + (escape_token(t) if isinstance(t, str) else str(t)) for t in tokens)


# -- identity -------------------------------------------------------------------------------

def _message_key(m):
    if not isinstance(m, dict):
        return None
    ids = []
    content = m.get("content")
    if isinstance(content, list):
        for b in content:
            if isinstance(b, dict):
                if b.get("type") == "tool_use" and isinstance(b.get("id"), str):
                    ids.append("use:" + b["id"])
                elif b.get("type") == "tool_result" and isinstance(b.get("tool_use_id"), str):
                    ids.append("result:" + b["tool_use_id"])
    role = m.get("role")
    return ("message", role if isinstance(role, str) else None, tuple(ids))


def _field_key(*path):
    def key(v):
        for p in path:
            if not isinstance(v, dict) or p not in v:
                return None
            v = v[p]
        if isinstance(v, (str, int)) and not isinstance(v, bool):
            return (type(v).__name__, v)
        return None
    return key


#: Arrays whose elements have identity: path pattern (``*`` for any index) -> (kind, key function).
_IDENTIFIED = {
    ("snapshot", "session", "messages"): ("message", _message_key),
    ("logical_resume", "messages"): ("message", _message_key),
    ("snapshot", "run_records"): ("run", _field_key("snapshot", "id")),
    ("snapshot", "run_records", "*", "events"): ("event", _field_key("sequence")),
    ("snapshot", "artifacts"): ("artifact", _field_key("artifact_id")),
    ("snapshot", "subagent_tasks"): ("subagent task", _field_key("task_id")),
}


def _item_label(kind: str, value, index: int, holder: str | None) -> str:
    if kind == "message":
        role = value.get("role") if isinstance(value, dict) else None
        label = f"message {index}" + (f" ({role})" if isinstance(role, str) else "")
    elif kind == "run":
        rid = _field_key("snapshot", "id")(value)
        label = f"run {rid[1]}" if rid else f"run record {index}"
    elif kind == "event":
        seq = _field_key("sequence")(value)
        label = f"event {seq[1]}" if seq else f"event #{index}"
        ev = value.get("event") if isinstance(value, dict) else None
        if isinstance(ev, dict) and isinstance(ev.get("type"), str):
            label += f" ({ev['type']})"
    elif kind == "artifact":
        aid = _field_key("artifact_id")(value)
        label = f"artifact {aid[1]}" if aid else f"artifact #{index}"
    else:
        tid = _field_key("task_id")(value)
        label = f"subagent task {tid[1]}" if tid else f"subagent task #{index}"
    return f"{label} of {holder}" if holder and kind == "event" else label


# -- equality -------------------------------------------------------------------------------

def _same(a, b) -> bool | None:
    """JSON equality as canonical bytes (1 is not 1.0 nor true; -0.0 is not 0.0): ``True``,
    ``False``, or ``None`` when too deep to tell at C speed (the walk then descends)."""
    if a is b:
        return True
    ta = type(a)
    if ta is not type(b):
        return False
    if ta is dict or ta is list:
        if len(a) != len(b):
            return False
        try:
            if a != b:
                return False
            return encode(a) == encode(b)
        except (RecursionError, orjson.JSONEncodeError, TypeError):
            return None
    if ta is float:
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    return a == b


def _enc_len(v) -> int | None:
    try:
        return len(encode(v))
    except (RecursionError, orjson.JSONEncodeError, TypeError):
        return None


# -- the walk -------------------------------------------------------------------------------

def compare_values(a, b, kind: str = "payload") -> Comparison:
    """Compare two parsed documents.

    Args:
        a, b: values as :func:`load_document` returns them (``dict``/``list``/``str``/
            ``int``/``float``/``bool``/``None``), any nesting depth.
        kind: ``payload`` or ``descriptor`` (decides identities and what changes invalidate).

    Returns:
        a :class:`Comparison` (``components`` left empty: see :func:`compare_documents`).
    """
    result = Comparison(kind)
    emit = result.changes.append
    # stack entries: ("cmp", a, b, a_tokens, b_tokens, pattern, holders, a_ptr) or ("emit", Change)
    stack: list = [("cmp", a, b, (), (), (), (), "")]
    while stack:
        entry = stack.pop()
        if entry[0] == "emit":
            emit(entry[1])
            continue
        _, x, y, at, bt, pattern, holders, patch_base = entry
        same = _same(x, y)
        if same:
            continue
        tx = type(x)
        if same is False and (tx is not type(y) or tx not in (dict, list)):
            emit(_change(kind, "changed", at, bt, x, y, holders, patch_base, _enc_len(x) != _enc_len(y)))
            continue
        work: list = []
        if tx is dict:
            for k in x:
                if k not in y:
                    work.append(("emit", _change(kind, "removed", at + (k,), None, x[k], MISSING, holders,
                                                 patch_base + "/" + escape_token(k), True)))
            for k in x:
                if k in y:
                    work.append(("cmp", x[k], y[k], at + (k,), bt + (k,), pattern + (k,), holders,
                                 patch_base + "/" + escape_token(k)))
            for k in y:
                if k not in x:
                    work.append(("emit", _change(kind, "added", None, bt + (k,), MISSING, y[k], holders,
                                                 patch_base + "/" + escape_token(k), True)))
        else:
            ident = _IDENTIFIED.get(pattern) if kind == "payload" else None
            _array_work(kind, x, y, at, bt, pattern, holders, patch_base, ident, work, result.index_map)
        stack.extend(reversed(work))
    return result


def _array_work(kind, x: list, y: list, at, bt, pattern, holders, patch_base, ident, work, index_map) -> None:
    item_kind = ident[0] if ident else None
    if ident:
        keyf = ident[1]
        ka = [keyf(v) for v in x]
        kb = [keyf(v) for v in y]
        # elements without identity never match each other
        ka = [k if k is not None else ("noid", "a", i) for i, k in enumerate(ka)]
        kb = [k if k is not None else ("noid", "b", j) for j, k in enumerate(kb)]
    elif len(x) <= _LCS_LIMIT and len(y) <= _LCS_LIMIT and all(_scalar(v) for v in x) and all(_scalar(v) for v in y):
        ka = [(type(v).__name__, v) for v in x]
        kb = [(type(v).__name__, v) for v in y]
    else:
        ka = kb = None
    child_pattern = pattern + ("*",)
    holder_name = holders[-1][1] if holders else None

    def pair(i, j):
        h = holders
        if item_kind:
            h = holders + ((item_kind, _item_label(item_kind, x[i], i, holder_name), pointer_of(at + (i,))),)
        work.append(("cmp", x[i], y[j], at + (i,), bt + (j,), child_pattern, h, f"{patch_base}/{i}"))

    def remove(i):
        label = _item_label(item_kind, x[i], i, holder_name) if item_kind else None
        work.append(("emit", _change(kind, "removed", at + (i,), None, x[i], MISSING, holders, f"{patch_base}/{i}",
                                     True, item_kind, label)))

    def add(j, before):
        label = _item_label(item_kind, y[j], j, holder_name) if item_kind else None
        work.append(("emit", _change(kind, "added", None, bt + (j,), MISSING, y[j], holders, f"{patch_base}/{before}",
                                     True, item_kind, label)))

    ops = _align(x, y, ka, kb)
    paired = [(i1, i2, j1) for tag, i1, i2, j1, _j2 in ops if tag != "replace"]
    if any(i1 != j1 for i1, _i2, j1 in paired) or any(tag == "replace" for tag, *_ in ops):
        index_map[pointer_of(at)] = paired
    for tag, i1, i2, j1, j2 in ops:
        if tag == "same":
            continue
        if tag == "equal":
            for d in range(i2 - i1):
                pair(i1 + d, j1 + d)
        else:
            for i in range(i1, i2):
                remove(i)
            # an insertion lands before A's next element (index i2): applied in reverse order, the
            # removals above it (lower indices) run after it and do not move it
            for j in range(j1, j2):
                add(j, i2)


def _scalar(v) -> bool:
    return v is None or type(v) in (str, int, float, bool)


def common_ends(x: list, y: list, same) -> tuple[int, int]:
    """``(lo, hi)``: how many elements at the start and (then) at the end of ``x`` and ``y``
    are equal by ``same(a, b)``."""
    n, m = len(x), len(y)
    lo = 0
    while lo < n and lo < m and same(x[lo], y[lo]):
        lo += 1
    hi = 0
    while hi < n - lo and hi < m - lo and same(x[n - 1 - hi], y[m - 1 - hi]):
        hi += 1
    return lo, hi


def _align(x: list, y: list, ka, kb):
    """Opcodes ``(tag, i1, i2, j1, j2)`` as difflib's: ``same`` (equal values, nothing to
    compare), ``equal`` (paired: same identity, or same position when there is no identity;
    their values are compared) and ``replace`` (A's removed, B's added).

    Equal values at both ends are taken first, so an item inserted before others of the same
    role or identity is an insertion, not a cascade of changes."""
    n, m = len(x), len(y)
    lo, hi = common_ends(x, y, _same)
    ops = [("same", 0, lo, 0, lo)] if lo else []
    la, lb = n - hi - lo, m - hi - lo
    if la and lb and ka is not None and la <= _LCS_LIMIT and lb <= _LCS_LIMIT:
        sm = difflib.SequenceMatcher(None, ka[lo:n - hi], kb[lo:m - hi], autojunk=False)
        for tag, i1, i2, j1, j2 in sm.get_opcodes():
            ops.append(("equal" if tag == "equal" else "replace", lo + i1, lo + i2, lo + j1, lo + j2))
    elif la or lb:
        k = min(la, lb) if ka is None or (la > _LCS_LIMIT or lb > _LCS_LIMIT) else 0
        if k:
            ops.append(("equal", lo, lo + k, lo, lo + k))
        if la != k or lb != k:
            ops.append(("replace", lo + k, n - hi, lo + k, m - hi))
    if hi:
        ops.append(("same", n - hi, n, m - hi, m))
    return ops


def _change(kind, op, at, bt, old, new, holders, patch_path, size_changes, item_kind=None, label=None) -> Change:
    tokens = at if at is not None else bt
    inval = invalidates_payload(tokens, size_changes) if kind == "payload" else invalidates_descriptor(tokens)
    return Change(op, None if at is None else pointer_of(at), None if bt is None else pointer_of(bt), old, new,
                  item_kind or "value", label or (holders[-1][1] if holders else None), inval, patch_path,
                  tuple((h[0], h[2]) for h in holders))


# -- documents -------------------------------------------------------------------------------

def load_document(data: bytes, kind: str = "payload"):
    """Parse ``data`` as ``serde_json::Value`` (FORMAT.md 3.1), at C speed when provable: the read
    door's :func:`~inspector.checkpoint.read.door.read_value`.

    Raises:
        SerdeError: serde_json rejects the document (message, byte offset).
    """
    return read_value(data, kind)


def _component_digests(data: bytes, value, canonical: bool, keys=("snapshot", "logical_resume")) -> list:
    """The content digest (FORMAT.md 3.2) of each component ``keys`` of a payload, ``None`` for one absent or
    ``null``: of its slice of ``data`` when ``canonical`` (the file is its own canonical printing, so each top-level
    value's bytes are the component's: the span walk's root children), else of its canonical encoding."""
    if not isinstance(value, dict):
        return [None] * len(keys)
    spans = None
    if canonical:
        try:
            ch = SpanWalk(data, canonical=True).children(0, len(data))
            spans = dict(zip(ch.keys, zip(ch.starts, ch.ends)))
        except ScanError:
            spans = None
    out = []
    for key in keys:
        if key not in value or value[key] is None:
            out.append(None)
        elif spans is not None and key in spans:
            out.append(content_digest(memoryview(data)[slice(*spans[key])]))
        else:
            try:
                out.append(content_digest(encode(value[key])))
            except (RecursionError, orjson.JSONEncodeError, TypeError):
                out.append(None)
    return out


def _load_pair(a: bytes, b: bytes, kind: str) -> tuple[tuple, tuple, tuple]:
    """``((a_value, b_value), typed_sides, (a_canonical, b_canonical))``: both sides as ``serde_json::Value`` when
    both read so; else, when a side only reads typed (see :attr:`Comparison.typed_sides`), both sides as the
    reference's typed values (:func:`.typed.decode`; a side that fails typed keeps its ``Value``). A side is
    ``canonical`` when the door's fast reader proved it its own canonical printing (:func:`.door.read_value_form`).

    Raises:
        SerdeError: a side the reference reads neither way (``.side`` ``"A"``/``"B"``; the
        ``Value`` error, the one a user fixing the file meets first).
    """
    schema = S.PAYLOAD if kind == "payload" else S.DESCRIPTOR
    parsed, errors, canonical = [], [], []
    for data in (a, b):
        try:
            value, proven = read_value_form(data, kind)
            parsed.append(value)
            canonical.append(proven)
            errors.append(None)
        except SerdeError as e:
            parsed.append(None)
            canonical.append(False)
            errors.append(e)
    if not any(errors):
        return tuple(parsed), (), tuple(canonical)
    typed_sides = []
    for i, (side, data) in enumerate((("A", a), ("B", b))):
        try:
            parsed[i] = decode(data, schema)
            if errors[i] is not None:
                typed_sides.append(side)
        except SerdeError:
            if errors[i] is not None:
                errors[i].side = side
                raise errors[i] from None
    return tuple(parsed), tuple(typed_sides), tuple(canonical)


def compare_documents(a: bytes, b: bytes, kind: str = "payload", values: tuple | None = None) -> Comparison:
    """Compare two files of the same kind (``payload`` or ``descriptor``).

    Args:
        a, b: the file bytes (A is "old", B is "new").
        values: the already parsed ``(a_value, b_value)``, to skip :func:`load_document`.

    Returns:
        a :class:`Comparison` with the changes, ``bytes_equal`` and, for payloads, the content
        digests of the payload bytes and of the snapshot and loop checkpoint components. When a
        side reads only typed (:attr:`Comparison.typed_sides`), both are compared typed.

    Raises:
        SerdeError: a file is not JSON serde_json accepts (``.side`` is ``"A"`` or ``"B"``).
    """
    typed_sides: tuple = ()
    canonical = (False, False)
    if values is None:
        values, typed_sides, canonical = _load_pair(a, b, kind)
    va, vb = values
    result = compare_values(va, vb, kind)
    result.typed_sides = typed_sides
    result.bytes_equal = a == b
    result.values = (va, vb)
    if kind == "payload":
        result.components = [ComponentDelta("payload", content_digest(a), content_digest(b))]
        keys = ("snapshot", "logical_resume")
        for key, da, db in zip(keys, _component_digests(a, va, canonical[0], keys),
                               _component_digests(b, vb, canonical[1], keys)):
            result.components.append(ComponentDelta(key, da, db))
    else:
        result.components = [ComponentDelta("descriptor", content_digest(a), content_digest(b))]
    return result
