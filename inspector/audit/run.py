"""The audit on Dask (``dask.distributed``, the ``audit`` extra, imported only here and only when an audit runs):
the three phases of :mod:`.core` sent as batches, the journal that makes ``--resume`` possible, and the faults.

**Journal.** Every record is journaled in ``RESULTS.partial`` as its batch finishes: a folder with one part per
batch (JSON Lines, one ``{"r": record, "f": facts, "s": seconds}`` per line), each part a new file written whole
and flushed to the disk before the next, so a kill leaves whole lines (a torn part gives its whole lines).
``--resume`` reads it, skips every checkpoint whose record is in it (by location and SHA-256 of each file,
:func:`.core.record_key`), and finishes the rest; on success the caller writes RESULTS whole from it and removes it.

**Faults.** Tasks are sent with ``retries`` (an exception in a task is tried again); a worker that dies is
replaced by its nanny and its tasks are sent again by the scheduler. A batch that still fails (``KilledWorker``:
it killed its workers; an error every time) is split and each pair sent alone; a pair that fails alone is one
record whose ``error`` says so. Records are written once per key, whatever the scheduler runs twice. A file
whose verification exceeds the time limit is given up (its record says so) and its worker is restarted.
"""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass, field

from . import core

__all__ = ["AuditError", "AuditResult", "Journal", "run_audit", "read_journal", "BATCH_FILES", "RETRIES"]

#: About how many files (phase 1) or pairs (phase 3) one Dask task handles.
BATCH_FILES = 200
#: How many times a task that raised is sent again before it is split.
RETRIES = 2


class AuditError(Exception):
    """The audit could not run or finish on Dask (the scheduler cannot be reached, the cluster failed).
    ``reason``: a sentence for the user (no traceback, no content)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass
class AuditResult:
    """What :func:`run_audit` did: ``entries`` (``(record, journal facts or None, seconds or None)`` per record,
    the earlier run's included), ``resumed`` (how many came from the journal), ``seconds`` of wall time,
    ``batches`` sent, ``restarts`` (workers restarted after a file over the time limit), ``startup``: seconds
    until the cluster answered (listing the source and starting a local cluster)."""

    entries: list = field(default_factory=list)
    resumed: int = 0
    seconds: float = 0.0
    batches: int = 0
    restarts: int = 0
    startup: float = 0.0


def _lines(data: bytes) -> list:
    """The ``(record, facts, seconds)`` of each whole line of one journal part (a torn last line is left out)."""
    out = []
    for line in data.split(b"\n")[:-1]:
        try:
            obj = json.loads(line)
            out.append((obj["r"], obj["f"], obj["s"]))
        except (ValueError, KeyError, TypeError):
            break
    return out


def read_journal(path: str) -> list:
    """Every ``(record, facts, seconds)`` journaled in the folder ``path`` (its parts in order; a part torn by a
    crash gives its whole lines). Raises ``OSError`` (``NotAFile`` when ``path`` or a part is not what it
    should be)."""
    from inspector.checkpoint.safeopen import read_regular

    out = []
    for name in sorted(os.listdir(path)):
        if name.startswith("part-") and name.endswith(".jsonl"):
            out += _lines(read_regular(os.path.join(path, name))[0])
    return out


class Journal:
    """The journal ``RESULTS.partial``: a folder of parts ``part-NNNNNNNN.jsonl``, one per batch, each a new file
    written whole and flushed to the disk (:func:`inspector.session.writing.write_new_file`), one line per record
    ``{"r": record, "f": facts, "s": seconds}``. Created new, or continued when ``resume`` (its entries read
    first: :attr:`entries`).

    Raises:
        FileExistsError: it exists and ``resume`` is False. OSError: it cannot be made, read or written
        (``NotADirectoryError`` when a file has its name).
    """

    def __init__(self, path: str, *, resume: bool):
        self.path = path
        self.entries: list = []
        if resume and os.path.lexists(path):
            if not os.path.isdir(path) or os.path.islink(path):
                raise NotADirectoryError(20, "not an audit journal (a folder)", path)
            self.entries = read_journal(path)
            parts = [n for n in os.listdir(path) if n.startswith("part-") and n.endswith(".jsonl")]
            self.next = 1 + max((int(n[5:-6]) for n in parts if n[5:-6].isdigit()), default=0)
        else:
            os.mkdir(path)
            self.next = 1

    def append(self, entries: list) -> None:
        """Write ``(record, facts, seconds)`` entries as the next part, whole."""
        from inspector.session.writing import write_new_file

        if not entries:
            return
        data = b"".join(json.dumps({"r": r, "f": f, "s": s}, ensure_ascii=False, sort_keys=True).encode("utf-8")
                        + b"\n" for r, f, s in entries)
        write_new_file(os.path.join(self.path, f"part-{self.next:08d}.jsonl"), data)
        self.next += 1

    def remove(self) -> None:
        """Remove the journal (once RESULTS is whole)."""
        for name in os.listdir(self.path):
            os.unlink(os.path.join(self.path, name))
        os.rmdir(self.path)

    def close(self) -> None:
        """Nothing to close (each part is closed when written); kept for the callers' ``finally``."""


# ------------------------------------------------------------------------------------- the tasks
def _classify_task(location, recursive, entries, manifest):
    return core.classify_batch(location, recursive, entries, manifest)


def _verify_task(location, recursive, pairs, file_seconds, manifest):
    from distributed import get_worker

    out = core.verify_batch(location, recursive, pairs, file_seconds, manifest)
    try:
        out["worker"] = get_worker().address
    except ValueError:  # (not on a worker)
        out["worker"] = None
    return out


def _chunks(items: list, size: int) -> list[list]:
    return [items[i:i + size] for i in range(0, len(items), size)]


def _lost(exc: BaseException) -> str:
    name = type(exc).__name__
    if name == "KilledWorker":
        return "the worker verifying it was lost every time it was tried (out of memory, or killed)"
    return f"could not be verified ({name})"


def _client(scheduler: str | None, workers: int | None, memory_limit: str | None):
    """``(client, cluster or None)``; raises :class:`AuditError` when the scheduler cannot be reached."""
    from dask.distributed import Client, LocalCluster

    cluster = None
    try:
        if scheduler is None:
            cluster = LocalCluster(n_workers=workers or max(1, min(os.cpu_count() or 1, 4)), threads_per_worker=1,
                                   processes=True, dashboard_address=None, memory_limit=memory_limit or "auto",
                                   # (no dashboard; the scheduler's own HTTP routes on loopback, any free port)
                                   scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
                                   silence_logs=logging.CRITICAL)  # (a worker's shutdown chatter is no traceback)
            return Client(cluster), cluster
        return Client(scheduler, timeout="5s"), None
    except Exception as e:  # noqa: BLE001 - Dask raises OSError, TimeoutError, ValueError... for an address
        if cluster is not None:
            cluster.close()
        where = f"the Dask scheduler at {scheduler}" if scheduler else "a local Dask cluster"
        raise AuditError(f"cannot reach {where} ({type(e).__name__})") from None


def run_audit(location: str, journal: Journal, *, recursive: bool = True, scheduler: str | None = None,
              workers: int | None = None, batch: int = BATCH_FILES, retries: int = RETRIES,
              file_seconds: float = core.FILE_SECONDS, memory_limit: str | None = None, bar=None) -> AuditResult:
    """Audit ``location`` (a folder, an fsspec URL prefix, a JSON Lines file of export wrappers or a manifest:
    :func:`.manifest.open_audit_source`) on Dask, appending every record to ``journal`` (the records already in
    it are not verified again). ``scheduler``: a running cluster (``tcp://HOST:8786``), else a ``LocalCluster``
    of ``workers`` processes (default: the cores, at most 4; ``memory_limit`` per worker, Dask's form such as
    ``"2GiB"``) started and stopped here. ``bar(total=, desc=, unit=)``: a tqdm-like progress bar factory.

    Raises:
        SourceError: the source cannot be listed.
        AuditError: the scheduler cannot be reached, or the cluster failed.
        ImportError: ``dask.distributed`` is not installed (the ``audit`` extra).
        OSError: the journal cannot be written.
    """
    from dask.distributed import as_completed

    from inspector.session.manifest import Manifest, open_audit_source

    t0 = time.perf_counter()
    result = AuditResult(entries=list(journal.entries), resumed=len(journal.entries))
    written = {core.record_key(e[0]) for e in result.entries}
    src = open_audit_source(location, recursive=recursive)
    entries = src.entries()
    manifest = isinstance(src, Manifest)
    client, cluster = _client(scheduler, workers, memory_limit)
    result.startup = time.perf_counter() - t0
    try:
        # phase 1: classify every entry, in batches
        found: dict[str, core.Found] = {}
        futures = {}
        ac = as_completed()

        def send(kind, items, *args):
            if kind == "classify":
                f = client.submit(_classify_task, location, recursive, items, manifest, pure=False, retries=retries)
            else:
                f = client.submit(_verify_task, location, recursive, items, file_seconds, manifest, pure=False,
                                  retries=retries)
            result.batches += 1
            futures[f.key] = (kind, items)
            ac.add(f)

        for part in _chunks(entries, batch):
            send("classify", part)
        progress = bar(total=len(entries), desc="classify", unit="file") if bar else None
        for future in ac:
            kind, items = futures.pop(future.key)
            if future.status == "error":
                exc = future.exception()
                if len(items) > 1:
                    for e in items:
                        send("classify", [e])
                    continue
                found[items[0].location] = core.Found(items[0].location, items[0].name, items[0].size, "error",
                                                      error=_lost(exc))
            else:
                for f in future.result()[0]:
                    found[f.location] = f
            if progress:
                progress.update(len(items))
            future.release()
        if progress:
            progress.close()
        listed = [found[e.location] for e in entries if e.location in found]
        # phase 2: pair on the client (the whole source: a payload and its descriptor always meet)
        if manifest:  # (its pairs as written; a file not read or no checkpoint is a record alone)
            by_loc = {f.location: f for f in listed}
            others = [f for f in listed if f.role in ("unknown", "error")]

            def kept(loc):
                f = by_loc.get(loc) if loc else None
                return None if f is None or f.role in ("unknown", "error") else f

            pairs = [pd for pd in ((kept(p), kept(d)) for p, d in src.pairs()) if pd != (None, None)]
        else:
            pairs, others = core.pair_found(listed)
        new = []
        for f in others:
            rec = core.other_record(f)
            if core.record_key(rec) not in written:
                written.add(core.record_key(rec))
                new.append((rec, None, None))
        journal.append(new)
        result.entries += new
        todo = [pd for pd in pairs if core.pair_key(*pd) not in written]
        # phase 3: verify the pairs, in batches
        for part in _chunks(todo, batch):
            send("verify", part)
        progress = bar(total=len(todo), desc="verify", unit="checkpoint") if bar else None
        for future in ac:
            kind, items = futures.pop(future.key)
            if future.status == "error":
                exc = future.exception()
                if len(items) > 1:
                    for pd in items:
                        send("verify", [pd])
                    continue
                got = [(core._given_up(*items[0], _lost(exc))[0], None, None)]
            else:
                out = future.result()
                future.release()  # (before a restart below: a result still wanted would be computed again)
                got = out["items"]
                if out["stuck"]:
                    result.restarts += 1
                    if out.get("worker"):
                        try:
                            client.restart_workers([out["worker"]], timeout=60)
                        except Exception:  # noqa: BLE001 - the worker may be gone already: Dask replaces it
                            pass
                    if out["rest"]:
                        send("verify", out["rest"])
            new = []
            for rec, facts, seconds in got:
                key = core.record_key(rec)
                if key not in written:  # (once per key, whatever ran twice)
                    written.add(key)
                    new.append((rec, facts, seconds))
            journal.append(new)
            result.entries += new
            if progress:
                progress.update(len(got))
            future.release()
        if progress:
            progress.close()
    except (KeyboardInterrupt, OSError, core.SourceError, AuditError):
        raise
    except Exception as e:  # noqa: BLE001 - a cluster that failed under us: a sentence, never a traceback
        raise AuditError(f"the Dask cluster failed ({type(e).__name__}); the records so far are in "
                         f"{journal.path} (run again with --resume)") from None
    finally:
        try:
            client.close(timeout=10)
        finally:
            if cluster is not None:
                cluster.close(timeout=10)
    result.seconds = time.perf_counter() - t0
    return result
