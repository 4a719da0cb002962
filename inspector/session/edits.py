"""Sandbox edits (no Qt): apply the user's edits to copies of the documents and recompute (worker thread).

The files on disk are never changed; :func:`apply_edits` returns the recomputed
:class:`~.engine.Analysis` of the edited copies.
"""

from __future__ import annotations

from dataclasses import dataclass

from inspector import checkpoint
from inspector.checkpoint.analysis.restore import NoProof, restore_original

from inspector.session.engine import Analysis, Side, UserError, analyse_bytes, ensure_worker
from inspector.checkpoint.jsontext.lazyjson import ScanError, build_index, find_span
from inspector.session.writing import write_new_file

__all__ = ["restore_to", "Edit", "apply_edits", "apply_edit", "replace_bytes"]



@dataclass(frozen=True)
class Edit:
    """One sandbox edit, as the user asked for it.

    ``op``: ``value`` (replace one scalar: ``pointer``, ``span`` in the document the window
    showed when the edit was made, ``kind`` and ``text`` as for :func:`apply_edit`) or ``raw``
    (replace the whole ``source`` document with ``data``).
    """

    op: str
    source: str
    pointer: str = ""
    span: tuple = (0, 0)
    kind: str = ""
    text: str = ""
    data: bytes = b""


def _encode_edit(kind: str, text: str) -> bytes:
    if kind == "string":
        value = text
    else:
        try:
            value = checkpoint.parse_value(text.strip().encode("utf-8"))
        except checkpoint.SerdeError as e:
            raise UserError(f"{text!r} is not a JSON value ({e}); put quotes around text") from None
    return checkpoint.encode(value)


def apply_edits(payload: Side | None, descriptor: Side | None, edits: list[Edit]) -> Analysis:
    """Apply ``edits`` in order to the sandbox copies, then recompute once (worker thread).

    Every ``value`` edit's span refers to the document the window showed (``payload`` /
    ``descriptor`` as passed): spans after an earlier edit are shifted by its change in length,
    and editing the same value twice replaces the first new value. After a ``raw`` edit of a
    document its tree spans no longer apply, so later value edits of it are located by pointer.
    An edit that cannot be applied (not a JSON value, the value is gone) is skipped and its
    message returned in ``Analysis.edit_errors``; when none can be applied :class:`UserError`
    is raised with the first message.

    Returns:
        the recomputed :class:`Analysis`; ``edited_sources`` says which documents were changed.
    """
    ensure_worker()
    sides = {"payload": payload, "descriptor": descriptor}
    data = {k: (v.data if v is not None else None) for k, v in sides.items()}
    # Per document: [orig_start, orig_end, current_new_length] of each value replaced so far.
    done: dict[str, list[list[int]]] = {"payload": [], "descriptor": []}
    raw = {"payload": False, "descriptor": False}
    errors: list[str] = []
    changed: set[str] = set()
    for ed in edits:
        src = ed.source
        if ed.op == "raw":
            data[src] = ed.data
            raw[src] = True
            done[src] = []
            changed.add(src)
            continue
        try:
            if data[src] is None:
                raise UserError(f"there is no {src} to edit")
            new = _encode_edit(ed.kind, ed.text)
            cur = data[src]
            if raw[src]:
                try:
                    span = find_span(cur, build_index(cur), ed.pointer)
                except ScanError:
                    span = None
                if span is None:
                    raise UserError(f"{ed.pointer} is no longer in the edited {src}")
                s, e = span
            else:
                s0, e0 = ed.span
                same = next((r for r in done[src] if r[0] == s0 and r[1] == e0), None)
                if any(r is not same and r[0] < e0 and s0 < r[1] for r in done[src]):
                    raise UserError(f"{ed.pointer} overlaps an earlier edit")
                s = s0 + sum(r[2] - (r[1] - r[0]) for r in done[src] if r[1] <= s0)
                e = s + (same[2] if same is not None else e0 - s0)
                if same is not None:
                    same[2] = len(new)
                else:
                    done[src].append([s0, e0, len(new)])
            data[src] = cur[:s] + new + cur[e:]
            changed.add(src)
        except UserError as err:
            errors.append(str(err))
    if not changed:
        raise UserError(errors[0] if errors else "nothing to change")
    out = {}
    for src, side in sides.items():
        if src in changed:
            path = side.path if side is not None else None
            mtime = side.mtime_ns if side is not None else 0
            out[src] = Side(src, path, data[src], len(data[src]), mtime, None)
        else:
            out[src] = _fresh(side)
    result = analyse_bytes(out["payload"], out["descriptor"])
    result.edit_errors = errors
    result.edited_sources = changed
    return result


def apply_edit(payload: Side | None, descriptor: Side | None, source: str, span: tuple[int, int],
               kind: str, text: str) -> Analysis:
    """Replace one scalar value in the sandbox copy and recompute (worker thread).

    Args:
        source: ``payload`` or ``descriptor``: which document is edited.
        span: byte span of the value being replaced.
        kind: the value's JSON kind; for ``string`` the text is taken literally, otherwise it
            must be a JSON value (``42``, ``true``, ``null``, ``"text"``...).
        text: the new value.

    Returns:
        the recomputed :class:`Analysis`; the edited side's ``data`` holds the new bytes,
        with the new value written as canonical JSON (the engine's ``encode``).

    Raises:
        UserError: the text is not a JSON value.
    """
    return apply_edits(payload, descriptor, [Edit("value", source, "", tuple(span), kind, text)])


def replace_bytes(payload: Side | None, descriptor: Side | None, source: str, data: bytes) -> Analysis:
    """Recompute with one side's sandbox bytes replaced wholesale (raw text editor)."""
    return apply_edits(payload, descriptor, [Edit("raw", source, data=data)])


def _fresh(side: Side | None) -> Side | None:
    if side is None:
        return None
    return Side(side.source, side.path, side.data, side.size, side.mtime_ns, side.hint)




def restore_to(payload: bytes, descriptor: bytes, path: str) -> str:
    """Write the exported payload, restored from ``payload`` (a copy re-saved or converted in transport), to the
    new file ``path`` when its SHA-256 proves it (:func:`inspector.checkpoint.analysis.restore.restore_original`).
    Worker thread. Returns ``path``.

    Raises:
        UserError: no original can be proven (why, in plain words), the descriptor does not decode,
            ``path`` exists (never written over; a FIFO or device is never opened), or the file could not
            be written whole (disk full, ...: nothing is left of it, :func:`.writing.write_new_file`).
    """
    ensure_worker()
    desc, error = checkpoint.Context(None, descriptor).desc_result
    if error is not None:
        raise UserError(f"No original can be restored: the descriptor does not decode (D-PARSE: {error.text()}).")
    try:
        original, _proof = restore_original(bytes(payload), desc)
    except NoProof as e:
        raise UserError(f"No original can be restored: {e}.") from None
    try:
        write_new_file(path, original)  # a new file only, whole or not at all
    except FileExistsError:
        raise UserError(f"{path} already exists; choose a new file name (nothing is ever overwritten).") from None
    except OSError as e:
        raise UserError(f"{path} could not be written: {e.strerror or type(e).__name__}. Nothing was saved "
                        "(no part of the file was left).") from None
    return path
