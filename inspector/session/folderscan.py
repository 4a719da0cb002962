"""Folder scans for the GUI and ``scan`` (no Qt; runs on a worker thread): every checkpoint in a source with its
verdict.

A source is a local folder, an fsspec URL prefix or a JSON Lines file of SDK export wrappers
(:mod:`.sources`). Files are classified from a bounded read, payloads are paired with descriptors by digest and
then by name, and each pair is verified by the engine (``inspector.checkpoint.verify``), which is given bytes.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass

from inspector import checkpoint
from inspector.checkpoint.diagnostic import InspectorError
from inspector.checkpoint.pairing import file_sha256, pair_by_digest, stated_binding
from inspector.checkpoint.safeopen import read_regular
from inspector.checkpoint.roles import WHOLE_BYTES, FileRole, role_of_entry, role_of_path
from inspector.session import engine
from inspector.session.engine import Cancelled, ensure_worker
from inspector.session.sources import (EXPORT_LINES_SUFFIXES, Entry, ExportLines, FsspecSource, LocalFolder, Source,
                                       SourceError, fs_protocols)
from inspector.session.workers import ChildTask, WorkerError

__all__ = ["FolderRow", "CheckpointFacts", "scan_folder", "scan_source", "CLASSIFY_WHOLE"]


@dataclass
class FolderRow:
    """One checkpoint found in a folder: its files, and the engine's verdict on them.

    A file that is neither a payload nor a descriptor is listed too, with ``other`` set to its
    path (``payload`` and ``descriptor`` ``None``), ``checkpoint`` False and ``summary`` saying why.
    """

    payload: str | None
    descriptor: str | None
    verified: bool
    ok: bool
    root_rule: str | None
    summary: str
    other: str | None = None
    #: What the checkpoint says about itself, for its session's series (:mod:`.series`): from the decoded
    #: payload, else the descriptor; ``None`` when neither says.
    facts: "CheckpointFacts | None" = None

    @property
    def checkpoint(self) -> bool:
        """True when the row is a checkpoint (a payload, a descriptor or both), False for a file that is not one."""
        return self.other is None


#: Files up to this size are classified from their whole content; larger ones are streamed once
#: (:data:`inspector.checkpoint.roles.WHOLE_BYTES`).
CLASSIFY_WHOLE = WHOLE_BYTES


@dataclass
class _Found:
    """A file in a folder, classified without keeping its bytes (except small descriptors)."""

    path: str
    size: int
    role: str
    hint: str | None
    data: bytes | None = None  # kept for descriptors (small) only
    sha256: str | None = None
    entry: object = None  # the source's Entry when the file is not a local path (a URL, a line of a .jsonl)
    source: object = None


def _classify_file(path: str) -> _Found:
    """Role of one local file, read once (:func:`inspector.checkpoint.roles.role_of_path`, the one place roles are
    decided). A FIFO or device is refused without blocking (``NotAFile``, an ``OSError``)."""
    return _found(path, role_of_path(path))


def _found(path: str, r: "FileRole", **where) -> _Found:
    """The :class:`_Found` of a file at ``path`` (``where``: its source and entry) from what its read decided."""
    return _Found(path, r.size, r.role, r.hint, r.data, r.sha256, **where)


def _classify_entry(source: Source, entry) -> _Found:
    """:func:`_classify_file` for an entry of a source that is not a local folder (a URL, a line of a JSON
    Lines file): its whole content (bounded by the content ceiling, the wrapper ceiling when its head opens as a
    wrapper) read once through the source and judged by :func:`inspector.checkpoint.file_role`. An entry listed
    as over the ceiling that does not open as a wrapper is a payload by its size, not downloaded."""
    return _found(entry.location, role_of_entry(source.head(entry, 256), entry.size, lambda n: source.read(entry, n)),
                  entry=entry, source=source)


def _read_found(f: _Found) -> bytes:
    """The whole bytes of a found file (at most the 256 MiB ceiling plus one), through its source or the safe
    reader. Raises ``OSError`` or :class:`~.sources.SourceError`."""
    if f.source is not None:
        return f.source.read(f.entry)
    return read_regular(f.path)[0]


def scan_folder(folder: str, *, progress=None, partial=None, cancel=None, recursive: bool = False) -> list[FolderRow]:
    """:func:`scan_source` of the local folder ``folder`` (its subfolders too when ``recursive``)."""
    return scan_source(LocalFolder(folder, recursive=recursive), progress=progress, partial=partial, cancel=cancel)


def scan_source(source: Source, *, progress=None, partial=None, cancel=None) -> list[FolderRow]:
    """Find every checkpoint in ``source`` (:mod:`.sources`) and verify each (worker thread).

    Files are classified from one bounded read (whole when at most :data:`CLASSIFY_WHOLE` bytes, else
    streamed and hashed: :mod:`inspector.checkpoint.roles`); only descriptors are kept in memory. Payloads and descriptors are paired by
    digest: a descriptor belongs to the payload whose SHA-256 (streamed) equals its
    ``content_digest``. Unpaired files are listed alone. Each payload is read when its
    verification runs, so one file's bytes are held at a time. Files that are neither a payload
    nor a descriptor come last, as rows with ``other`` set. ``partial(row)`` is called as each
    row is ready.
    """
    ensure_worker()
    cancel = cancel or (lambda: False)
    files, others = _classify_folder(source, progress, cancel)
    payloads = [f for f in files if f.role == "payload"]
    for i, f in enumerate(payloads):
        if progress:
            progress(30 + int(20 * i / max(len(payloads), 1)), f"Hashing {_base(f.path)}…")
        if f.sha256 is None and f.size <= checkpoint.MAX_CONTENT_BYTES:  # (most were hashed as they were read)
            if f.source is None:
                f.sha256 = file_sha256(f.path, lambda: _stop_if(cancel))
            else:
                try:
                    f.sha256 = "sha256:" + hashlib.sha256(f.source.read(f.entry)).hexdigest()
                except SourceError:
                    f.sha256 = None
    descs = [(f, f.path, _stated_digest(f)) for f in files if f.role == "descriptor"]
    pairs = pair_by_digest([(f, f.path, f.sha256) for f in payloads], descs)
    pairs += [(f, f) for f in files if f.role == "export"]
    pairs.sort(key=lambda pd: (pd[0] or pd[1]).path)
    rows = []
    for i, (p, d) in enumerate(pairs):
        if cancel():
            raise Cancelled()
        if progress:
            progress(50 + int(50 * i / max(len(pairs), 1)), f"Verifying {_base((p or d).path)}…")
        rows.append(_row(p, d, *_verify_pair(p, d, cancel)))
        if partial:
            partial(rows[-1])
    for row in others:
        rows.append(row)
        if partial:
            partial(row)
    return rows


def _base(location: str) -> str:
    return location.rstrip("/").replace("\\", "/").rsplit("/", 1)[-1]


def _classify_folder(source: Source, progress, cancel) -> tuple[list[_Found], list[FolderRow]]:
    """``(checkpoint files, rows of the other files)`` of ``source`` (hidden files skipped).

    Raises:
        SourceError: the source cannot be listed."""
    entries = [e for e in source.entries() if not e.name.startswith(".")]
    local = source.local_paths
    files: list[_Found] = []
    others: list[FolderRow] = []
    for i, entry in enumerate(entries):
        path = entry.location
        if progress:
            progress(int(30 * i / max(len(entries), 1)), f"Reading {entry.name}…")
        if entry.name.lower().endswith(EXPORT_LINES_SUFFIXES) and not isinstance(source, ExportLines):
            files += _export_lines(entry, others)  # (a sink's exports.jsonl in the folder: its lines)
            continue
        try:
            f = _classify_file(path) if local else _classify_entry(source, entry)
        except OSError as e:
            others.append(FolderRow(None, None, False, False, None,
                                    f"not read: {e.strerror or type(e).__name__}", other=path))
            continue
        except SourceError as e:
            others.append(FolderRow(None, None, False, False, None, f"not read: {e.reason}", other=path))
            continue
        if f.role == "unknown":
            why = f.hint or "neither a checkpoint payload nor a descriptor was recognised"
            others.append(FolderRow(None, None, False, False, None, f"not a checkpoint: {why}", other=path))
        else:
            files.append(f)
        if cancel():
            raise Cancelled()
    return files, others


def _export_lines(entry, others: list) -> list[_Found]:
    """The SDK export wrappers of a JSON Lines file found in a folder (FORMAT.md 8: one per line, as a host's
    sink appends them), each line ``FILE:LINE`` as :class:`.sources.ExportLines` reads it. A file none of whose
    lines is an export is one other row (a ``cases.jsonl`` of test data is not hundreds of rows); a line that
    is not one, beside lines that are, is its own other row."""
    lines = ExportLines(entry.location)
    try:
        found = [_classify_entry(lines, e) for e in lines.entries()]
    except SourceError as e:
        others.append(FolderRow(None, None, False, False, None, f"not read: {e.reason}", other=entry.location))
        return []
    exports = [f for f in found if f.role == "export"]
    if not exports:
        others.append(FolderRow(None, None, False, False, None, "not a checkpoint: a JSON Lines file that holds "
                                "no SDK export wrapper", other=entry.location))
        return []
    for f in found:
        if f.role != "export":
            others.append(FolderRow(None, None, False, False, None, "not a checkpoint: a line that is not an SDK "
                                    "export wrapper", other=f.path))
    return exports


def _stated_digest(f: _Found) -> str | None:
    """A descriptor's ``content_digest`` (its bytes read now when the classification did not keep them)."""
    if f.data is None:
        try:
            f.data = _read_found(f)
        except (OSError, ValueError, SourceError):
            f.data = b""
    return stated_binding(f.data)[1]


def _stop_if(cancel) -> None:
    if cancel():
        raise Cancelled()


def _verify_pair(p: _Found | None, d: _Found | None, cancel):
    """``(report, facts)`` of one pair (a large payload in a worker process; one file's bytes held at a time;
    an SDK export wrapper is both, verified as the pair it holds); ``(_Unreadable, None)`` for a wrapper whose
    content cannot be taken out, and for a large payload the worker process could not read or finish."""
    if p is not None and p.role == "export":
        try:
            if p.source is None:
                wrapper = checkpoint.read_input(p.path)
            else:
                data = p.source.read(p.entry)
                wrapper = checkpoint.InputFile(p.path, len(data), data, *checkpoint.detect_role(data)[:2])
            pay, desc = checkpoint.pair_inputs([wrapper])
        except InspectorError as e:  # (UnreadableInput, PairingError, SourceError)
            return _Unreadable(e.diagnostics()), None
        return _verify_in_process(pay.data if pay else None, desc.data if desc else None,
                                  pay.size if pay else None)
    ddata = d.data if d else None
    where = _child_source(p) if (p is not None and engine.PROCESS_THRESHOLD < p.size
                                 <= checkpoint.MAX_CONTENT_BYTES) else None
    if where is not None:
        task = ChildTask(child_verify_facts, (*where, ddata))
        task.start()
        try:
            while not task.done:
                if cancel():
                    raise Cancelled()
                task.pump(0.05)
        finally:
            task.terminate()
        try:
            return task.result()  # (report, facts): the same facts as in this process (FORMAT.md 4.18)
        except WorkerError as e:  # (the worker ran out of memory or was killed: this file only)
            return _Unreadable(f"the worker process verifying it stopped ({e.error_type})"), None
    pdata, psize = None, None
    if p is not None and p.source is not None:  # a URL or a line: read through its source, verified here
        try:
            pdata = p.source.read(p.entry)
            psize = len(pdata)
            if psize > checkpoint.MAX_CONTENT_BYTES:
                pdata = None
        except SourceError:
            pdata, psize = b"", 0
    elif p is not None:
        try:
            f = checkpoint.read_input(p.path)  # read now, dropped after this row
            pdata, psize = f.data, f.size
        except checkpoint.UnreadableInput:
            pdata, psize = b"", 0
    return _verify_in_process(pdata, ddata, psize)


def _verify_in_process(pdata: bytes | None, ddata: bytes | None, psize: int | None):
    kept: list = []
    report = checkpoint.verify(pdata, ddata, payload_size=psize, keep=kept)
    return report, _facts_of(kept[0], report, pdata is not None, ddata is not None)


def _child_source(p: _Found) -> tuple[Source, Entry] | None:
    """The source and entry a worker process reads the payload ``p`` through (it takes an entry, never a path
    of its own), or ``None`` when ``p`` is verified in this process: a source that does not travel to another
    process (a line of a JSON Lines file, a ``memory://`` store, a subset of a source)."""
    if p.source is None:
        return LocalFolder(os.path.dirname(p.path) or "."), Entry(p.path, os.path.basename(p.path), p.size, "")
    if type(p.source) is LocalFolder:
        return p.source, p.entry
    if type(p.source) is FsspecSource and "memory" not in fs_protocols(p.source.fs):
        return p.source, p.entry
    return None


def child_verify_facts(conn, source: Source, entry: Entry, descriptor: bytes | None):
    """Verify the payload ``entry`` of ``source`` (read through it, at most the 256 MiB ceiling plus one byte)
    in a child process (folder scans of payloads over ``engine.PROCESS_THRESHOLD`` bytes) and return
    ``(report, CheckpointFacts)``: the facts are computed from the same parse, by the same function as in the
    scanning process, so a file's size never changes what the scan says about it (FORMAT.md 4.18). ``conn`` is
    the job's pipe (unused). Raises :class:`~.sources.SourceError` when the entry cannot be read (the scan
    says the payload could not be read)."""
    try:
        data = source.read(entry)
    except SourceError as e:  # (gone, or the share stopped answering, since the listing)
        return _Unreadable(e.reason), None
    kept: list = []
    report = checkpoint.verify(data, descriptor, payload_size=len(data), views=False, keep=kept)
    facts = _facts_of(kept[0], report, True, descriptor is not None)
    report.canonical_bytes = None  # (as large as the file; the scan does not show it)
    return report, facts


def _facts_of(ctx, report, has_payload: bool, has_descriptor: bool) -> "CheckpointFacts":
    """The facts of a verified pair from the verification's context ``ctx`` (its one parse)."""
    pay = ctx.pay_result[0] if has_payload else None
    desc = ctx.desc_result[0] if has_descriptor else None
    digest = ctx.payload_digest if has_payload else None
    canonical = None
    restoration = getattr(report, "restoration", None)
    if restoration is not None:
        canonical = restoration.content_digest  # (gzip or a byte order mark undone too: restore's proof)
    elif isinstance(pay, dict) and not ctx.is_canonical:
        canonical = "sha256:" + hashlib.sha256(ctx.canonical).hexdigest()
    return _facts(pay, desc if isinstance(desc, dict) else None, digest, report, canonical)


@dataclass(frozen=True)
class CheckpointFacts:
    """Where one checkpoint sits in its session (FORMAT.md 4, 3.2): ``session_id``; ``run_id`` (the loop
    checkpoint's source run, else ``None``); ``passes`` (completed tool rounds: ``logical_resume.turn``, else
    ``None`` for a snapshot without a loop checkpoint); ``checkpoint_ms`` (``logical_resume.checkpoint_ms``, else
    the session's ``updated_at`` in ms); ``content_digest`` (the payload's SHA-256, ``sha256:...``, when read);
    ``resumability`` (the resumability answer, or ``None``); ``restorable``: X-BYTES failed and the original is
    proven (``Report.restoration``).

    For the order of a session's exports (FORMAT.md 4.18), computed once from the decoded payload:
    ``history``: each run the payload records (``run_records[].snapshot.id``) with its largest retained
    ``RunEventRecord.sequence`` (-1 when no event is retained), ``None`` when the payload was not decoded (a
    descriptor alone says nothing about history); ``pass_kinds``: per run, each pass whose ``turn_start`` is
    retained, as ``"tools"`` (``turn_end`` then the ``tool_end`` of every call of that reply before the next
    ``turn_start``: an export was due, FORMAT.md 4.17 step 5), ``"continuation"`` (a reply without tool call:
    no export) or ``"open"`` (not seen to complete); ``canonical_digest``: the SHA-256 (``sha256:...``) of the
    payload's canonical form when it differs from the bytes (a re-saved copy), else ``None``;
    ``stated_digest``: the descriptor's ``content_digest``, when a descriptor was read."""

    session_id: str | None
    run_id: str | None
    passes: int | None
    checkpoint_ms: int | None
    content_digest: str | None
    resumability: str | None
    restorable: bool = False
    history: dict | None = None
    pass_kinds: dict | None = None
    canonical_digest: str | None = None
    stated_digest: str | None = None


def _facts(pay: dict | None, desc: dict | None, content_digest: str | None, report,
           canonical_digest: str | None = None) -> CheckpointFacts:
    """The facts of one checkpoint: the decoded payload's when it decoded, else its descriptor's (any shape)."""
    res = getattr(getattr(report, "resumability", None), "answer", None)
    restorable = getattr(report, "restoration", None) is not None
    stated = desc.get("content_digest") if isinstance(desc, dict) else None
    stated = stated if isinstance(stated, str) else None
    if isinstance(pay, dict):
        snap, lr = pay.get("snapshot"), pay.get("logical_resume")
        snap = snap if isinstance(snap, dict) else {}
        session = snap.get("session") if isinstance(snap.get("session"), dict) else {}
        updated = session.get("updated_at")
        ms = lr.get("checkpoint_ms") if isinstance(lr, dict) else (updated * 1000 if isinstance(updated, int) else None)
        history, kinds = _history(snap.get("run_records"))
        return CheckpointFacts(session.get("id"), lr.get("run_id") if isinstance(lr, dict) else None,
                               lr.get("turn") if isinstance(lr, dict) else None, ms, content_digest, res, restorable,
                               history, kinds, canonical_digest, stated)
    if isinstance(desc, dict):  # (a descriptor alone: any shape at all)
        snap, lr = desc.get("snapshot"), desc.get("logical_resume")
        snap = snap if isinstance(snap, dict) else {}
        lr = lr if isinstance(lr, dict) else {}
        return CheckpointFacts(snap.get("session_id"), lr.get("source_run_id"), lr.get("completed_tool_rounds"),
                               lr.get("checkpoint_ms"), content_digest or stated, res, restorable,
                               stated_digest=stated)
    return CheckpointFacts(None, None, None, None, content_digest, res, restorable)


def _history(records) -> tuple[dict, dict]:
    """``(history, pass_kinds)`` of a decoded payload's ``run_records`` (see :class:`CheckpointFacts`;
    FORMAT.md 4.17 "One pass, in this order", "Stream retry", "Sequences and trimming")."""
    history: dict[str, int] = {}
    kinds: dict[str, dict[int, str]] = {}
    for rec in records if isinstance(records, list) else ():
        snap = rec.get("snapshot") if isinstance(rec, dict) else None
        run = snap.get("id") if isinstance(snap, dict) else None
        if not isinstance(run, str):
            continue
        events = rec.get("events")
        events = events if isinstance(events, list) else []
        seqs = [e["sequence"] for e in events if isinstance(e, dict) and isinstance(e.get("sequence"), int)]
        history[run] = max(seqs + [history.get(run, -1), -1])
        kinds[run] = _pass_kinds(events)
    return history, kinds


def _pass_kinds(events: list) -> dict[int, str]:
    """Each pass whose ``turn_start`` is retained: ``"tools"``, ``"continuation"`` or ``"open"`` (see
    :class:`CheckpointFacts`). A retried ``turn_start`` with the same number supersedes the first attempt."""
    kinds: dict[int, str] = {}
    cur: list | None = None  # [turn, calls of the reply, ended calls, turn_end seen]

    def close() -> None:
        if cur is not None:
            turn, calls, ended, done = cur
            kinds[turn] = "open" if not done else "continuation" if not calls else \
                "tools" if calls <= ended else "open"

    for rec in events:
        ev = rec.get("event") if isinstance(rec, dict) else None
        if not isinstance(ev, dict):
            continue
        kind = ev.get("type")
        if kind == "turn_start" and isinstance(ev.get("turn"), int):
            close()
            cur = [ev["turn"], set(), set(), False]
        elif cur is None:
            continue  # before the first retained turn_start: that pass is unknown
        elif kind == "turn_end" and ev.get("turn") == cur[0]:
            cur[3] = True
        elif kind == "tool_start" and not cur[3]:
            cur[1].add(ev.get("id"))
        elif cur[3] and kind in ("tool_execution_start", "confirmation_required", "permission_denied"):
            cur[1].add(ev.get("id") if kind == "tool_execution_start" else ev.get("tool_id"))
        elif cur[3] and kind == "tool_end":
            cur[2].add(ev.get("id"))
    close()
    return kinds


@dataclass
class _Unreadable:
    """A file the engine could not read as what it claims to be (an SDK export wrapper with bad base64)."""

    why: str


def _row(p: _Found | None, d: _Found | None, report, facts: CheckpointFacts | None = None) -> FolderRow:
    if isinstance(report, _Unreadable):
        return FolderRow(p.path if p else None, d.path if d else None, False, False, None, f"not read: {report.why}")
    rc = report.root_cause
    if report.verified:
        summary = "VERIFIED"
    elif rc is not None:
        summary = f"FAIL {rc.rule.id}: {rc.message}"
    else:
        summary = "consistent (one file only)"
    return FolderRow(p.path if p else None, d.path if d else None, report.verified, report.ok,
                     rc.rule.id if rc else None, summary, facts=facts)
