"""``checkpoint-inspector audit SOURCE --out RESULTS``: every checkpoint under a source verified on Dask
(:mod:`inspector.audit`).

RESULTS (JSON Lines or Parquet, one record per checkpoint and per file that is none), ``--summary FILE.json``
and ``--summary-html FILE`` are new files, each written whole or not at all (exit 3, ``cannot write the
output``); none of them may exist when the audit starts (exit 2, before Dask starts). While it runs, the records
are journaled in ``RESULTS.partial``; ``--resume`` continues an interrupted audit from it. The summary is printed
on stdout. Exit 0 when every checkpoint verifies, 1 when one does not, 2 for a usage error (a source that cannot
be listed, Dask or pyarrow not installed, a scheduler that cannot be reached), 3 when the cluster failed or an
output cannot be written whole, 130 on Ctrl+C (the journal, a folder, stays for ``--resume``).
"""

from __future__ import annotations

import json
import os
import shutil
import sys

from inspector.session.sources import SourceError
from inspector.session.writing import write_new_file
from .common import EXIT_FAIL, EXIT_INCONCLUSIVE, EXIT_OK, OutputError, UsageError, err, out
from .termsafe import terminal_safe_lines

__all__ = ["cmd_audit", "journal_path"]


def journal_path(results: str) -> str:
    """The journal of an audit writing ``results``: ``RESULTS.partial``."""
    return results + ".partial"


def _bar_factory():
    """A tqdm progress bar on stderr when it is a terminal, else ``None`` (quiet)."""
    if not sys.stderr.isatty():
        return None
    try:
        from tqdm import tqdm
    except ImportError:
        return None
    return lambda **kw: tqdm(file=sys.stderr, dynamic_ncols=True, **kw)


def _check_new(path: str | None) -> None:
    if path and os.path.lexists(path):
        raise UsageError(f"{path} exists; the inspector never overwrites a file")


def cmd_audit(args) -> int:
    """Run the audit (see the module's text for the exit codes)."""
    try:
        from inspector import audit
        from inspector.audit import publish
        import dask.distributed  # noqa: F401
    except ImportError:
        raise UsageError("audit needs Dask: pip install 'checkpoint-inspector[audit]'") from None
    if args.batch < 1:
        raise UsageError("--batch takes 1 or more files")
    if args.file_timeout <= 0:
        raise UsageError("--file-timeout takes a number of seconds over 0")
    if args.format == "parquet":
        try:
            audit.output.need_pyarrow()
        except ImportError:
            raise UsageError("--format parquet needs pyarrow: pip install 'checkpoint-inspector[audit]'") from None
    journal_file = journal_path(args.out)
    if args.resume and os.path.isdir(journal_file) and publish.pending(journal_file) is not None:
        # (killed while it published its outputs: finish that, nothing is verified again)
        try:
            journal = audit.Journal(journal_file, resume=True)
        except OSError as e:
            raise OutputError(f"{journal_file}: {e.strerror or e}") from None
        return _publish(journal, journal_file, publish.pending(journal_file))
    for path in (args.out, args.summary, args.summary_html):  # (before Dask starts: nothing is overwritten)
        _check_new(path)
    if os.path.lexists(journal_file) and not args.resume:
        raise UsageError(f"{journal_file} exists: an interrupted audit; continue it with --resume, or remove it")
    try:
        journal = audit.Journal(journal_file, resume=args.resume)
    except NotADirectoryError:
        raise UsageError(f"{journal_file} is not the journal of an audit (a folder)") from None
    except OSError as e:
        raise OutputError(f"{journal_file}: {e.strerror or e}") from None
    try:
        result = audit.run_audit(args.source, journal, recursive=args.recursive, scheduler=args.scheduler,
                                 workers=args.workers, batch=args.batch, file_seconds=args.file_timeout,
                                 memory_limit=args.memory_limit, bar=_bar_factory())
    except SourceError:
        if journal.count == 0:  # (nothing was journaled: nothing to resume)
            journal.remove()
        raise  # (said by main, exit 2)
    except audit.AuditError as e:
        if e.reason.startswith("cannot reach") and journal.count == 0:
            journal.remove()
            raise  # (said by main, exit 2)
        err(f"checkpoint-inspector: {e.reason}")
        return EXIT_INCONCLUSIVE
    except OSError as e:
        raise OutputError(f"{journal_file}: {e.strerror or e}") from None
    finally:
        journal.close()
    # (the outputs are written whole from the journal, never from memory, into the journal first; then
    # published, RESULTS last: all or none, and a command killed while it publishes is finished by --resume)
    try:
        summary = audit.summarize(journal.records(), seconds=result.seconds, batches=result.batches,
                                  resumed=result.resumed, startup=result.startup,
                                  spill=os.path.join(journal.work(), "sessions"),
                                  partitions=audit.spill.partitions_for(journal.count))
        stage = publish.stage_folder(journal_file)
        items = []
        try:
            if args.summary:
                write_new_file(os.path.join(stage, "summary.json"),
                               (json.dumps(summary, indent=2, sort_keys=True) + "\n").encode("utf-8"))
                items.append(("summary.json", args.summary))
            if args.summary_html:
                write_new_file(os.path.join(stage, "summary.html"), audit.summary_html(summary).encode("utf-8"))
                items.append(("summary.html", args.summary_html))
            audit.write_results(os.path.join(stage, "results"), args.format, (e[0] for e in journal.records()))
            items.append(("results", args.out))
        except BaseException:
            shutil.rmtree(stage, ignore_errors=True)  # (nothing was published: --resume writes them again)
            raise
        code = EXIT_OK if summary["checkpoints"] and summary["not_verified"] == 0 else EXIT_FAIL  # (none: as scan)
        doc = publish.commit(journal_file, items, code, audit.summary_text(summary))
    except OSError as e:
        err(f"checkpoint-inspector: the records are kept in {journal_file}: write them with --resume")
        raise OutputError(f"{getattr(e, 'filename', None) or journal_file}: {e.strerror or e}") from None
    return _publish(journal, journal_file, doc)


def _publish(journal, journal_file: str, doc: dict) -> int:
    """Publish the outputs staged in the journal, remove it, print the summary; the exit code it stored."""
    from inspector.audit import publish

    try:
        publish.publish(journal_file, doc)
    except FileExistsError as e:
        raise UsageError(f"{e.filename} exists; the inspector never overwrites a file (the rest of the outputs "
                         f"are kept in {journal_file}: --resume writes them)") from None
    except OSError as e:
        err(f"checkpoint-inspector: the records are kept in {journal_file}: write them with --resume")
        where = getattr(e, "filename2", None) or getattr(e, "filename", None) or journal_file  # (a link's target)
        raise OutputError(f"{where}: {e.strerror or e}") from None
    journal.remove()  # (every output is whole: the journal's work is done)
    out(terminal_safe_lines(doc["text"]))
    return int(doc["exit"])
