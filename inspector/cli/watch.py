"""``checkpoint-inspector scan --watch SOURCE --format jsonl``: a live view of a source's exports.

Each look lists the source (:mod:`inspector.session.sources`). A file is judged only once it is stable: its
change token (size and modification time, an ETag) has not changed for ``--settle`` seconds, and it is not a
writer's temporary file (a hidden name, or ``.tmp``, ``.part``, ``.partial``, ``.crdownload``, ``~``: an atomic
rename by the writer makes the real name appear whole). A payload or a descriptor whose other half is not
there yet waits ``--pair-wait`` seconds for it (writers put the two files one after the other, in either order)
and is judged alone only after that (a large payload may have no descriptor); the session's latest is said
once no file of it waits. When the stable files changed, the source is
scanned and grouped by FORMAT.md 4.18 (:mod:`inspector.session.series`), and one JSON line is printed and
flushed for

* each export that appeared or changed: ``{"event": "export", ...}`` with its session, files, run and pass,
  verdict, root cause and resumability answer;
* each change of a session's latest resumable export: ``{"event": "latest", "session_id", "latest_resumable",
  "no_single_latest"}`` (``no_single_latest``: the fork at the head and its branches, FORMAT.md 4.18).

A local folder is watched with the operating system's notifications (watchdog, an optional extra; without
it, by polling); a URL is polled every ``--interval`` seconds. SIGINT and SIGTERM end the watch after the
line being written: exit 0. A look that fails (a share that went away) prints ``{"event": "error",
"reason"}`` once and the watch goes on.
"""

from __future__ import annotations

from inspector import jsonschemas

import json
import signal
import threading
import time

from inspector.checkpoint import display_path
from inspector.session.folderscan import scan_source
from inspector.session.series import group_series, series_json
from inspector.session.sources import LocalFolder, Source, SourceError, shown_location
from inspector.session.stable import Stable

from .common import EXIT_OK, out

__all__ = ["watch"]

def _emit(obj: dict) -> None:
    obj = {"schema": jsonschemas.SCAN_EVENT, **obj}
    out(json.dumps(obj, ensure_ascii=False, separators=(",", ":")) + "\n")  # (written whole and flushed)


def _wakeup(source: Source, wake: threading.Event):
    """An observer that sets ``wake`` on any change in a local folder (watchdog), or ``None``."""
    if not isinstance(source, LocalFolder):
        return None
    try:
        from watchdog.events import FileSystemEventHandler
        from watchdog.observers import Observer
    except ImportError:
        return None

    class _Handler(FileSystemEventHandler):
        def on_any_event(self, event):  # noqa: D102 - watchdog's callback
            wake.set()

    observer = Observer()
    observer.schedule(_Handler(), source.location, recursive=source.recursive)
    observer.daemon = True
    observer.start()
    return observer


def watch(source: Source, args) -> int:
    """Watch ``source`` until SIGINT or SIGTERM (see the module's text); ``args`` has ``interval``, ``settle``
    and ``format``. Returns :data:`EXIT_OK` once stopped."""
    stop = threading.Event()
    wake = threading.Event()

    def on_signal(signum, frame):  # noqa: ARG001
        stop.set()
        wake.set()

    previous = {sig: signal.signal(sig, on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
    local = isinstance(source, LocalFolder)
    interval = args.interval if args.interval is not None else (1.0 if local else 10.0)
    stable = Stable(source, max(args.settle, 0.0))
    observer = _wakeup(source, wake)
    judged: dict[tuple, tuple] = {}  # (payload, descriptor) -> what was said of it
    latest: dict[str, tuple] = {}
    lone: dict[str, float | None] = {}  # a file without its other half -> when first seen so (None: waited)
    pair_wait = max(getattr(args, "pair_wait", 10.0), 0.0)
    failure: list = []

    def loop() -> None:  # scans run off the main thread (inspector.session.engine), which takes the signals
        failing = False
        try:
            while not stop.is_set():
                try:
                    changed = stable.look()
                    failing = False
                except SourceError as e:
                    if not failing:
                        _emit({"event": "error", "reason": e.reason})
                    failing, changed = True, False
                since = [t for t in lone.values() if t is not None]
                due = min(since) + pair_wait if since else None
                if changed or (due is not None and time.monotonic() >= due):
                    rows = scan_source(stable, cancel=stop.is_set)
                    if not stop.is_set():
                        _report(rows, judged, latest, lone, pair_wait)
                # a change wakes a local watch at once; a file still settling is looked at when it may be stable,
                # a file waiting for its other half when its wait ends
                wait = min(interval, args.settle) if stable.pending() else interval
                since = [t for t in lone.values() if t is not None]
                if since:
                    wait = min(wait, max(min(since) + pair_wait - time.monotonic(), 0.05))
                wake.wait(wait)
                wake.clear()
        except BaseException as e:  # noqa: BLE001 - re-raised on the main thread (a scan cut short by a signal is not)
            if not stop.is_set():
                failure.append(e)
            stop.set()

    worker = threading.Thread(target=loop, name="watch", daemon=True)
    try:
        worker.start()
        while worker.is_alive():
            worker.join(0.2)
    finally:
        stop.set()
        wake.set()
        if observer is not None:
            observer.stop()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    if failure:
        raise failure[0]
    return EXIT_OK


def _report(rows, judged: dict, latest: dict, lone: dict, pair_wait: float, clock=time.monotonic) -> None:
    """Print what changed (see the module's text). ``lone``: each file seen without its other half and since
    when (``clock`` seconds; ``None`` once its wait is over), updated here; such a file is not said before
    ``pair_wait`` seconds have passed."""
    series, _rest = group_series(rows)
    shown = series_json(series, _rest)
    now_s = clock()
    alone = {r.payload or r.descriptor for r in rows if r.checkpoint and (r.payload is None) != (r.descriptor is None)}
    for name in list(lone):
        if name not in alone:
            del lone[name]  # (paired now, or gone)
    for name in alone:
        lone.setdefault(name, now_s)
    waiting = {name for name in alone if lone[name] is not None and now_s - lone[name] < pair_wait}
    for name in alone - waiting:
        lone[name] = None  # (its wait is over: judged alone from now on)
    for s, js in zip(series, shown["sessions"]):
        if any((e.row.payload or e.row.descriptor) in waiting for e in s.entries):
            continue  # (a file of this session waits for its other half: nothing of it is said yet)
        for e, je in zip(s.entries, js["series"]):
            key = (e.row.payload, e.row.descriptor)
            said = (je["verified"], je["root_cause"], je["resumability"], je.get("content_digest"))
            if judged.get(key) == said:
                continue
            judged[key] = said
            _emit({"event": "export", "session_id": s.session_id, "name": je["name"],
                   "payload": e.row.payload and display_path(shown_location(e.row.payload)),
                   "descriptor": e.row.descriptor and display_path(shown_location(e.row.descriptor)),
                   "run_id": je["run_id"], "pass": je["passes"], "verified": je["verified"],
                   "root_cause": je["root_cause"], "resumability": je["resumability"]})
        now = (js["latest_resumable"], json.dumps(js["no_single_latest"], sort_keys=True))
        if latest.get(s.session_id) != now:
            latest[s.session_id] = now
            _emit({"event": "latest", "session_id": s.session_id, "latest_resumable": js["latest_resumable"],
                   "no_single_latest": js["no_single_latest"]})
