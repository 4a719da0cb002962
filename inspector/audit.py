"""``checkpoint-inspector audit``: verify every checkpoint under a source on Dask.

The source is anything the source seam reads (:func:`inspector.session.sources.open_source`: a local folder,
an fsspec URL prefix, a JSON Lines file of SDK export wrappers). Its entries are listed once, grouped by folder
(pairing is within a folder, by digest, exactly as ``scan`` pairs: :func:`.folderscan.scan_source`), and the
folders are packed into batches of about :data:`BATCH_FILES` files. Each batch is one Dask task: the worker
opens the source again, reads and verifies its files in-process (no process start per file), and returns the
folder scan's rows. The client writes one JSON Lines record per checkpoint (and per file that is none) as the
batches finish, and then the summary: totals by verdict, by root-cause rule, by resumability, and by session
(FORMAT.md 4.18: how many sessions have a single latest export that verifies and is resumable).

Records carry no message text, tool data or other content: locations (without credentials), sizes, the
payload's SHA-256, ids (through the ticket's redaction gate: a credential-shaped id is a marker), run and pass,
the rule id of the root cause and the resumability answer.

Dask (``dask.distributed``, the ``audit`` extra) is imported only when an audit runs: by default a
``LocalCluster`` of worker processes on this machine, or the cluster at ``scheduler``.
"""

from __future__ import annotations

import collections
import json
import os
import time
from dataclasses import dataclass, field

from inspector.checkpoint.digest import MAX_CONTENT_BYTES
from inspector.session.sources import Entry, Source, open_source, shown_location

__all__ = ["RECORD_SCHEMA", "SUMMARY_SCHEMA", "BATCH_FILES", "AuditResult", "batches", "audit_batch", "run_audit",
           "records_of", "summarize"]

#: The name and version of one JSON Lines record of RESULTS (a change of its shape changes the version).
RECORD_SCHEMA = "checkpoint-inspector.audit-record.v1"
#: The name and version of the summary (``--summary FILE.json``).
SUMMARY_SCHEMA = "checkpoint-inspector.audit-summary.v1"
#: About how many files one Dask task verifies (a folder is never split: its files pair with each other).
BATCH_FILES = 200


class _Subset(Source):
    """The entries ``entries`` of ``source`` only (one batch): reads go to ``source``."""

    def __init__(self, source: Source, entries: list[Entry]):
        self.source, self._entries = source, list(entries)
        self.location = getattr(source, "location", "")

    def entries(self) -> list[Entry]:
        return list(self._entries)

    def read(self, entry: Entry, limit: int = MAX_CONTENT_BYTES) -> bytes:
        return self.source.read(entry, limit)

    def head(self, entry: Entry, n: int) -> bytes:
        return self.source.head(entry, n)

    def token(self, entry: Entry) -> str | None:
        return self.source.token(entry)

    def __getattr__(self, name):  # what a particular source offers beyond the seam (a local folder's path)
        return getattr(self.source, name)


def _folder_of(location: str) -> str:
    """The folder (or prefix) of an entry's location; a line ``FILE:LINE`` of a JSON Lines file: ``FILE``."""
    head, _, tail = location.rpartition(":")
    return head if head and tail.isdigit() else os.path.dirname(location)


def batches(entries: list[Entry], size: int = BATCH_FILES) -> list[list[Entry]]:
    """``entries`` in batches of about ``size`` files, each folder whole and in one batch (its payloads and
    descriptors pair with each other), folders in name order.

    Raises:
        ValueError: ``size`` < 1.
    """
    if size < 1:
        raise ValueError("a batch holds at least one file")
    by_folder: dict[str, list[Entry]] = collections.defaultdict(list)
    for e in entries:
        by_folder[_folder_of(e.location)].append(e)
    out: list[list[Entry]] = []
    current: list[Entry] = []
    for folder in sorted(by_folder):
        group = by_folder[folder]
        if current and len(current) + len(group) > size:
            out.append(current)
            current = []
        current = current + group
    if current:
        out.append(current)
    return out


def audit_batch(location: str, recursive: bool, entries: list[Entry]) -> tuple[list, float]:
    """Verify one batch (a Dask task, or a thread without Dask): ``(folder scan rows, seconds)``.

    The source is opened again here (``location``, ``recursive``: what :func:`.sources.open_source` takes), so
    only strings and entries travel to the worker, never a connection or credentials.
    """
    import threading

    from inspector.session.folderscan import scan_source

    t0 = time.perf_counter()
    src = _Subset(open_source(location, recursive=recursive), entries)
    out: list = []
    if threading.current_thread() is threading.main_thread():  # (the engine never runs on a main thread)
        t = threading.Thread(target=lambda: out.append(scan_source(src)), name="audit batch")
        t.start()
        t.join()
        if not out:
            raise RuntimeError("the batch could not be verified")
        rows = out[0]
    else:
        rows = scan_source(src)
    return rows, time.perf_counter() - t0


def _id(gate, pointer: str, value):
    """An id as the ticket's gate shows it (a credential-shaped one is a marker), ``None`` as it is."""
    if value is None:
        return None
    shown, kind = gate.judge("payload", pointer, value)
    return value if shown else gate.mark(value, kind or gate.kind("payload", pointer))


def records_of(rows: list, sizes: dict[str, int | None]) -> list[dict]:
    """One record (:data:`RECORD_SCHEMA`) per row of a batch: see the module's text for what it holds.

    Args:
        rows: :class:`.folderscan.FolderRow` of one batch.
        sizes: each entry's location and its listed size in bytes (``None`` when the source does not say).
    """
    from inspector.ticket import Gate

    gate = Gate(file_digests=True)  # (the payload's SHA-256 is what an operator matches the store with)
    out = []
    for r in rows:
        f = r.facts
        rec = {"schema": RECORD_SCHEMA,
               "payload": shown_location(r.payload) if r.payload else None,
               "descriptor": shown_location(r.descriptor) if r.descriptor else None,
               "payload_bytes": sizes.get(r.payload) if r.payload else None,
               "descriptor_bytes": sizes.get(r.descriptor) if r.descriptor else None,
               "sha256": f.content_digest if f else None,
               "session_id": _id(gate, "/snapshot/session/id", f.session_id) if f else None,
               "run_id": _id(gate, "/logical_resume/run_id", f.run_id) if f else None,
               "pass": f.passes if f else None,
               "verified": bool(r.verified),
               "root_cause": r.root_rule,
               "resumability": f.resumability if f else None,
               "checkpoint": r.checkpoint}
        if not r.checkpoint:
            rec["other"] = shown_location(r.other)
            rec["error"] = "not a checkpoint file"
        elif not r.verified and r.root_rule is None:
            rec["error"] = "could not be read or verified"
        out.append(rec)
    return out


@dataclass
class AuditResult:
    """What :func:`run_audit` found: ``records`` written, the folder scan ``rows`` (for the sessions),
    ``seconds`` of wall time, ``batches`` sent, the ``slowest`` batches ``(seconds, first location)``."""

    records: int = 0
    rows: list = field(default_factory=list)
    seconds: float = 0.0
    batches: int = 0
    slowest: list = field(default_factory=list)


def run_audit(location: str, result: AuditResult, *, recursive: bool = True, scheduler: str | None = None,
              workers: int | None = None, batch: int = BATCH_FILES, progress=None):
    """Audit ``location`` on Dask: a generator of the records as lines of JSON (``str``, each ending in a
    newline, UTF-8 when encoded), yielded as their batch finishes; ``result`` is filled as it goes.
    ``scheduler``: the address of a running cluster (``tcp://HOST:8786``), else a ``LocalCluster`` of
    ``workers`` worker processes (default: the machine's cores, at most 4) started and stopped here.
    ``progress(done, total)`` after each batch.

    Raises:
        SourceError: the source cannot be listed.
        ImportError: ``dask.distributed`` is not installed (the ``audit`` extra).
    """
    from dask.distributed import Client, LocalCluster, as_completed

    t0 = time.perf_counter()
    src = open_source(location, recursive=recursive)
    entries = src.entries()
    parts = batches(entries, batch)
    sizes = {e.location: e.size for e in entries}
    result.batches = len(parts)
    cluster = None
    if scheduler is None:
        cluster = LocalCluster(n_workers=workers or max(1, min(os.cpu_count() or 1, 4)), threads_per_worker=1,
                               processes=True, dashboard_address=None)
    client = Client(scheduler if scheduler is not None else cluster)
    try:
        futures = [client.submit(audit_batch, location, recursive, part, pure=False) for part in parts]
        first = {f.key: (part[0].location if part else "") for f, part in zip(futures, parts)}
        timings = []
        for done, future in enumerate(as_completed(futures), 1):
            rows, seconds = future.result()
            timings.append((seconds, shown_location(first[future.key])))
            for rec in records_of(rows, sizes):
                result.records += 1
                yield json.dumps(rec, ensure_ascii=False, sort_keys=True) + "\n"
            result.rows.extend(rows)
            if progress:
                progress(done, len(futures))
        result.slowest = sorted(timings, reverse=True)[:5]
    finally:
        client.close()
        if cluster is not None:
            cluster.close()
    result.seconds = time.perf_counter() - t0


def summarize(result: AuditResult) -> dict:
    """The summary (:data:`SUMMARY_SCHEMA`): totals by verdict, root-cause rule and resumability, the sessions
    (FORMAT.md 4.18, :func:`.series.group_series`: how many have a single latest export, how many a latest
    resumable one, how many end in a fork), wall time and throughput."""
    from inspector.session.series import group_series

    rows = result.rows
    checkpoints = [r for r in rows if r.checkpoint]
    series, _rest = group_series(rows)
    return {
        "schema": SUMMARY_SCHEMA,
        "records": len(rows),
        "checkpoints": len(checkpoints),
        "other_files": len(rows) - len(checkpoints),
        "verified": sum(1 for r in checkpoints if r.verified),
        "not_verified": sum(1 for r in checkpoints if not r.verified),
        "by_root_cause": dict(sorted(collections.Counter(r.root_rule for r in checkpoints
                                                         if not r.verified and r.root_rule).items())),
        "by_resumability": dict(sorted(collections.Counter(
            (r.facts.resumability if r.facts and r.facts.resumability else "unknown") for r in checkpoints).items())),
        "sessions": {"total": len(series),
                     "with_latest_resumable": sum(1 for s in series if s.latest_resumable is not None),
                     "fork_at_head": sum(1 for s in series if s.head_fork is not None)},
        "batches": result.batches,
        "seconds": round(result.seconds, 3),
        "checkpoints_per_second": round(len(checkpoints) / result.seconds, 1) if result.seconds else None,
        "slowest_batches": [{"seconds": round(s, 3), "first": loc} for s, loc in result.slowest],
    }


def summary_text(summary: dict) -> str:
    """The summary as the lines ``audit`` prints on stdout."""
    lines = [f"{summary['checkpoints']} checkpoint(s), {summary['verified']} verified, {summary['not_verified']} not "
             f"verified; {summary['other_files']} other file(s)"]
    for rule, n in summary["by_root_cause"].items():
        lines.append(f"  root cause {rule}: {n}")
    for answer, n in summary["by_resumability"].items():
        lines.append(f"  {answer}: {n}")
    s = summary["sessions"]
    lines.append(f"{s['total']} session(s): {s['with_latest_resumable']} with a latest resumable export, "
                 f"{s['fork_at_head']} ending in a fork (no single latest)")
    lines.append(f"{summary['batches']} batch(es) in {summary['seconds']} s"
                 + (f" ({summary['checkpoints_per_second']} checkpoints/s)" if summary["checkpoints_per_second"]
                    else ""))
    return "\n".join(lines) + "\n"
