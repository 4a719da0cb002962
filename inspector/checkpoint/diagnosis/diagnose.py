"""Why a payload fails P-CANONICAL: first differing byte, difference classes, generation.

FORMAT.md 6.2 lists the causes of ``payload is not the exact canonical JSON encoding``. This
module compares the file (parsed as a free-form ``Value`` with byte spans) with the
reference's re-encoding of the typed payload and names each difference with its class:

``whitespace``, ``crlf``, ``trailing-newline``, ``key-order``, ``duplicate-key``,
``number-spelling``, ``float-misparse`` (a float serde_json's parser does not read back to the
value its text denotes), ``f32-not-exact``, ``escape-form``, ``unknown-key-dropped``,
``api-key``, ``todos-alias``, ``logical-resume-null``, ``default-field-missing``,
``value-form``. It also says whether the bytes are exactly what the earlier reference
generation wrote (FORMAT.md 3.4).
"""

from __future__ import annotations

from inspector.checkpoint.jsontext.pointer import escape as escape_pointer_token

import re
from dataclasses import dataclass, field

from inspector.checkpoint.jsontext.canonical import encode, encode_reference
from inspector.checkpoint.diagnosis.hazards import (
    RELEASES, f32_field, is_cost_timestamp, is_permission_rule, is_task, is_yolo_lanes, newer_field, struct_name,
    timestamp_change, unreproducible_order_notes,
)
from inspector.checkpoint.diagnosis.newer import newer_summary
from inspector.checkpoint.jsontext.reader import Node, SerdeError, parse_value
from inspector.checkpoint.slotted import KEY, POINTER, Text, fmt, ours, value as _fv


def _key(k: str, pointer: str) -> Text:
    """An object key of the file (printed as Python's repr, as these sentences name keys), a slot."""
    return _fv(k, "payload", pointer, role=KEY, form=repr)


def _val(v, pointer: str, printed: str) -> Text:
    """A value of the file at ``pointer`` in one of its spellings (``printed``), a slot. A number
    spelled otherwise than its canonical printing is judged as that spelling (a string: an exponent or
    trailing zeros can carry any digits), not as the number it denotes."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        try:
            canonical = encode(v).decode()
        except (TypeError, ValueError):
            canonical = None
        if printed != canonical:
            v = printed
    return _fv(v, "payload", pointer, form=lambda _v: printed)

__all__ = ["Difference", "CanonicalDiagnosis", "diagnose_canonical", "first_difference", "class_text"]

_MAX_LISTED = 1000
# possessive: a long string costs no backtracking state (the non-possessive form needed ~117
# bytes of memory per byte of string content)
_WS_OUTSIDE_STRINGS = re.compile(rb'"(?:[^"\\]++|\\.)*+"|[ \t\r\n]++', re.S)
#: Above this size the structural walk (span tree, ~60x the file in memory) is skipped.
DETAIL_LIMIT = 32 << 20

_CLASS_TEXT = {
    "whitespace": "whitespace between tokens (the reference writes compact JSON)",
    "crlf": "CRLF line endings between tokens",
    "trailing-newline": "whitespace or a newline after the document",
    "key-order": "object keys not in UTF-8 byte order",
    "duplicate-key": "a repeated key (the reference keeps one)",
    "number-spelling": "number spelled differently from the reference",
    "float-misparse": "float that does not survive the reference's parse",
    "f32-not-exact": "f32 field value that is not the exact widened image of an f32",
    "escape-form": "string escaped differently from the reference",
    "unknown-key-dropped": "unknown key, dropped by the reference's decode",
    "api-key": "api_key present (read but never written by the reference)",
    "todos-alias": "legacy key `todos` (re-encoded as `tasks`)",
    "logical-resume-null": '"logical_resume": null (re-encoding omits the key)',
    "default-field-missing": "field missing from the file that the reference always writes",
    "value-form": "value written in a form the reference reads but writes differently",
    "null-dropped": "null for a key the reference omits",
    "set-order": "ConfirmationPolicy.yolo_lanes in an order that cannot be reproduced (a hash set; not tampering)",
    "set-duplicate": "a lane repeated in ConfirmationPolicy.yolo_lanes (a set: written back once)",
    "permission-rule-string": "permission rule as a plain string (written back as {\"rule\": ...})",
    "task-description-alias": "task text under the alias `description` (written back as `content`)",
    "timestamp-normalised": "LlmCostRecord.timestamp not as A3S Code writes it (UTC, Z, 0/3/6/9 fraction digits)",
    "newer-field": "field written by a newer A3S Code release (unknown to 8.3.0, dropped on read)",
}


def class_text(kind: str) -> str:
    """What a difference class means, e.g. ``f32-not-exact`` -> ``f32 field value that is not the
    exact widened image of an f32`` (``KeyError`` for an unknown class)."""
    return _CLASS_TEXT[kind]


@dataclass(frozen=True)
class Difference:
    """One difference: ``kind`` (class above), file ``offset``, JSON ``pointer``, ``text``."""

    kind: str
    offset: int
    pointer: str
    text: str
    expected: str | None = None
    actual: str | None = None


@dataclass
class CanonicalDiagnosis:
    """Result of :func:`diagnose_canonical`.

    ``offset``: first byte where the file and the canonical encoding differ. ``pointer``:
    JSON Pointer of the primary difference. ``differences``: all found, in file order.
    ``generation``: a sentence on the earlier reference generation, or ``None``.
    """

    offset: int
    pointer: str
    expected: str | None
    actual: str | None
    differences: list[Difference] = field(default_factory=list)
    generation: str | None = None
    notes: list[str] = field(default_factory=list)
    primary: Difference | None = None

    @property
    def classes(self) -> list[str]:
        """The distinct difference classes, in file order."""
        out = []
        for d in self.differences:
            if d.kind not in out:
                out.append(d.kind)
        return out


def first_difference(a: bytes, b: bytes) -> int:
    """Index of the first byte where ``a`` and ``b`` differ (``min(len)`` if one is a prefix)."""
    n = min(len(a), len(b))
    ma, mb = memoryview(a), memoryview(b)
    lo, step = 0, 1 << 16
    # compare in blocks (zero-copy memoryview slices), then bytes within the first unequal block
    while lo < n and ma[lo:lo + step] == mb[lo:lo + step]:
        lo += step
    while lo < n and a[lo] == b[lo]:
        lo += 1
    return lo


def _snippet(data: bytes, offset: int) -> str:
    return data[offset : offset + 40].decode("utf-8", "replace")


def diagnose_canonical(ctx) -> CanonicalDiagnosis:
    """Explain a P-CANONICAL failure of ``ctx`` (a :class:`~.context.Context` whose payload
    decodes but is not canonical). Computed once per ``ctx`` (X-BYTES, P-CANONICAL and the
    generation all read it)."""
    cached = ctx.__dict__.get("_canonical_diagnosis")
    if cached is not None:
        return cached
    diag = _diagnose(ctx)
    ctx.__dict__["_canonical_diagnosis"] = diag
    return diag


def _diagnose(ctx) -> CanonicalDiagnosis:
    data, canon = ctx.payload, ctx.canonical
    offset = first_difference(data, canon)
    diffs: list[Difference] = []
    diag_more = False
    # whitespace outside strings (each run between two tokens is one place)
    for m in _WS_OUTSIDE_STRINGS.finditer(data):
        if m.group(0)[:1] != b'"':
            ws = m.group(0)
            if len(diffs) >= _MAX_LISTED:
                diag_more = True
                break
            if m.end() == len(data):
                diffs.append(Difference("trailing-newline", m.start(), "", ours("whitespace after the document"),
                                        ours("end of file"), ours(repr(ws.decode()))))  # whitespace only
            elif b"\r\n" in ws:
                diffs.append(Difference("crlf", m.start(), "", ours("CRLF line break between tokens"),
                                        ours("no whitespace"), ours(repr(ws.decode()))))
            else:
                diffs.append(Difference("whitespace", m.start(), "", ours("whitespace between tokens"),
                                        ours("no whitespace"), ours(repr(ws.decode()))))
    detailed = len(data) <= DETAIL_LIMIT
    tree = ctx.pay_tree if detailed else None
    if tree is not None:
        typed: list[Difference] = []  # the walk's own cap: whitespace never crowds out a value difference
        _walk(data, tree, ctx.pay, typed)
        diffs += typed
    elif detailed:
        # The typed decode succeeded but a plain JSON parse fails: serde skipped an unknown key's
        # value without validating it (IgnoredAny), and that value is not valid on its own.
        try:
            parse_value(data)
        except SerdeError as e:
            diffs.append(Difference("unknown-key-dropped", _skipped_value_start(data, e.offset or 0), "",
                                    fmt("an unknown key's value is skipped unvalidated by the reference and is not "
                                        "valid JSON data on its own ({})", e.text()), ours("key dropped"),
                                    "value rejected: " + e.message))
    diffs.sort(key=lambda d: d.offset)
    primary = None
    for d in diffs:
        if d.offset <= offset:
            primary = d
    if primary is None and diffs:
        primary = diffs[0]
    if primary is not None and primary.expected is not None:
        expected, actual = primary.expected, primary.actual
    else:
        expected, actual = _snippet(canon, offset), _snippet(data, offset)
    # snippets of the file and of its re-encoding, or a difference's own values: of no one place
    expected = expected if expected is None or isinstance(expected, Text) else _fv(expected)
    actual = actual if actual is None or isinstance(actual, Text) else _fv(actual)
    diag = CanonicalDiagnosis(offset, primary.pointer if primary else "", expected, actual, diffs)
    diag.primary = primary
    diag.generation = _generation(ctx) if detailed else None
    diag.notes.append(ours(f"first differing byte: offset {offset}"))
    if not detailed:
        diag.notes.append(ours(f"the file is over {DETAIL_LIMIT >> 20} MiB: only whitespace differences are classified"))
    for kind in diag.classes:
        first = next(d for d in diffs if d.kind == kind)
        count = sum(1 for d in diffs if d.kind == kind)
        # the class, offsets and counts are ours; the pointer is the file's (its keys judged as keys);
        # a difference's own sentence quotes the file's keys and spellings: a value of no one place
        where = fmt(" at {}", _fv(first.pointer, "payload", first.pointer, role=POINTER)) if first.pointer else ""
        places = f"{count}{'+' if diag_more and kind in ('whitespace', 'crlf') else ''} places"
        detail = "" if first.text == _CLASS_TEXT[kind] or first.kind in ("whitespace", "crlf") else \
            fmt("; {}", first.text if isinstance(first.text, Text) else _fv(first.text))
        diag.notes.append(ours(f"{_CLASS_TEXT[kind]}: first at byte {first.offset}") + where
                          + (f" ({places})" if count > 1 else "") + detail)
    if diag.generation:
        diag.notes.append(ours(diag.generation))
    newer = newer_summary(diffs)
    if newer:
        diag.notes.append(ours(newer))
    diag.notes.extend(unreproducible_order_notes(ctx.pay))
    return diag


def _skipped_value_start(data: bytes, offset: int) -> int:
    """Byte offset where the unknown key's value holding ``offset`` (the place a plain parse
    fails: a number out of range, or the depth limit hit deep inside) starts; ``offset`` itself
    when no skipped value starts at or before it. Skipped values do not nest, so the last start
    at or before ``offset`` is the one holding it."""
    from inspector.checkpoint.schema import model as S
    from inspector.checkpoint.schema.typed import decode

    starts: list[int] = []
    try:
        decode(data, S.PAYLOAD, skipped=starts)
    except SerdeError:
        return offset
    return max((s for s in starts if s <= offset), default=offset)


#: The typed walk's safety stop (differences kept), far above what one edit makes.
_WALK_LIMIT = 20_000


def _walk(data: bytes, root: Node, typed_root, out: list) -> None:
    """Compare the file's span tree with the typed re-encoding, appending :class:`Difference` s.

    An explicit stack (no recursion per nesting level). It walks the whole tree (the file is at most
    ``DETAIL_LIMIT`` bytes) and stops only past ``_WALK_LIMIT`` differences, so many differences of one
    class (hundreds of unknown keys) never hide another class found later in the file."""
    stack = [(root, typed_root, "")]
    while stack and len(out) <= _WALK_LIMIT:
        node, typed, pointer = stack.pop()
        if node.kind == "object":
            if isinstance(typed, dict):
                _object(data, node, typed, pointer, out, stack)
            else:
                out.append(Difference("value-form", node.start, pointer, ours("object rewritten by the reference")))
        elif node.kind == "array":
            if is_yolo_lanes(pointer) and isinstance(typed, list):
                _yolo(data, node, typed, pointer, out)
            elif isinstance(typed, list):
                stack.extend((child, t, f"{pointer}/{i}") for (i, _s, child), t in zip(node.children, typed))
            elif isinstance(typed, dict):
                name = struct_name(pointer, typed) or "a struct"
                out.append(Difference("value-form", node.start, pointer,
                                      ours(f"{name} written as a JSON array: serde reads a sequence into a struct in "
                                           "field order, the reference writes it back as an object"),
                                      ours("an object"), ours("an array")))
            else:
                out.append(Difference("value-form", node.start, pointer, ours("array rewritten by the reference")))
        else:
            _scalar(data, node, typed, pointer, out)


def _object(data: bytes, node: Node, typed: dict, pointer: str, out: list, stack: list) -> None:
    keys = [k for k, _s, _n in node.children]
    name = struct_name(pointer, typed)
    of = f" of {name}" if name else " of this struct"
    where = f" from {'the ' if name and name.endswith(' event') else ''}{name}" if name else ""
    if len(set(keys)) != len(keys):
        seen = set()
        for k, ks, _n in node.children:
            if k in seen:
                out.append(Difference("duplicate-key", ks, f"{pointer}/{_esc(k)}",
                                      fmt("key {} repeated", _key(k, f"{pointer}/{_esc(k)}"))))
            seen.add(k)
    for (a, _s, _n), (b, bs, _m) in zip(node.children, node.children[1:]):
        if b < a:
            out.append(Difference("key-order", bs, f"{pointer}/{_esc(b)}",
                                  fmt("{} comes after {}", _key(b, f"{pointer}/{_esc(b)}"), _key(a, f"{pointer}/{_esc(a)}"))))
            break
    alias = is_task(pointer) and "description" in keys and "content" in typed and "content" not in keys \
        and "description" not in typed
    for k, ks, child in node.children:
        p = f"{pointer}/{_esc(k)}"
        if k in typed:
            stack.append((child, typed[k], p))
        elif k == "api_key":
            out.append(Difference("api-key", ks, p, ours("the reference never writes api_key"), ours("no api_key key"),
                                  ours("api_key")))
        elif k == "todos" and "tasks" in typed:
            out.append(Difference("todos-alias", ks, p, ours("read as `tasks`"), ours('"tasks"'), ours('"todos"')))
        elif k == "description" and alias:
            out.append(Difference("task-description-alias", ks, p,
                                  ours("Task.content written under its read-only alias `description`: A3S Code reads "
                                       "it and always writes `content`"), ours('"content"'), ours('"description"')))
        elif pointer == "" and k == "logical_resume" and child.kind == "null":
            out.append(Difference("logical-resume-null", ks, p, ours("null reads as absent"), ours("key omitted"),
                                  ours('"logical_resume":null')))
        elif (newer := newer_field(p)) is not None:
            field_name, release = newer
            # a field of a later release (its name from the release table, not the file)
            out.append(Difference("newer-field", ks, p, ours(f"{field_name}, added in {RELEASES[release]}"),
                                  ours("key dropped"), ours(f"{k!r}")))
        elif child.kind == "null":
            out.append(Difference("null-dropped", ks, p,
                                  fmt("{}: null is dropped{} (an optional field written only when set, "
                                      "or an unknown key)", _key(k, p), ours(where)), ours("key omitted"),
                                  fmt("{}:null", _fv(k, "payload", p, role=KEY, form=lambda x: '"%s"' % x))))
        else:
            out.append(Difference("unknown-key-dropped", ks, p,
                                  fmt("key {} is not a field{} (which does not deny unknown fields: "
                                      "the key is dropped on read)", _key(k, p), ours(of)), ours("key dropped"),
                                  _key(k, p)))
    present = set(keys) | ({"tasks"} if "todos" in keys else set()) | ({"content"} if alias else set())
    for k in typed:
        if k not in present:
            # where the reference writes it: before the first key that sorts after it
            at = next((ks for kk, ks, _n in node.children if kk > k), node.end - 1)
            # a field of the layout the file leaves out: its name and the value the reference writes
            # (its read default) are the format's
            out.append(Difference("default-field-missing", at, f"{pointer}/{_esc(k)}",
                                  ours(f"the reference writes {k} = {encode(typed[k]).decode()[:60]}"
                                       f"{where.replace(' from ', ' in ', 1)}"),
                                  ours(f"{k!r} present"), ours("absent")))


def _yolo(data: bytes, node: Node, typed: list, pointer: str, out: list) -> None:
    """``ConfirmationPolicy.yolo_lanes``: a Rust ``HashSet`` (FORMAT.md 3.1 "order not reproducible", 7.8)."""
    text = data[node.start:node.end]
    if text == encode(typed):
        return
    lanes = [child.value for _i, _s, child in node.children]
    if sorted(set(map(str, lanes))) == sorted(map(str, typed)) and len(lanes) != len(typed):
        twice = sorted({str(x) for x in lanes if lanes.count(x) > 1})
        out.append(Difference("set-duplicate", node.start, pointer,
                              fmt("ConfirmationPolicy.yolo_lanes lists {} more than once: it is a set, "
                                  "so A3S Code keeps each lane once and writes it back once",
                                  _val(twice, pointer, ", ".join(twice))),
                              _val(typed, pointer, encode(typed).decode()[:80]),
                              _val(lanes, pointer, text.decode("utf-8", "replace")[:80])))
    elif sorted(map(str, lanes)) == sorted(map(str, typed)):
        out.append(Difference("set-order", node.start, pointer,
                              ours("ConfirmationPolicy.yolo_lanes is a hash set: A3S Code writes its lanes in an order "
                                   "it cannot reproduce itself when it reads them back, so the reference rejects this "
                                   "artifact too (or accepts it, at random, from one run to the next); this is not "
                                   "tampering"), _val(typed, pointer, encode(typed).decode()[:80]),
                              _val(lanes, pointer, text.decode("utf-8", "replace")[:80])))
    else:
        out.append(Difference("value-form", node.start, pointer,
                              fmt("written {}", _val(typed, pointer, encode(typed).decode()[:60])),
                              _val(typed, pointer, encode(typed).decode()[:80]),
                              _val(lanes, pointer, text.decode("utf-8", "replace")[:80])))


def _scalar(data: bytes, node: Node, typed, pointer: str, out: list) -> None:
    text = data[node.start : node.end]
    want = encode(typed)
    if text == want:
        return
    if node.kind == "number" and isinstance(typed, (int, float)) and not isinstance(typed, bool):
        v = node.value
        tstr = text.decode()
        if isinstance(typed, float) and isinstance(v, float) and typed != v:
            f32 = f32_field(pointer)
            what = f"{f32} is an f32: " if f32 else ""
            out.append(Difference("f32-not-exact", node.start, pointer,
                                  fmt("{}{} is written back as {}", ours(what), _val(v, pointer, tstr),
                                      _val(typed, pointer, want.decode())),
                                  _val(typed, pointer, want.decode()), _val(v, pointer, tstr)))
        elif isinstance(v, float) and _correct(tstr) != v:
            out.append(Difference("float-misparse", node.start, pointer,
                                  fmt("{} denotes {} but serde_json reads {}", _val(v, pointer, tstr),
                                      _val(_correct(tstr), pointer, repr(_correct(tstr))),
                                      _val(typed, pointer, want.decode())),
                                  _val(typed, pointer, want.decode()), _val(v, pointer, tstr)))
        else:
            out.append(Difference("number-spelling", node.start, pointer,
                                  fmt("{} is written {}", _val(v, pointer, tstr), _val(typed, pointer, want.decode())),
                                  _val(typed, pointer, want.decode()), _val(v, pointer, tstr)))
    elif node.kind == "string" and isinstance(typed, dict) and is_permission_rule(pointer) \
            and typed.get("rule") == node.value:
        out.append(Difference("permission-rule-string", node.start, pointer,
                              "PermissionRule written as a plain string: A3S Code reads that form and always "
                              "writes the object {\"rule\": ...}", _val(typed, pointer, want.decode()[:80]),
                              _val(node.value, pointer, text.decode("utf-8", "replace")[:80])))
    elif node.kind == "string" and isinstance(typed, str) and is_cost_timestamp(pointer):
        out.append(Difference("timestamp-normalised", node.start, pointer,
                              fmt("LlmCostRecord.timestamp: the reference changes {}",
                                  _val(node.value, pointer, timestamp_change(node.value))),
                              _val(typed, pointer, want.decode()[:80]),
                              _val(node.value, pointer, text.decode("utf-8", "replace")[:80])))
    elif node.kind == "string" and isinstance(typed, str):
        out.append(Difference("escape-form", node.start, pointer,
                              fmt("written {}", _val(typed, pointer, want.decode()[:60])),
                              _val(typed, pointer, want.decode()[:80]),
                              _val(node.value, pointer, text.decode("utf-8", "replace")[:80])))
    else:
        out.append(Difference("value-form", node.start, pointer,
                              fmt("written {}", _val(typed, pointer, want.decode()[:60])),
                              _val(typed, pointer, want.decode()[:80]),
                              _val(getattr(node, "value", None), pointer, text.decode("utf-8", "replace")[:80])))


def _correct(text: str) -> float:
    try:
        return float(text)
    except (ValueError, OverflowError):  # pragma: no cover - tokens here are valid JSON numbers
        return float("nan")


def _esc(k: str) -> str:
    return escape_pointer_token(k)


def _generation(ctx) -> str | None:
    """Does the file match the earlier reference generation (FORMAT.md 3.4)?"""
    data = ctx.payload
    pay = ctx.pay
    snap = pay["snapshot"]
    tree = ctx.pay_tree
    snap_node = tree.find("/snapshot") if tree is not None else None
    if snap_node is None or snap_node.child("retained_artifact_uris") is not None:
        return None
    older = dict(pay)
    older["snapshot"] = {k: v for k, v in snap.items() if k != "retained_artifact_uris"}
    if encode(older) == data or encode_reference(older, plus_exponent=False) == data:
        return ("the bytes are exactly what the earlier reference generation (commits b49e2b2/b5ab240, snapshot "
                "without retained_artifact_uris) writes: written by another version, not corrupted")
    return None
