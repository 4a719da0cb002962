"""``checkpoint-inspector restore PAYLOAD DESCRIPTOR -o NEW_FILE``: the exported payload, restored from a copy
re-saved or converted in transport, only when its SHA-256 proves it (:mod:`inspector.checkpoint.analysis.restore`).

Exit 0: restored, and the restored pair verifies; 1: no original can be proven (the reason on stderr; nothing
written), or the restored pair still fails a rule; 2: unreadable input, bad usage, or ``-o`` names a file that
exists (never written over: the inputs included); 3: the restored file or the summary on stdout could not be
written whole (``cannot write the output``), and no restored file is left.
"""

from __future__ import annotations

from inspector.checkpoint import Context, display_path, verify
from inspector.checkpoint.analysis.restore import NoProof, restore_original
from inspector.checkpoint.artifact import expand_exports

from .common import EXIT_FAIL, OutputError, UsageError, err, exit_code, out, read_file, remove_new, write_new
from .termsafe import terminal_safe

__all__ = ["cmd_restore"]


def cmd_restore(args) -> int:
    """Restore, write ``-o``, verify the restored pair and say so (see the module docstring for exit codes)."""
    if args.output == "-":  # (`-` names standard input: the restored payload goes to a file the user names)
        raise UsageError("-o -: name the new file to write the restored payload to (`-` is standard input)")
    files = [read_file(args.payload)] + ([read_file(args.descriptor)] if args.descriptor else [])
    files = expand_exports(files)  # (UnreadableInput for a wrapper whose content cannot be taken out: exit 2)
    if len(files) != 2:
        raise UsageError("restore needs the payload and its descriptor (or one SDK export wrapper, which holds both)")
    payload, descriptor = files
    for f in (payload, descriptor):
        if f.data is None:  # (over the 256 MiB ceiling: not read)
            raise UsageError(f"{display_path(f.path)}: {f.hint}")
    desc, error = Context(None, descriptor.data).desc_result
    if error is not None:
        err(terminal_safe(f"checkpoint-inspector: no restore: the descriptor does not decode (D-PARSE: {error.text()})"))
        return EXIT_FAIL
    try:
        original, proof = restore_original(payload.data, desc)
    except NoProof as e:
        err(terminal_safe(f"checkpoint-inspector: no restore: {e}"))
        return EXIT_FAIL
    write_new(args.output, original)  # never over an existing file, the inputs included; whole or removed
    try:  # no half-done job: if the summary cannot be written (or anything fails), the restored file goes too
        report = verify(original, descriptor.data)
        rc = report.root_cause
        verdict = "VERIFIED" if report.verified else f"NOT VERIFIED ({rc.rule.id}: {rc.message})" if rc else "not verified"
        lines = (f"restored {display_path(args.output)}: {proof.size_bytes} bytes, {proof.content_digest}",
                 f"{proof.sentence}.", f"the restored pair: {verdict}")
        out("".join(terminal_safe(line) + "\n" for line in lines))
    except BaseException as e:
        if not remove_new([args.output]):  # (created by write_new with O_EXCL: ours)
            raise
        if isinstance(e, OutputError):
            raise OutputError(f"{e.reason}; the restored payload {display_path(args.output)} was removed") from None
        try:
            err(f"checkpoint-inspector: the restore was not completed: the restored payload "
                f"{display_path(args.output)} was removed")
        except Exception:  # stderr itself is gone: the file is removed all the same
            pass
        raise
    return exit_code(report)
