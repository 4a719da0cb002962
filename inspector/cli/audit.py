"""``checkpoint-inspector audit SOURCE --out RESULTS``: every checkpoint under a source verified on Dask
(:mod:`inspector.audit`).

RESULTS (JSON Lines, one record per checkpoint and per file that is none) and ``--summary FILE.json`` are new
files, each written whole or not at all (exit 3, ``cannot write the output``); the summary is printed on
stdout. Exit 0 when every checkpoint verifies, 1 when one does not, 2 for a usage error (a source that cannot
be listed, Dask not installed).
"""

from __future__ import annotations

import json
import sys

from inspector.session.sources import SourceError
from inspector.session.writing import write_new_file
from .common import EXIT_FAIL, EXIT_OK, OutputError, UsageError, out

__all__ = ["add_parser", "cmd_audit"]


def add_parser(sub) -> None:
    """The ``audit`` subcommand's options."""
    a = sub.add_parser("audit", help="verify every checkpoint under a folder, URL prefix or .jsonl file on Dask; "
                                     "one JSON line per checkpoint, and a summary",
                       description="Verify every checkpoint under SOURCE (a folder and the folders below it, an "
                                   "fsspec URL prefix, a .jsonl file of SDK export wrappers) on a Dask cluster: "
                                   "one JSON Lines record per checkpoint in RESULTS (locations, sizes, SHA-256, "
                                   "ids, run and pass, verified, the root cause's rule, resumability: no "
                                   "content), and a summary. Needs the 'audit' extra (dask[distributed]).")
    a.add_argument("source", metavar="SOURCE")
    a.add_argument("--out", required=True, metavar="RESULTS", help="the records, a new JSON Lines file")
    a.add_argument("--summary", metavar="FILE.json", help="also write the summary as JSON to this new file")
    a.add_argument("--scheduler", metavar="ADDRESS",
                   help="a running Dask scheduler (tcp://HOST:8786); default: a local cluster on this machine")
    a.add_argument("--workers", type=int, metavar="N", help="worker processes of the local cluster (default: cores)")
    a.add_argument("--batch", type=int, default=200, metavar="FILES", help="about how many files one task verifies")
    a.add_argument("--no-recursive", dest="recursive", action="store_false",
                   help="only SOURCE itself, not the folders (prefixes) below it")


def cmd_audit(args) -> int:
    """Run the audit (see the module's text for the exit codes)."""
    try:
        from inspector import audit
        import dask.distributed  # noqa: F401
    except ImportError:
        raise UsageError("audit needs Dask: pip install 'checkpoint-inspector[audit]'") from None
    if args.batch < 1:
        raise UsageError("--batch takes 1 or more files")
    result = audit.AuditResult()
    tty = sys.stderr.isatty()

    def progress(done: int, total: int) -> None:
        if tty:
            sys.stderr.write(f"\r{done}/{total} batches")
            sys.stderr.flush()

    lines = audit.run_audit(args.source, result, recursive=args.recursive, scheduler=args.scheduler,
                            workers=args.workers, batch=args.batch, progress=progress)
    try:
        write_new_file(args.out, (line.encode("utf-8") for line in lines))
    except SourceError as e:
        raise UsageError(e.reason) from None
    except FileExistsError:
        raise UsageError(f"{args.out} exists; the inspector never overwrites a file") from None
    except OSError as e:
        raise OutputError(f"{args.out}: {e.strerror or e}") from None
    if tty:
        sys.stderr.write("\n")
    summary = audit.summarize(result)
    if args.summary:
        try:
            write_new_file(args.summary, (json.dumps(summary, indent=2, sort_keys=True) + "\n").encode("utf-8"))
        except FileExistsError:
            raise UsageError(f"{args.summary} exists; the inspector never overwrites a file") from None
        except OSError as e:
            raise OutputError(f"{args.summary}: {e.strerror or e}") from None
    out(audit.summary_text(summary))
    return EXIT_OK if summary["checkpoints"] and summary["not_verified"] == 0 else EXIT_FAIL  # (none: as scan)
