"""The audit on Dask (``dask.distributed``, the ``audit`` extra, imported only here and only when an audit runs):
the three phases of :mod:`.core` sent as batches, the journal that makes ``--resume`` possible, and the faults.

**Journal.** Every record is journaled in ``RESULTS.partial`` as its batch finishes: a folder with one part per
batch (JSON Lines, one ``{"r": record, "f": facts, "s": seconds}`` per line), each part a new file written whole
and flushed to the disk before the next, so a kill leaves whole lines (a torn part gives its whole lines).
``--resume`` reads it, skips every checkpoint whose record is in it (by location and SHA-256 of each file,
:func:`.core.pair_key`, journaled as a digest), and finishes the rest; on success the caller writes RESULTS whole from it and removes it.

**Faults.** Tasks are sent with ``retries`` (an exception in a task is tried again); a worker that dies is
replaced by its nanny and its tasks are sent again by the scheduler. A batch that still fails (``KilledWorker``:
it killed its workers; an error every time) is split and each pair sent alone; a pair that fails alone is one
record whose ``error`` says so. Records are written once per key, whatever the scheduler runs twice. A file
whose verification exceeds the time limit is given up (its record says so) and its worker is restarted.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import shutil
import time
from collections.abc import Iterator
from dataclasses import dataclass

from inspector.checkpoint.diagnostic import InspectorError
from inspector.session.sources import Entry, shown_location

from . import core

__all__ = ["AuditError", "AuditResult", "Journal", "run_audit", "read_journal", "iter_journal", "BATCH_FILES",
           "RETRIES"]

#: About how many files (phase 1) or pairs (phase 3) one Dask task handles.
BATCH_FILES = 200
#: How many times a task that raised is sent again before it is split.
RETRIES = 2
#: How many recent messages and transitions a local cluster's scheduler keeps for its logs (Dask's 1,000 would
#: keep a thousand batches of files in the command's memory).
LOG_LENGTH = 16


class AuditError(InspectorError):
    """The audit could not run or finish on Dask (the scheduler cannot be reached, the cluster failed).
    ``reason``: a sentence for the user (no traceback, no content)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass
class AuditResult:
    """What :func:`run_audit` did: ``records`` (how many records the journal holds now, the earlier run's
    included), ``resumed`` (how many came from the journal), ``seconds`` of wall time, ``batches`` sent
    (listing, classifying, verifying), ``restarts`` (workers restarted after a file over the time limit),
    ``startup``: seconds until the cluster answered (the source's first level listed, a local cluster started).
    The records themselves are in the journal (:meth:`Journal.records`), never all in memory."""

    records: int = 0
    resumed: int = 0
    seconds: float = 0.0
    batches: int = 0
    restarts: int = 0
    startup: float = 0.0


def _lines(data: bytes, keys: bool = False) -> list:
    """The ``(record, facts, seconds)`` of each whole line of one journal part (a torn last line is left out);
    with ``keys``, ``(record, facts, seconds, key digest or None)`` (``None``: a line journaled before keys
    were)."""
    out = []
    for line in data.split(b"\n")[:-1]:
        try:
            obj = json.loads(line)
            out.append((obj["r"], obj["f"], obj["s"], obj.get("k")) if keys else (obj["r"], obj["f"], obj["s"]))
        except (ValueError, KeyError, TypeError):
            break
    return out


def _parts(path: str) -> list[str]:
    return sorted(n for n in os.listdir(path) if n.startswith("part-") and n.endswith(".jsonl"))


def iter_journal(path: str, keys: bool = False) -> Iterator[tuple]:
    """Every ``(record, facts, seconds)`` journaled in the folder ``path``, one part read at a time (its parts in
    order; a part torn by a crash gives its whole lines); with ``keys``, ``(record, facts, seconds, key digest or
    None)`` (:func:`_lines`). Raises ``OSError`` (``NotAFile`` when a part is not a regular file)."""
    from inspector.checkpoint.safeopen import read_regular

    for name in _parts(path):
        yield from _lines(read_regular(os.path.join(path, name))[0], keys)


def read_journal(path: str) -> list:
    """:func:`iter_journal` as a list (for a small journal: tests, tools)."""
    return list(iter_journal(path))


class Journal:
    """The journal ``RESULTS.partial``: a folder of parts ``part-NNNNNNNN.jsonl``, one per batch, each a new file
    written whole and flushed to the disk (:func:`inspector.session.writing.write_new_file`), one line per record
    ``{"r": record, "f": facts, "s": seconds}``; and ``work/``, the audit's files spilled to the disk while it runs
    (:mod:`.spill`; made again by each run). Created new, or continued when ``resume``: then its records' keys
    are read first (:attr:`keys`, a :class:`.spill.KeySet`; :attr:`count` records), never the records.

    Raises:
        FileExistsError: it exists and ``resume`` is False. OSError: it cannot be made, read or written
        (``NotADirectoryError`` when a file has its name).
    """

    def __init__(self, path: str, *, resume: bool):
        from .spill import KeySet

        self.path = path
        self.keys = KeySet()
        self.count = 0
        #: True when a record was journaled without its key (by an earlier version)
        self.legacy = False
        if resume and os.path.lexists(path):
            if not os.path.isdir(path) or os.path.islink(path):
                raise NotADirectoryError(20, "not an audit journal (a folder)", path)
            for rec, _facts, _seconds, key in iter_journal(path, keys=True):
                if key is None:  # (journaled by an earlier version: resumed by the record's own members)
                    self.keys.add(core.record_key(rec))
                    self.legacy = True
                else:
                    self.keys.add_digest(key)
                self.count += 1
            parts = _parts(path)
            self.next = 1 + max((int(n[5:-6]) for n in parts if n[5:-6].isdigit()), default=0)
        else:
            os.mkdir(path)
            self.next = 1

    def records(self) -> Iterator[tuple]:
        """Every journaled ``(record, facts, seconds)``, read from the disk one part at a time."""
        return iter_journal(self.path)

    def work(self) -> str:
        """A new, empty ``work/`` folder in the journal for the files spilled while it runs (an earlier run's,
        left by a crash, removed first)."""
        folder = os.path.join(self.path, "work")
        shutil.rmtree(folder, ignore_errors=True)
        os.mkdir(folder)
        return folder

    def append(self, entries: list) -> None:
        """Write ``(record, facts, seconds, key digest)`` entries as the next part, whole (the digest:
        :meth:`.spill.KeySet.digest` of :func:`.core.pair_key`)."""
        from inspector.session.writing import write_new_file

        if not entries:
            return
        data = b"".join(json.dumps({"r": r, "f": f, "s": s, "k": k}, sort_keys=True).encode("ascii")  # (any str)
                        + b"\n" for r, f, s, k in entries)
        write_new_file(os.path.join(self.path, f"part-{self.next:08d}.jsonl"), data)
        self.next += 1
        self.count += len(entries)

    def remove(self) -> None:
        """Remove the journal (once RESULTS is whole)."""
        shutil.rmtree(os.path.join(self.path, "work"), ignore_errors=True)
        for name in os.listdir(self.path):
            os.unlink(os.path.join(self.path, name))
        os.rmdir(self.path)

    def close(self) -> None:
        """Nothing to close (each part is closed when written); kept for the callers' ``finally``."""


# ------------------------------------------------------------------------------------- the tasks
def _list_task(sources):
    return [e for src in sources for e in src.entries()]


def _classify_task(location, recursive, manifest, entries):
    return core.classify_batch(location, recursive, entries, manifest)


def _verify_task(location, recursive, file_seconds, manifest, pairs):
    from distributed import get_worker

    out = core.verify_batch(location, recursive, pairs, file_seconds, manifest)
    try:
        out["worker"] = get_worker().address
    except ValueError:  # (not on a worker)
        out["worker"] = None
    return out


def _lost(exc: BaseException) -> str:
    name = type(exc).__name__
    if name == "KilledWorker":
        return "the worker verifying it was lost every time it was tried (out of memory, or killed)"
    return f"could not be verified ({name})"


def _client(scheduler: str | None, workers: int | None, memory_limit: str | None):
    """``(client, cluster or None)``; raises :class:`AuditError` when the scheduler cannot be reached."""
    import dask
    from dask.distributed import Client, LocalCluster

    cluster = None
    try:
        if scheduler is None:
            # (the scheduler runs in this process: its logs of recent messages would keep the last 1,000 tasks'
            # arguments, 200 files each, alive: about 5 KiB a pair measured at 20,000 pairs)
            dask.config.set({"distributed.admin.low-level-log-length": LOG_LENGTH})
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


def _drive(client, result: AuditResult, task, args: tuple, items, *, batch: int, inflight: int, retries: int,
           done, lost) -> None:
    """Send ``items`` (an iterable, read as it is needed) to Dask in batches of ``batch``, as
    ``task(*args, batch_items)``, with at most ``inflight`` batches sent and not yet answered (so the client
    holds a bounded number of items, however many the source has). ``done(batch_items, result)`` takes each
    answer and returns items to send again (a batch cut short), or nothing; a batch that failed (after
    ``retries``) is split and each item sent alone, and an item that fails alone is given to
    ``lost(item, exception)``."""
    from dask.distributed import as_completed

    it = iter(items)
    ac = as_completed()
    futures: dict = {}

    def send(part: list) -> None:
        f = client.submit(task, *args, part, pure=False, retries=retries)
        futures[f.key] = part
        result.batches += 1
        ac.add(f)

    def fill() -> None:
        while len(futures) < inflight:
            part = list(itertools.islice(it, batch))
            if not part:
                return
            send(part)

    fill()
    for future in ac:
        part = futures.pop(future.key)
        if future.status == "error":
            exc = future.exception()
            if len(part) > 1:
                for item in part:
                    send([item])
            else:
                lost(part[0], exc)
        else:
            answer = future.result()
            future.release()  # (before a restart in done(): a result still wanted would be computed again)
            again = done(part, answer)
            if again:
                send(list(again))
        future.release()
        fill()


def _workers(client) -> int:
    try:
        return max(1, len(client.scheduler_info().get("workers", {})))
    except Exception:  # noqa: BLE001 - a scheduler that does not say: assume one
        return 1


def _listing(client, result: AuditResult, src, first, spill, *, retries: int, workers: int) -> None:
    """Every entry of ``src`` into ``spill`` (rows ``[location, name, size, token]``). ``first``: what
    ``src.parts()`` gave (listed before the cluster started). Folders are split on the client, level by level,
    until there are four for each worker (at most three levels); each is then listed whole on a worker, in
    parallel. Raises :class:`SourceError` when a part cannot be listed."""

    def keep(entries) -> None:
        for e in entries:
            spill.add("", [e.location, e.name, e.size, e.token])

    if first is None:
        keep(src.entries())
        return
    got, folders = first
    keep(got)
    got.clear()  # (the caller's too: a flat folder of millions has its entries on the disk now, not in memory)
    for _level in range(2):
        if not folders or len(folders) >= 4 * workers:
            break
        deeper = []
        for sub in folders:
            parts = sub.parts()
            if parts is None:
                deeper.append(sub)
                continue
            keep(parts[0])
            deeper += parts[1]
        folders = deeper
    failed: list = []

    def lost(sub, exc) -> None:
        failed.append(exc)

    _drive(client, result, _list_task, (), folders, batch=1, inflight=max(8, 4 * workers), retries=retries,
           done=lambda part, entries: keep(entries), lost=lost)
    for exc in failed:
        if isinstance(exc, core.SourceError):
            raise exc
        raise core.SourceError(f"{shown_location(src.location)}: cannot list ({type(exc).__name__})")


def run_audit(location: str, journal: Journal, *, recursive: bool = True, scheduler: str | None = None,
              workers: int | None = None, batch: int = BATCH_FILES, retries: int = RETRIES,
              file_seconds: float = core.FILE_SECONDS, memory_limit: str | None = None, bar=None,
              partitions: int | None = None) -> AuditResult:
    """Audit ``location`` (a folder, an fsspec URL prefix, a JSON Lines file of export wrappers or a manifest:
    :func:`.manifest.open_audit_source`) on Dask, appending every record to ``journal`` (the records already in
    it are not verified again). ``scheduler``: a running cluster (``tcp://HOST:8786``), else a ``LocalCluster``
    of ``workers`` processes (default: the cores, at most 4; ``memory_limit`` per worker, Dask's form such as
    ``"2GiB"``) started and stopped here. ``bar(total=, desc=, unit=)``: a tqdm-like progress bar factory.
    ``partitions``: how many partitions the files spilled to the disk are cut in (default:
    :func:`.spill.partitions_for` the number of files listed).

    Memory: the client holds the keys of the records written (:class:`.spill.KeySet`, about 80 bytes a record),
    one partition of the files being paired, and the batches in flight; the listing, the classified files, the
    pairs to verify and the records are on the disk (``work/`` in the journal, and the journal's parts). A
    manifest's pairs are held whole (the manifest is at most 256 MiB).

    Raises:
        SourceError: the source cannot be listed.
        AuditError: the scheduler cannot be reached, or the cluster failed.
        ImportError: ``dask.distributed`` is not installed (the ``audit`` extra).
        OSError: the journal cannot be written (a full disk).
    """
    from inspector.session.manifest import Manifest, open_audit_source

    from .spill import Spill, partitions_for

    t0 = time.perf_counter()
    result = AuditResult(records=journal.count, resumed=journal.count)
    written = journal.keys
    src = open_audit_source(location, recursive=recursive)
    manifest = isinstance(src, Manifest)
    first = src.parts()  # (before the cluster starts: a source that is not there is said at once)
    client, cluster = _client(scheduler, workers, memory_limit)
    result.startup = time.perf_counter() - t0
    inflight = 2 * _workers(client) + 2

    def record(new: list) -> None:
        """Journal ``(record, facts, seconds, key)`` entries, each key once (whatever ran twice)."""
        digests = [(r, f, s, written.digest(k)) for r, f, s, k in new]
        journal.append([e for e in digests if written.add_digest(e[3])])

    work = None
    try:
        work = journal.work()
        listing = Spill(os.path.join(work, "listing"), 1)
        _listing(client, result, src, first, listing, retries=retries, workers=_workers(client))
        # phase 1: classify every entry, in batches
        pairing = None if manifest else core.Pairing(os.path.join(work, "pairs"),
                                                     partitions or partitions_for(listing.count))
        by_loc: dict[str, core.Found] = {}
        progress = bar(total=listing.count, desc="classify", unit="file") if bar else None

        def take(f: core.Found) -> list:
            if f.role in ("unknown", "error"):
                return [(core.other_record(f), None, None, core.other_key(f))]
            if manifest:
                by_loc[f.location] = f
            else:
                pairing.add(f)
            return []

        def classified(part, answer) -> None:
            record([x for f in answer[0] for x in take(f)])
            if progress:
                progress.update(len(part))

        def not_classified(e, exc) -> None:
            classified([e], ([core.Found(e.location, e.name, e.size, "error", error=_lost(exc))], 0.0))

        _drive(client, result, _classify_task, (location, recursive, manifest),
               (Entry(*row) for row in listing.stream()), batch=batch, inflight=inflight, retries=retries,
               done=classified, lost=not_classified)
        if progress:
            progress.close()
        # phase 2: pair (the whole source: a payload and its descriptor always meet), the pairs to verify spilled
        if manifest:  # (its pairs as written; a file not read or no checkpoint is a record alone)
            def kept(loc):
                f = by_loc.get(loc) if loc else None
                return None if f is None or f.role in ("unknown", "error") else f

            pairs = (pd for pd in ((kept(p), kept(d)) for p, d in src.pairs()) if pd != (None, None))
        else:
            pairs = pairing.pairs()
        todo = Spill(os.path.join(work, "todo"), 1)
        for p, d in pairs:
            if core.pair_key(p, d) not in written and not (journal.legacy and core.shown_key(p, d) in written):
                todo.add("", [core.found_row(p) if p else None, core.found_row(d) if d else None])
        by_loc.clear()
        # phase 3: verify the pairs, in batches
        progress = bar(total=todo.count, desc="verify", unit="checkpoint") if bar else None

        def verified(part, out) -> list:
            # (the items answer the batch's pairs in order; a batch cut short answers the first ones)
            record([(*item, core.pair_key(*pd)) for item, pd in zip(out["items"], part)])
            if out["stuck"]:
                result.restarts += 1
                if out.get("worker"):
                    try:
                        client.restart_workers([out["worker"]], timeout=60)
                    except Exception:  # noqa: BLE001 - the worker may be gone already: Dask replaces it
                        pass
            if progress:
                progress.update(len(out["items"]))
            return out["rest"]

        def not_verified(pd, exc) -> None:
            record([(core._given_up(*pd, _lost(exc))[0], None, None, core.pair_key(*pd))])
            if progress:
                progress.update(1)

        _drive(client, result, _verify_task, (location, recursive, file_seconds, manifest),
               ((core.Found(*p) if p else None, core.Found(*d) if d else None) for p, d in todo.stream()),
               batch=batch, inflight=inflight, retries=retries, done=verified, lost=not_verified)
        if progress:
            progress.close()
    except (KeyboardInterrupt, OSError, core.SourceError, AuditError):
        raise
    except Exception as e:  # noqa: BLE001 - a cluster that failed under us: a sentence, never a traceback
        raise AuditError(f"the Dask cluster failed ({type(e).__name__}); the records so far are in "
                         f"{journal.path} (run again with --resume)") from None
    finally:
        if work is not None:
            shutil.rmtree(work, ignore_errors=True)
        try:
            client.close(timeout=10)
        finally:
            if cluster is not None:
                cluster.close(timeout=10)
    result.records = journal.count
    result.seconds = time.perf_counter() - t0
    return result
