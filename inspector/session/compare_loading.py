"""The comparison view's door to the engine (no Qt: also imported by worker processes).

:func:`compare_paths` reads two payloads (or two descriptors), indexes both for the trees, verifies
each on its own and compares them (:func:`inspector.checkpoint.analysis.compare.compare_documents`); the
window gets a :class:`CompareResult` of plain rows. Above :data:`.engine.PROCESS_THRESHOLD` the
parse, verification and comparison run in spawned processes (a thread would freeze the window:
parsing holds the GIL), like a large load; Cancel terminates them. :func:`canonical_paths` does the
same for the canonical diff view.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field

from inspector import checkpoint
from inspector.checkpoint.roles import WHOLE_BYTES
from inspector.checkpoint.safeopen import open_regular, read_fd
from inspector.checkpoint.sdk_export import looks_like_export

import orjson

from inspector.session.series import HistoryOrder, history_order
from inspector.session.engine import PROCESS_THRESHOLD, Cancelled, UserError, ensure_worker
from inspector.checkpoint.jsontext.lazyjson import BIG, ScanError, SpanIndex, build_index
from inspector.session.workers import ChildTask, child_index, read_file

__all__ = ["CompareSide", "ChangeRow", "CompareResult", "compare_paths", "same_kind", "same_kind_as", "canonical_path",
           "MAX_ROWS"]

#: At most this many changes are listed in the window (the summary counts them all).
MAX_ROWS = 20000


@dataclass
class CompareSide:
    """One compared file: ``path``, ``data`` (bytes), ``size``, ``role`` (payload/descriptor),
    ``index`` (span index for the tree, ``None`` when not JSON), ``parse_error`` (message) and its
    own verdict: ``verdict`` (one line), ``ok`` (True verified / no rule failed, False a rule
    failed), ``rule`` (the root cause's rule id)."""

    path: str
    data: bytes | None
    size: int
    role: str
    index: SpanIndex | None = None
    parse_error: str | None = None
    verdict: str = ""
    ok: bool | None = None
    rule: str | None = None


@dataclass(frozen=True)
class ChangeRow:
    """One change as the window lists it (texts already cut for display)."""

    op: str
    kind: str
    item: str
    a_pointer: str | None
    b_pointer: str | None
    a_text: str
    b_text: str
    invalidates: tuple


@dataclass
class CompareResult:
    """What the comparison view shows: both sides, the change rows (at most :data:`MAX_ROWS`;
    ``total`` counts all), the summary line, the component digests ``(name, a, b, changed)`` and
    the alignment (``index_map``, see :meth:`.compare.Comparison.map_pointer`)."""

    a: CompareSide
    b: CompareSide
    kind: str
    rows: list = field(default_factory=list)
    total: int = 0
    summary: str = ""
    components: list = field(default_factory=list)
    index_map: dict = field(default_factory=dict)
    bytes_equal: bool = False
    seconds: float = 0.0
    #: Two payloads: how they stand in their session's history (:class:`~inspector.session.series.HistoryOrder`;
    #: A is the earlier when one is later), else ``None``.
    order: object = None

    def comparison(self):
        """A :class:`~inspector.checkpoint.analysis.compare.Comparison` carrying only the alignment
        (for :meth:`~inspector.checkpoint.analysis.compare.Comparison.map_pointer`)."""
        from inspector.checkpoint.analysis.compare import Comparison

        return Comparison(self.kind, index_map=self.index_map)


def same_kind(paths: list[str]) -> str | None:
    """``payload`` or ``descriptor`` when both files are clearly of that kind (their content
    decides, as for :func:`inspector.checkpoint.pair_inputs`, which refuses such a pair), else
    ``None`` (also when a file cannot be read, or is not a regular file: never blocks on a FIFO,
    :mod:`inspector.checkpoint.safeopen`). Bounded (a file over 1 MiB is a payload by its size;
    an SDK export wrapper of any size is neither; smaller ones are read whole: the roles of
    :mod:`inspector.checkpoint.roles`). Worker thread only (it reads files): it routes two dropped
    files to the comparison view (:func:`inspector.session.routing.route_paths`).

    Raises:
        RuntimeError: called on the GUI thread.
    """
    ensure_worker()
    roles = []
    for p in paths:
        try:
            fd, st = open_regular(p)
            try:
                if st.st_size > WHOLE_BYTES:  # a payload by its size, unless it opens as an SDK export wrapper
                    roles.append(None if looks_like_export(read_fd(fd, 256, st.st_size)) else "payload")
                    continue
                data = read_fd(fd, WHOLE_BYTES, st.st_size)
            finally:
                os.close(fd)
        except (OSError, ValueError):
            return None
        role, _hint, doubt = checkpoint.detect_role(data)
        roles.append(role if doubt is None else None)
    if len(roles) == 2 and roles[0] == roles[1] and roles[0] in ("payload", "descriptor"):
        return roles[0]
    return None


def same_kind_as(first: str, second: str, open_files: list[str]) -> str:
    """The file to compare ``second`` with: ``first`` when both are of one kind (:func:`same_kind`), else
    the first of ``open_files`` (the window's open descriptor, then payload) of ``second``'s kind (a
    descriptor picked while a pair is open is compared with the open descriptor, not refused as "payload
    and descriptor"), else ``first``. Worker thread only (it reads files; raises ``RuntimeError`` on the
    GUI thread)."""
    if same_kind([first, second]) is not None:
        return first
    for other in open_files:
        if other and other != first and same_kind([other, second]) is not None:
            return other
    return first


def _verdict(role: str, data: bytes, size: int) -> tuple[str, bool | None, str | None]:
    report = checkpoint.verify(data if role == "payload" else None, data if role == "descriptor" else None,
                               payload_size=size if role == "payload" else None)
    rc = report.root_cause
    if rc is None:
        return ("no rule failed (checked on its own, without its " +
                ("descriptor)" if role == "payload" else "payload)")), True, None
    return f"{rc.rule.id}: {rc.message}", False, rc.rule.id


def _rows(comparison, a: bytes, b: bytes) -> list[ChangeRow]:
    """The first :data:`MAX_ROWS` changes of ``comparison`` of the files ``a`` and ``b``, each value as its
    file spells it (with the decoded value when that is written otherwise: ``1.0e2 (= 100.0)``; what
    ``diff`` prints, :func:`~inspector.checkpoint.analysis.compare_output.change_texts`)."""
    from inspector.checkpoint.analysis.compare_output import change_texts, locate_changes

    spans = locate_changes(comparison, a, b, MAX_ROWS, 0)  # (a canonical file spells values as decoded)
    rows = []
    for c in comparison.changes[:MAX_ROWS]:
        a_text, b_text = change_texts(c, spans, a, b, 200)
        rows.append(ChangeRow(c.op, c.kind, c.item or "", c.old_pointer, c.new_pointer, a_text, b_text,
                              c.invalidates))
    return rows


def _compare_bytes(a: bytes, b: bytes, role: str, sizes: tuple[int, int]) -> dict:
    """Verdicts and comparison of two byte strings: a picklable dict (worker thread or process)."""
    from inspector.checkpoint.analysis.compare import compare_documents

    out = {"verdicts": [_verdict(role, d, n) for d, n in ((a, sizes[0]), (b, sizes[1]))], "swapped": False,
           "order": None}
    if role == "payload":  # the earlier export is A, the later B, whichever was picked first (FORMAT.md 4.18)
        order = _order(a, b)
        out["order"] = order
        if order.order == "earlier":
            a, b = b, a
            out["swapped"] = True
            out["verdicts"].reverse()
            out["order"] = HistoryOrder("later", order.sentence.replace("A is later than B", "B is later than A"))
    try:
        c = compare_documents(a, b, role)
    except checkpoint.SerdeError as e:
        out["error"] = f"{'A' if getattr(e, 'side', 'A') == 'A' else 'B'} is not JSON the reference reads: {e}"
        return out
    out.update(rows=_rows(c, a, b), total=len(c.changes), summary=c.summary(), bytes_equal=c.bytes_equal,
               components=[(d.name, d.old, d.new, d.changed) for d in c.components], index_map=c.index_map)
    return out


def _order(a: bytes, b: bytes) -> HistoryOrder:
    """:func:`~inspector.session.series.history_order` of two payload files' bytes (``unknown`` when one does
    not decode as JSON)."""
    try:
        return history_order(orjson.loads(a), orjson.loads(b))
    except orjson.JSONDecodeError:
        return history_order(None, None)


def _child_compare(conn, path_a: str, path_b: str, role: str) -> dict:
    """:func:`_compare_bytes` of the two files in a worker process, with ``out["seen"]``: the identity of
    each file's bytes compared (``workers.read_file``)."""
    (da, seen_a), (db, seen_b) = read_file(path_a), read_file(path_b)
    out = _compare_bytes(da, db, role, (len(da), len(db)))
    out["seen"] = (seen_a, seen_b)
    return out


def _read_one(path: str):
    """The :class:`~inspector.checkpoint.InputFile` at ``path``; :class:`~inspector.checkpoint.UnreadableInput` or
    :class:`UserError` (both :class:`~inspector.checkpoint.diagnostic.InspectorError`) when it cannot be read."""
    f = checkpoint.read_input(path)
    if f.data is None:
        raise UserError(f"{checkpoint.display_path(path)}: {f.hint}")
    return f


def _read(paths: list[str]) -> list:
    files = [_read_one(p) for p in paths]
    roles = [f.role for f in files]
    if roles[0] != roles[1] or roles[0] not in ("payload", "descriptor"):
        names = " and ".join(f"{checkpoint.display_path(f.path)} ({f.role})" for f in files)
        raise UserError(f"Compare two payloads or two descriptors; got {names}.")
    return files


def _same_file(f, seen: tuple | None) -> None:
    """Raise :class:`UserError` unless a worker's read of ``f``'s file (its identity ``seen``,
    ``workers.read_file``) was of the bytes read here (``f``: an ``InputFile``; same size and mtime)."""
    if seen is None or seen[2:] != (f.size, f.mtime_ns):
        raise UserError(f"{checkpoint.display_path(f.path)}: the file changed while it was being read; "
                        "try again")


def _run_children(tasks: list[ChildTask], progress, cancel, label: str) -> list:
    """Run ``tasks`` one after the other (two cores: in parallel each was slower), pumping
    messages, reporting progress and honouring ``cancel``; returns their results."""
    results = []
    t0 = time.perf_counter()
    try:
        for k, task in enumerate(tasks):
            task.start()
            last = -1.0
            while not task.done:
                if cancel():
                    raise Cancelled()
                task.pump(0.05)
                now = time.perf_counter() - t0
                if now - last >= 0.25:
                    last = now
                    frac = (k + (task.progress or 0.0)) / len(tasks)
                    progress(int(100 * frac), f"{label}… {now:.0f} s")
            results.append(task.result())
            task.terminate()
    finally:
        for task in tasks:
            task.terminate()
    return results


def compare_paths(paths: list[str], *, progress=None, cancel=None) -> CompareResult:
    """Read, index, verify and compare two files (worker thread).

    Raises:
        UserError: unreadable input, not two files of the same kind, or a file that is not JSON.
        Cancelled: the user cancelled.
    """
    ensure_worker()
    cancel = cancel or (lambda: False)
    progress = progress or (lambda pct, text: None)
    t0 = time.perf_counter()
    progress(0, "Reading both files…")
    fa, fb = _read(paths)
    sides = [CompareSide(f.path, f.data, f.size, f.role) for f in (fa, fb)]
    if cancel():
        raise Cancelled()
    large = max(fa.size, fb.size) > PROCESS_THRESHOLD
    if large:
        tasks = [ChildTask(child_index, (fa.path, BIG)), ChildTask(child_index, (fb.path, BIG)),
                 ChildTask(_child_compare, (fa.path, fb.path, fa.role))]
        indexed_a, indexed_b, out = _run_children(tasks, progress, cancel, "Comparing")
        (ia, seen_a), (ib, seen_b) = (indexed_a.index, indexed_a.seen), (indexed_b.index, indexed_b.seen)
        # the trees' spans and the differences must be of the bytes read here
        for f, seen in zip((fa, fb, fa, fb), (seen_a, seen_b, *out.pop("seen"))):
            _same_file(f, seen)
        for side, idx in zip(sides, (ia, ib)):
            if isinstance(idx, ScanError):
                side.parse_error = str(idx)
            else:
                side.index = idx
    else:
        for side in sides:
            try:
                checkpoint.parse_value(side.data)
                side.index = build_index(side.data, big=BIG)
            except (checkpoint.SerdeError, ScanError) as e:
                side.parse_error = str(e)
        progress(40, "Verifying and comparing…")
        out = _compare_bytes(fa.data, fb.data, fa.role, (fa.size, fb.size))
    if cancel():
        raise Cancelled()
    if out.get("swapped"):  # B was the earlier export: it is shown as A
        sides.reverse()
    for side, (text, ok, rule) in zip(sides, out["verdicts"]):
        side.verdict, side.ok, side.rule = text, ok, rule
    if "error" in out:
        raise UserError(out["error"])
    return CompareResult(sides[0], sides[1], fa.role, out["rows"], out["total"], out["summary"], out["components"],
                         out["index_map"], out["bytes_equal"], time.perf_counter() - t0, out.get("order"))


def _child_canonical(conn, path: str, kind: str):
    """``(canonical diff, seen)`` of the file in a worker process; ``seen``: the identity of the bytes read
    (``workers.read_file``)."""
    from inspector.checkpoint.analysis.canondiff import canonical_diff

    data, seen = read_file(path)
    cd = canonical_diff(data, kind)
    # the window has the file and needs only the canonical bytes' size and whether they are the
    # file's (kept in cd.canonical_size and cd.same, so a canonical file still reads as canonical)
    cd.data = cd.canonical = None
    return cd, seen


def canonical_path(path: str, *, progress=None, cancel=None):
    """The file at ``path`` beside its canonical form (:func:`.canondiff.canonical_diff`), in a
    worker process for large files (worker thread).

    Raises:
        UserError: unreadable input. Cancelled: the user cancelled.
    """
    from inspector.checkpoint.analysis.canondiff import canonical_diff

    ensure_worker()
    cancel = cancel or (lambda: False)
    progress = progress or (lambda pct, text: None)
    f = _read_one(path)
    kind = "payload" if f.role == "payload" else "json"
    if f.size > PROCESS_THRESHOLD:
        ((cd, seen),) = _run_children([ChildTask(_child_canonical, (path, kind))], progress, cancel,
                                      "Re-encoding and aligning")
        _same_file(f, seen)
        cd.data = f.data
        return cd
    progress(20, "Re-encoding and aligning…")
    return canonical_diff(f.data, kind)
