"""``checkpoint-inspector scan DIR [--format text|json]``: a folder's checkpoints grouped into sessions, each
series in order of history (FORMAT.md 4.18, never a clock) with its gaps, forks, same-export copies and the
latest resumable export (none when the head is a fork) (:mod:`inspector.session.series`).

Exit 0: every checkpoint found verifies; 1: some checkpoint does not (or none was found); 2: the folder
cannot be read.
"""

from __future__ import annotations

import json
import os
import threading

from inspector.checkpoint import display_path
from inspector.session.folderscan import scan_folder
from inspector.session.series import group_series, series_json, series_text

from .common import EXIT_FAIL, EXIT_OK, NOT_REDACTED, UsageError, out
from .termsafe import terminal_safe

__all__ = ["add_parser", "cmd_scan"]


def add_parser(sub) -> None:
    """The ``scan`` subcommand's options."""
    s = sub.add_parser("scan", help="list a folder's checkpoints by session, each series in order of history (gaps, "
                                    "forks, same-export copies, the latest resumable)",
                       description="List a folder's checkpoints by session, each series in order of history "
                                   "(FORMAT.md 4.18: run-event sequences, never checkpoint_ms): gaps, forks, "
                                   "same-export copies, the latest resumable (none at a fork head). " + NOT_REDACTED)
    s.add_argument("folder")
    s.add_argument("--format", choices=("text", "json"), default="text")


def cmd_scan(args) -> int:
    """Scan, group and print (see the module docstring for exit codes)."""
    if not os.path.isdir(args.folder):
        raise UsageError(f"{display_path(args.folder)}: not a folder")
    result: list = []
    failure: list = []

    def run() -> None:  # the scan runs off the main thread, as in the window (inspector.session.engine)
        try:
            result.extend(scan_folder(args.folder))
        except BaseException as e:  # re-raised below, on the main thread (an internal error exits 3 there)
            failure.append(e)

    worker = threading.Thread(target=run, name="scan")
    worker.start()
    worker.join()
    if failure and isinstance(failure[0], OSError):
        raise UsageError(f"{display_path(args.folder)}: cannot read ({failure[0].strerror or failure[0]})")
    if failure:
        raise failure[0]
    series, rest = group_series(result)
    if args.format == "json":
        out(json.dumps(series_json(series, rest), ensure_ascii=False, indent=2) + "\n")
    else:
        out("".join(terminal_safe(line) + "\n" for line in series_text(series, rest) or ["no checkpoint found"]))
    checkpoints = [r for r in result if r.checkpoint]  # (damaged ones no session claims included)
    return EXIT_OK if checkpoints and all(r.verified for r in checkpoints) else EXIT_FAIL
