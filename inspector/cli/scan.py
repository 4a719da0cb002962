"""``checkpoint-inspector scan SOURCE [--format text|json] [--recursive] [--watch [--format jsonl] [--interval S]]``:
a source's checkpoints grouped into sessions, each series in order of history (FORMAT.md 4.18, never a clock)
with its gaps, forks, same-export copies and the latest resumable export (none when the head is a fork)
(:mod:`inspector.session.series`). SOURCE is a folder, an fsspec URL prefix (``s3://bucket/exports/``,
``http://host/folder/``) or a JSON Lines file of SDK export wrappers (:mod:`inspector.session.sources`).

Exit 0: every checkpoint found verifies; 1: some checkpoint does not (or none was found); 2: the source
cannot be read. With ``--watch``: runs until SIGINT or SIGTERM, then exits 0 (:mod:`.watch`).
"""

from __future__ import annotations

from inspector import jsonschemas

import json
import threading

from inspector.checkpoint import display_path
from inspector.session.folderscan import scan_source
from inspector.session.series import group_series, series_json, series_text
from inspector.session.sources import SourceError, open_source, shown_location

from .common import EXIT_FAIL, EXIT_OK, UsageError, out
from .termsafe import terminal_safe

__all__ = ["cmd_scan"]


def _source(args):
    return open_source(args.folder, recursive=args.recursive)  # (SourceError: said by main, exit 2)


def cmd_scan(args) -> int:
    """Scan, group and print (see the module docstring for exit codes)."""
    if args.format == "jsonl" and not args.watch:
        raise UsageError("--format jsonl is the output of --watch; use --format json for one scan")
    for name in ("interval", "settle", "pair_wait"):  # (--interval 0 sent thousands of listings a second)
        value = getattr(args, name, None)
        if value is not None and not (0.05 <= value <= 86400) and not (name != "interval" and value == 0):
            raise UsageError(f"--{name.replace('_', '-')} takes a number of seconds from 0.05 to 86400")
    source = _source(args)
    if args.watch:
        from .watch import watch

        return watch(source, args)
    result: list = []
    failure: list = []

    def run() -> None:  # the scan runs off the main thread, as in the window (inspector.session.engine)
        try:
            result.extend(scan_source(source))
        except BaseException as e:  # re-raised below, on the main thread (an internal error exits 3 there)
            failure.append(e)

    worker = threading.Thread(target=run, name="scan")
    worker.start()
    worker.join()
    if failure and isinstance(failure[0], SourceError):
        raise UsageError(failure[0].reason)
    if failure and isinstance(failure[0], OSError):
        raise UsageError(f"{display_path(shown_location(args.folder))}: cannot read "
                         f"({failure[0].strerror or failure[0]})")
    if failure:
        raise failure[0]
    series, rest = group_series(result)
    if args.format == "json":
        out(json.dumps({"schema": jsonschemas.SCAN, **series_json(series, rest)}, ensure_ascii=False, indent=2) + "\n")
    else:
        out("".join(terminal_safe(line) + "\n" for line in series_text(series, rest) or ["no checkpoint found"]))
    checkpoints = [r for r in result if r.checkpoint]  # (damaged ones no session claims included)
    return EXIT_OK if checkpoints and all(r.verified for r in checkpoints) else EXIT_FAIL
