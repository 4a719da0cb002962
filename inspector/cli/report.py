"""``checkpoint-inspector report``: the ticket report (redacted, safe to share) of a payload and/or its
descriptor, and ``report --check`` of a report's digest. Everything from the files reaches the report
through the one redaction gate (:mod:`inspector.ticket.gate`)."""

from __future__ import annotations

import hashlib
import os

from inspector.checkpoint import display_path, not_a_checkpoint

from .common import (
    EXIT_FAIL, EXIT_OK, EXIT_USAGE, OutputError, UsageError, out as _out, err as _err, read_file as _read,
    verified as _verified, exit_code as _exit_code, write_new as _write_new, remove_new as _remove_new,
    same_path as _same_path, emit as _emit,
)
from .termsafe import terminal_safe

__all__ = ["cmd_report", "CHECK_UNCHANGED", "CHECK_EDITED"]


def cmd_report(args) -> int:
    """``report FILE...``: the ticket report (redacted) in the chosen format; exit codes as ``verify``
    (2 for files that are not checkpoint files: the report then says so)."""
    from inspector.ticket import build_ticket, check_report, gate_for, redacted_chunks, render as render_ticket

    if args.check:
        return _check_report(args.check, check_report)
    if not args.files:
        raise UsageError("report: give a payload and/or its descriptor (or --check REPORT)")
    _refuse_existing_targets(args)
    files = [_read(p) for p in args.files]
    reason = not_a_checkpoint(files)
    if reason:
        ticket = build_ticket(None, not_a_checkpoint=files, not_a_checkpoint_text=reason,
                              hash_prefix=args.sha256_prefixes,
                              gate=gate_for(None, None, tags=args.sha256_prefixes, file_digests=args.file_digests))
        _emit(render_ticket(ticket, args.format), args.output)
        _err(f"checkpoint-inspector: {reason}")
        return EXIT_USAGE
    payload, descriptor, report = _verified(files, retain=False)  # the gate parses them again below
    for problem in report.internal_errors:
        _err(terminal_safe(f"checkpoint-inspector: internal error, please report it: {problem}"))
    facts = None
    # one gate for the redacted copy and the report: one tag key, so their tags can be compared
    gate = gate_for(payload.data if payload else None, descriptor.data if descriptor else None,
                    tags=args.sha256_prefixes, file_digests=args.file_digests)
    if args.redacted_payload:
        size, digest, replacements = _write_redacted_copy(args, payload, gate, redacted_chunks)
    # No half-done job: from here on, any failure (the report cannot be written, stdout closed or
    # full, a reader gone before the end, a crash while rendering, Ctrl+C) removes the redacted copy
    # and a report file written so far. Both were created by this command (O_EXCL), so they are ours.
    made = [args.redacted_payload] if args.redacted_payload else []
    try:
        if args.redacted_payload:
            facts = {"name": display_path(os.path.basename(os.fspath(args.redacted_payload))),
                     "size_bytes": size, "sha256": digest,
                     "replacements": len(replacements)}
            _err(f"redacted payload written to {display_path(args.redacted_payload)}: {len(replacements)} "
                 "replacements (review them before sharing):")
            for r in replacements:
                _err(terminal_safe(f"  {r.pointer}: {r.what} ({r.kind}, {r.size} bytes"
                                   f"{', ' + r.digest if r.digest else ''})"))
        ticket = build_ticket(report, payload, descriptor, hash_prefix=args.sha256_prefixes, redacted_payload=facts,
                              gate=gate)
        text = render_ticket(ticket, args.format)
        if args.output:
            _write_new(args.output, text.encode("utf-8"))  # removes its own partial file if it fails
            made.append(args.output)
        elif not _out(text) and facts is not None:
            raise OutputError("the reader closed the pipe before the end of the report")
    except BaseException as e:
        removed = _remove_new(made)
        if not removed:
            raise
        said = " and ".join(_what_was_written(p, args) for p in removed) + (" was" if len(removed) == 1 else " were")
        if isinstance(e, UsageError):
            raise UsageError(f"{e}; {said} removed") from None
        if isinstance(e, OutputError):
            raise OutputError(f"{e.reason}; {said} removed") from None
        try:
            _err(f"checkpoint-inspector: the report was not completed: {said} removed")
        except Exception:  # stderr itself is gone: the files are removed all the same
            pass
        raise
    return _exit_code(report)


def _check_report(path: str, check_report) -> int:
    """``report --check REPORT``: exit 0 when the report's ``report-sha256`` matches its text, 1 when not."""
    f = _read(path)
    ok = None if f.data is None else check_report(f.data)
    if ok is None:
        raise UsageError(f"{display_path(path)}: no report-sha256 digest found; not a Checkpoint Inspector report")
    _out(terminal_safe(f"{display_path(path)}: {CHECK_UNCHANGED if ok else CHECK_EDITED}") + "\n")
    return EXIT_OK if ok else EXIT_FAIL


def _refuse_existing_targets(args) -> None:
    """``report`` writes only new files: refuse an ``-o`` or ``--redacted-payload`` that exists or that both name."""
    for target in (args.output, args.redacted_payload):
        if target and os.path.lexists(target):
            raise UsageError(f"{display_path(target)} exists; choose a new file name")
    if args.output and args.redacted_payload and _same_path(args.output, args.redacted_payload):
        raise UsageError("the report and the redacted payload need two different new files")


def _write_redacted_copy(args, payload, gate, redacted_chunks) -> tuple[int, str, list]:
    """Write ``--redacted-payload`` (a new file) through the report's gate, as the redaction walk makes it
    (the copy is never held whole); ``(size in bytes, "sha256:<hex>", replacements)``."""
    if payload is None or payload.data is None:
        raise UsageError("--redacted-payload needs a payload that could be read")
    try:
        chunks, replacements = redacted_chunks(payload.data, hash_prefix=args.sha256_prefixes, gate=gate)
    except ValueError as e:
        raise UsageError(f"{display_path(payload.path)}: no redacted copy can be made: the payload is "
                         f"{terminal_safe(str(e))}") from None
    h, size = hashlib.sha256(), 0

    def counted():
        nonlocal size
        for chunk in chunks:
            h.update(chunk)
            size += len(chunk)
            yield chunk

    _write_new(args.redacted_payload, counted())
    return size, "sha256:" + h.hexdigest(), replacements


#: ``report --check``: what a matching report-sha256 shows, and what it does not.
CHECK_UNCHANGED = ("unchanged since it was written (its report-sha256 matches), unless the digest was "
                   "recomputed after an edit: this is not a signature")


#: ``report --check``: a digest that does not match.
CHECK_EDITED = ("EDITED: its report-sha256 does not match: the report's bytes changed after it was written (an "
                "edit, or a copy that changed its line ends or spaces)")


def _what_was_written(path: str, args) -> str:
    return f"the {'redacted payload' if path == args.redacted_payload else 'report'} {display_path(path)}"
