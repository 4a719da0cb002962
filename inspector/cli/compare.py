"""``checkpoint-inspector diff A B`` and ``checkpoint-inspector canon --diff FILE``.

``diff``: the semantic diff of two payloads or two descriptors (:mod:`inspector.checkpoint.analysis.compare`)
as text, JSON, or an RFC 6902 JSON Patch turning A into B. Exit 0 equal, 1 different, 2 bad input.

``canon --diff``: the file's pretty-printed form beside the canonical bytes the reference would
write, as a unified diff with byte offsets, and the P-CANONICAL difference classes
(:mod:`inspector.checkpoint.analysis.canondiff`). Exit 0 canonical, 1 different (or the reference would
not write it), 2 bad input.

Both text outputs are terminal-safe (:mod:`.termsafe`): every line they print goes through
:func:`.termsafe.terminal_safe`, so keys, values and pointers from the files are escaped and stay
on their lines. ``--format json`` and ``--format patch`` keep the exact values.
"""

from __future__ import annotations

from inspector import jsonschemas

import orjson

from inspector.checkpoint import SerdeError, display_path, file_uri
from inspector.checkpoint.artifact import expand_exports
from inspector.checkpoint.analysis.canondiff import LAYOUT_CLASSES, canonical_diff, unified
from inspector.checkpoint.diagnosis.diagnose import class_text
from inspector.checkpoint import encode
from inspector.checkpoint.analysis.compare import MISSING, Comparison, compare_documents, dump_json, preview
from inspector.checkpoint.analysis.compare_output import change_texts, locate_changes, to_patch

from .termsafe import terminal_safe, terminal_safe_lines

__all__ = ["cmd_diff", "run_diff", "cmd_canon_diff", "diff_text", "diff_json"]

EXIT_OK, EXIT_FAIL = 0, 1


def cmd_diff(args, read, usage_error, out) -> int:
    """``diff A B``: returns 0 (equal), 1 (different); raises ``usage_error`` (exit 2) on bad input."""
    files = [read(args.a), read(args.b)]
    # an SDK export wrapper compares as the payload it holds (FORMAT.md 1); UnreadableInput when its content
    # cannot be taken out (an InspectorError: exit 2)
    files = [expand_exports([f])[0] if f.data is not None else f for f in files]
    for side, f in zip("AB", files):
        if f.data is None:
            raise usage_error(f"{side}: {display_path(f.path)}: {f.hint}")
        if f.role == "unknown":
            raise usage_error(f"{side}: {display_path(f.path)}: {f.hint or 'neither a payload nor a descriptor'}")
    if files[0].role != files[1].role:
        raise usage_error(f"A is a {files[0].role} and B is a {files[1].role}: compare two payloads or two "
                          "descriptors")
    try:
        comparison = compare_documents(files[0].data, files[1].data, files[0].role)
    except SerdeError as e:
        side = getattr(e, "side", "A")
        f = files[0] if side == "A" else files[1]
        raise usage_error(f"{side}: {display_path(f.path)} is not JSON the reference reads: "
                          f"{terminal_safe(str(e))} (byte {e.offset if e.offset is not None else e.index})") from None
    if args.format == "json":
        out(diff_json(comparison, files))
    elif args.format == "patch":
        out(orjson.dumps(to_patch(comparison), option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
            if _shallow(comparison) else _patch_deep(comparison))
    else:
        out(diff_text(comparison, files))
    return EXIT_OK if comparison.equal else EXIT_FAIL


def _shallow(comparison: Comparison) -> bool:
    try:
        orjson.dumps([c.new for c in comparison.changes if c.new is not MISSING])
        return True
    except (orjson.JSONEncodeError, RecursionError):
        return False


def _patch_deep(comparison: Comparison) -> bytes:
    ops = to_patch(comparison)
    return b"[\n" + b",\n".join(b"  " + dump_json(op) for op in ops) + b"\n]\n"


def string_window(old: str, new: str, width: int = 60) -> tuple[int, str, str]:
    """``(index of the first differing character, old excerpt, new excerpt)`` around it."""
    i = 0
    n = min(len(old), len(new))
    while i < n and old[i] == new[i]:
        i += 1
    if max(len(old), len(new)) <= 2 * width:
        return i, old, new
    lo = max(0, i - width // 3)
    cut = (lambda s: ("…" if lo else "") + s[lo:lo + width] + ("…" if len(s) > lo + width else ""))
    return i, cut(old), cut(new)


def typed_note(c: Comparison) -> str:
    """The line saying both sides were compared as the reference's typed values
    (:attr:`Comparison.typed_sides` non-empty): keys the reference does not know are dropped."""
    sides = " and ".join(c.typed_sides)
    return (f"Note: {sides} {'holds' if len(c.typed_sides) == 1 else 'hold'} a value serde_json::Value cannot read "
            "(nested deeper than 128, or a number out of range) under a key the reference does not know and "
            "skips; both files are compared as the reference reads them (typed): keys it does not know are "
            "dropped (see 'checkpoint-inspector check')")


def diff_text(c: Comparison, files) -> str:
    """The text report: inputs, summary, component digests, then each change; each line
    terminal-safe (:func:`.termsafe.terminal_safe`)."""
    a, b = files
    lines = [f"A: {display_path(a.path)} ({a.role}, {a.size} bytes)",
             f"B: {display_path(b.path)} ({b.role}, {b.size} bytes)"]
    if c.typed_sides:
        lines.append(typed_note(c))
    if c.equal:
        if c.typed_sides and not c.bytes_equal:
            lines.append("Same " + c.kind + " as the reference reads it: the typed values are equal; the files "
                         "differ only in keys the reference drops, defaults, formatting, key order or number spelling")
        else:
            lines.append("Same " + c.kind + (": the files are byte-identical" if c.bytes_equal else
                         ": the values are equal; the files differ only in formatting, key order or number spelling "
                         "(see 'checkpoint-inspector canon --diff')"))
        return _text(lines)
    lines.append(f"Summary: {c.summary()}")
    if c.components:
        lines.append("Content digests:")
        for d in c.components:
            state = "changed" if d.changed else "same"
            name = {"payload": "payload file", "snapshot": "snapshot", "logical_resume": "logical resume",
                    "descriptor": "descriptor file"}[d.name]
            if d.changed:
                lines.append(f"  {name:15} {state}: {d.old or '(none)'} -> {d.new or '(none)'}")
            else:
                lines.append(f"  {name:15} {state}: {d.old or '(none)'}")
    lines.append(f"{len(c.changes)} change{'s' if len(c.changes) != 1 else ''}:")
    spans = _spans(c, files)
    for ch in c.changes:
        where = ch.old_pointer if ch.op != "added" else ch.new_pointer
        if ch.op == "changed" and ch.old_pointer != ch.new_pointer:
            where = f"{ch.old_pointer} (B: {ch.new_pointer})"
        elif ch.op == "added":
            where = f"{ch.new_pointer} (B)"
        what = f"{ch.kind} " if ch.kind != "value" else ""
        lines.append(f"  {ch.op} {what}{where or '(the whole document)'}" + (f"  [{ch.item}]" if ch.item else ""))
        if ch.op == "changed" and isinstance(ch.old, str) and isinstance(ch.new, str):
            i, o, n = string_window(ch.old, ch.new)
            if (o, n) == (ch.old, ch.new):  # whole: as the files spell them (the window's GUI list says the same)
                o, n = change_texts(ch, spans, a.data, b.data, 200)
            else:  # an excerpt around the first difference, decoded
                o, n = preview(o, 200), preview(n, 200)
            lines.append(f"      A: {o}")
            lines.append(f"      B: {n}")
            at = [_char_byte(spans[s].get(p), v, i) for s, p, v in ((0, ch.old_pointer, ch.old),
                                                                      (1, ch.new_pointer, ch.new))]
            where_bytes = ", ".join(f"{side} byte {b}" for side, b in zip("AB", at) if b is not None)
            lines.append(f"      first difference at character {i}" + (f" ({where_bytes})" if where_bytes else ""))
        else:
            o, n = change_texts(ch, spans, a.data, b.data)
            if ch.old is not MISSING:
                lines.append(f"      A: {o}")
            if ch.new is not MISSING:
                lines.append(f"      B: {n}")
            located = [f"{side} {spans[s][p][0]}..{spans[s][p][1]}" for s, side, p in
                       ((0, "A", ch.old_pointer), (1, "B", ch.new_pointer)) if p is not None and p in spans[s]]
            if located:
                lines.append(f"      bytes: {', '.join(located)}")
        if ch.invalidates:
            lines.append(f"      stale in the descriptor: {', '.join(ch.invalidates)}")
    return _text(lines)


def _text(lines: list[str]) -> str:
    """The lines of a text output, each terminal-safe, newline-terminated."""
    return "\n".join(terminal_safe(line) for line in lines) + "\n"


#: In a canonical file, byte spans are looked up for the first this many changes (a lookup re-encodes siblings).
_LOCATED = 200


def _spans(c: Comparison, files) -> tuple[dict, dict]:
    # every change in a file that is not canonical (one span tree: its values' spellings), the first few in one
    # that is (where a span only says where)
    return locate_changes(c, files[0].data, files[1].data, None, _LOCATED)


def _char_byte(span, text: str, i: int) -> int | None:
    """File offset of character ``i`` of the string at ``span`` (exact in canonical files,
    where the string is written as ``encode(text)``; else the string's first byte)."""
    if span is None:
        return None
    start, _end, canonical = span
    return start + len(encode(text[:i])) - 1 if canonical else start


def diff_json(c: Comparison, files) -> bytes:
    """The JSON report (``--format json``): inputs, ``equal``, ``summary``, ``counts``,
    ``components``, ``typed_read`` (sides only the reference's typed read reads; when non-empty
    both were compared typed, unknown keys dropped), ``changes`` (``op``, ``kind``, ``item``, ``a_pointer``, ``b_pointer``,
    ``a_value``/``b_value`` when present, ``invalidates``)."""
    def side(f):
        return {"path": display_path(f.path), "uri": None if f.path == "-" else file_uri(f.path), "role": f.role,
                "size": f.size}

    changes = []
    for ch in c.changes:
        row = {"op": ch.op, "kind": ch.kind, "item": ch.item, "a_pointer": ch.old_pointer, "b_pointer": ch.new_pointer}
        if ch.old is not MISSING:
            row["a_value"] = ch.old
        if ch.new is not MISSING:
            row["b_value"] = ch.new
        row["invalidates"] = list(ch.invalidates)
        changes.append(row)
    doc = {"schema": jsonschemas.DIFF, "kind": c.kind, "a": side(files[0]), "b": side(files[1]), "equal": c.equal, "bytes_equal": c.bytes_equal,
           "typed_read": list(c.typed_sides),
           "summary": c.summary(),
           "counts": [{"kind": k, "op": op, "count": n} for (k, op), n in sorted(c.counts().items())],
           "components": [{"name": d.name, "a": d.old, "b": d.new, "changed": d.changed} for d in c.components],
           "changes": changes}
    try:
        return orjson.dumps(doc, option=orjson.OPT_INDENT_2 | orjson.OPT_APPEND_NEWLINE)
    except (orjson.JSONEncodeError, RecursionError):
        return dump_json(doc) + b"\n"


def cmd_canon_diff(args, read, usage_error, out) -> int:
    """``canon --diff FILE``: 0 when the file is canonical, 1 when not (or not decodable). The
    text is terminal-safe: each line of the diff and of the notes (:mod:`.termsafe`)."""
    f = read(args.file)
    if f.data is None:
        raise usage_error(f"{display_path(args.file)}: {f.hint}")
    kind = "payload" if f.role == "payload" else "json"
    cd = canonical_diff(f.data, kind)
    name = display_path(f.path)
    if cd.error:
        out(_text([f"{name}: {cd.error}"]))
        return EXIT_FAIL
    if cd.equal:
        out(_text([f"{name}: canonical ({len(f.data)} bytes are exactly what the reference writes)"]))
        return EXIT_OK
    text = terminal_safe_lines(unified(cd, name))  # one line per pretty-printed line of the file
    notes = []
    if not any(r.tag != "equal" for r in cd.rows):
        notes.append("The pretty-printed forms are the same: only whitespace between tokens differs.")
    notes.append(f"First differing byte: file offset {cd.first_offset}.")
    if cd.diagnosis is not None:
        notes.append("Difference classes (P-CANONICAL):")
        for kind_ in cd.diagnosis.classes:
            diffs = [d for d in cd.diagnosis.differences if d.kind == kind_]
            first = diffs[0]
            where = f" {first.pointer}" if first.pointer else ""
            detail = "" if kind_ in LAYOUT_CLASSES or first.text == class_text(kind_) else f"; {first.text}"
            layout = " (not shown line by line)" if kind_ in LAYOUT_CLASSES else ""
            notes.append(f"  {kind_}: {class_text(kind_)}: {len(diffs)} place{'s' if len(diffs) != 1 else ''}"
                         f"{layout}, first at byte {first.offset}{where}{detail}")
        notes += [f"  {n}" for n in cd.diagnosis.notes if n.startswith(("order not reproducible", "the file is over"))]
        if cd.diagnosis.generation:
            notes.append(f"  {cd.diagnosis.generation}")
    else:
        notes.append("Difference classes are named for payloads only (this file is not a payload).")
    out(text + _text(notes))
    return EXIT_FAIL



def run_diff(args) -> int:
    """The ``diff`` command as :mod:`.main` runs it: :func:`cmd_diff` with the CLI's reader, usage error and
    standard output (:mod:`.common`)."""
    from .common import UsageError, out, read_file

    return cmd_diff(args, read_file, UsageError, out)
