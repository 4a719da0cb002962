"""``checkpoint-inspector`` headless subcommands (the window is opened by :mod:`inspector.entry`).

Exit codes: 0 verified (or consistent, for one input), 1 a rule failed (or ``canon``
rejected the document), 2 unreadable input or bad usage, 3 inconclusive or internal error (an
engine defect left a rule unevaluated, or the program crashed: never reported as verified, never
as a rule failure; the message names the exception type and where it happened, never its text,
which could quote payload content).
"""

from __future__ import annotations

import argparse
import difflib
import gc
import os
import sys
import time
import traceback

from inspector import __version__
from inspector.checkpoint import (
    CanonicalError, PairingError, UnreadableInput, canonicalize, display_path, not_a_checkpoint, pair_inputs,
    read_input, rule, verify,
)
from inspector.checkpoint import catalogue
from inspector.checkpoint.rules.catalogue import plain_texts, reference_line

from . import compare, render, timeline
from .termsafe import terminal_safe, terminal_safe_lines

SUBCOMMANDS = ("verify", "report", "describe", "canon", "rules", "explain", "diff", "timeline")
EXIT_OK, EXIT_FAIL, EXIT_USAGE, EXIT_INCONCLUSIVE = 0, 1, 2, 3
#: A crash (an unexpected exception anywhere): the same code as inconclusive, never 0 or 1.
EXIT_INTERNAL = EXIT_INCONCLUSIVE


_UNRECOGNIZED = "unrecognized arguments: "


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # exit 2 with usage, as argparse does, but never a traceback
        if message.startswith(_UNRECOGNIZED):
            message += unknown_options_hint(self, message[len(_UNRECOGNIZED):].split(" "))
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {terminal_safe_lines(message)}\n")  # argv can hold anything


class _Version(argparse.Action):
    """``--version``: the version, the pinned reference and the rule catalogue, as written (argparse's own
    version action re-wraps its text)."""

    def __call__(self, parser, namespace, values, option_string=None):
        sys.stdout.write(f"checkpoint-inspector {__version__}\n{reference_line()}\n")
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    """The argparse parser of the headless subcommands (``verify``, ``report``, ``describe``, ``canon``, ``rules``,
    ``explain``)."""
    p = _Parser(prog="checkpoint-inspector",
                description="Verify and explain A3S Code portable session checkpoints. "
                            "Without a subcommand (or with only file names), opens the desktop inspector.",
                epilog="other: checkpoint-inspector --self-test [--require-gui] checks that this installation works "
                       "(one line, exit 0/1; without PySide6 the window check is skipped unless --require-gui). "
                       "exit codes: 0 verified (or, for one file, no rule failed); 1 a rule failed or canon rejected "
                       "the document; 2 unreadable input or bad usage (unknown command or option, missing file, ...); "
                       "3 inconclusive or internal error (an internal error left a rule unevaluated, or the program "
                       "crashed; never a verdict; please report it).")
    p.add_argument("--version", action=_Version, nargs=0, help="show the version, the pinned reference and the rule "
                                                                "catalogue, and exit")
    sub = p.add_subparsers(dest="command", parser_class=_Parser)
    v = sub.add_parser("verify", help="verify a payload and/or descriptor (either order; recognised by content)")
    v.add_argument("files", nargs="+", metavar="FILE", help="payload and/or descriptor")
    v.add_argument("--format", choices=("text", "json", "sarif"), default="text")
    v.add_argument("--all", action="store_true", help="list every rule in text output")
    v.add_argument("--progress", action="store_true",
                   help="say on stderr what is known as soon as it is known: the descriptor, size and content "
                        "digest first (before the payload is parsed), then its structure, then every rule")
    t = sub.add_parser("report", help="a ticket report that is safe to share: verdict, root cause in plain words, "
                                      "file sizes and digests, redacted (verification runs on the original bytes)",
                       description="Verify the files (on their original bytes), then write a report for a support "
                                   "ticket. Values from message text, tool inputs and outputs, tool results, file "
                                   "contents, prompts, memory contents, paths and environment values are never "
                                   "included: only the fields of the allow-list appear in clear. Exit codes as verify.")
    t.add_argument("files", nargs="*", metavar="FILE", help="payload and/or descriptor")
    t.add_argument("--format", choices=("text", "markdown", "html", "json", "sarif"), default="text")
    t.add_argument("-o", "--output", metavar="NEW_FILE", help="write the report to this new file (never overwrites)")
    t.add_argument("--redacted-payload", metavar="NEW_FILE",
                   help="also write a redacted copy of the payload to this new file, listing every replacement on stderr")
    t.add_argument("--sha256-prefixes", action="store_true",
                   help="give each redacted value a tag: HMAC-SHA256 under a random key made for this report and "
                        "never written, 8 hex digits (equal values in one report share a tag; no tag can be checked "
                        "against a guessed value)")
    t.add_argument("--check", metavar="REPORT",
                   help="check whether a report file is unchanged since it was written (its report-sha256; not a "
                        "signature: anyone who edits a report can recompute it)")
    d = sub.add_parser("describe", help="print the descriptor a payload should have (canonical JSON)")
    d.add_argument("payload")
    d.add_argument("-o", "--output", help="write to this new file instead of stdout (never overwrites an input)")
    c = sub.add_parser("canon", help="print the canonical_json_v1 bytes of a JSON file")
    c.add_argument("file")
    c.add_argument("--diff", action="store_true",
                   help="show the file beside the canonical bytes (unified diff with byte offsets, difference classes)")
    r = sub.add_parser("rules", help="list the rule catalogue")
    r.add_argument("--format", choices=("text", "json", "markdown"), default="text")
    e = sub.add_parser("explain", help="explain one rule")
    e.add_argument("rule_id")
    compare.add_parsers(sub)
    timeline.add_parser(sub)
    p.commands = dict(sub.choices)  # for _parse: verify/report take options between their files
    return p


class OutputError(Exception):
    """Standard output cannot take the report (closed, full disk, ...); ``reason`` says why in a
    few words. :func:`guarded` turns it into one line on stderr and exit 3: no report was delivered."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def _out(text: str | bytes) -> bool:
    """Write to stdout (text is written as it is: a text output makes its lines terminal-safe
    first, :mod:`.termsafe`). A reader that went away (``| head``) is not an error: the rest of the
    output is dropped, ``False`` is returned, and the command still returns its verdict's exit
    code (``report`` with a redacted copy undoes its job instead). Any other failure to write
    (stdout closed, ``ENOSPC``, ``EBADF``) raises :class:`OutputError`. ``True`` once written."""
    if isinstance(text, str):
        text = text.encode("utf-8")
    if sys.stdout is None:  # started with standard output closed (``>&-``)
        raise OutputError("standard output is closed")
    try:
        sys.stdout.buffer.write(text)
        sys.stdout.buffer.flush()
    except BrokenPipeError:
        _stdout_to_devnull()
        return False
    except (OSError, ValueError) as e:  # ValueError: the stream was closed in this process
        reason = e.strerror if isinstance(e, OSError) and e.strerror else "standard output is closed"
        try:
            _stdout_to_devnull()
        except (OSError, ValueError):
            pass
        raise OutputError(reason) from None
    return True


def _stdout_to_devnull() -> None:
    """Point stdout's file descriptor at /dev/null, so what stays buffered does not fail again at
    the interpreter's final flush. Raises ``OSError``/``ValueError`` if stdout has no descriptor."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)


def _err(text: str) -> None:
    """One message on stderr, each of its lines terminal-safe (:func:`.termsafe.terminal_safe_lines`:
    its own line breaks kept; a piece from a file that may hold a newline is passed through
    :func:`.termsafe.terminal_safe` by the caller, so it stays on its line)."""
    sys.stderr.write(terminal_safe_lines(text.rstrip("\n")) + "\n")


class UsageError(Exception):
    """Unusable input or arguments: reported on stderr, exit code 2."""


def _read(path: str):
    try:
        return read_input(path)
    except UnreadableInput as e:
        raise UsageError(str(e)) from None


def _not_a_checkpoint_error(reason: str) -> UsageError:
    texts = plain_texts()
    return UsageError(f"{reason}\n{texts['what_checkpoints_look_like']}")


def _verified(files, on_stage=None):
    """(payload, descriptor, report) of recognised input files; the report is always computed on
    the original bytes. Raises UsageError for two payloads or two descriptors."""
    try:
        payload, descriptor = pair_inputs(files)
    except PairingError as e:
        raise UsageError(str(e)) from None
    report = verify(payload.data if payload else None, descriptor.data if descriptor else None,
                    payload_size=payload.size if payload else None, on_stage=on_stage, keep=_retained)
    if _retained:
        gc.freeze()  # the kept objects would otherwise be scanned by every later collection
    return payload, descriptor, report


_retained: list | None = None


def retain_parsed_payloads() -> list:
    """Make the commands keep each verification's parsed payload alive instead of freeing it
    (``verify(keep=)``), for a process that exits right after the command; returns the list that
    holds them (empty when nothing was verified). The console script then exits without freeing:
    about 0.2 s of CPU on a 250 MiB payload (:func:`inspector.entry.main`)."""
    global _retained
    if _retained is None:
        _retained = []
    return _retained


def _stage_printer(t0: float):
    """``on_stage`` for ``verify --progress``: each partial verdict on stderr as soon as it is known
    (with the failing rule's expected and actual values when the root cause is already decided).
    Progress lines carry stage names, rule ids, our words and counts, and no content (issue 22): every
    engine text goes through the redaction gate (a digest or size shows, a value of the files does
    not), and every line is terminal-safe."""
    from inspector.ticket import Gate

    gate = Gate()
    said = []

    def show(stage) -> None:
        rc = stage.root_cause
        if rc is not None and said:  # the root cause was given already: only say what was added
            _err(f"[{time.perf_counter() - t0:5.1f} s] payload structure read; checking the other rules…")
            return
        lines = [f"[{time.perf_counter() - t0:5.1f} s] {gate.text(stage.headline)}"]
        if rc is not None:
            said.append(rc.rule.id)
            if rc.expected is not None:
                lines.append(f"    expected: {gate.text(rc.expected)}")
            if rc.actual is not None:
                lines.append(f"    actual:   {gate.text(rc.actual)}")
            lines += [f"    - {gate.text(n)}" for n in rc.notes]
        _err("\n".join(terminal_safe(line) for line in lines))
        sys.stderr.flush()
    return show


def _exit_code(report) -> int:
    if report.ok:
        return EXIT_OK
    return EXIT_INCONCLUSIVE if report.inconclusive else EXIT_FAIL


def cmd_verify(args) -> int:
    """``verify FILE...``: one payload and/or one descriptor, recognised by content; returns the exit code.
    Files that are not checkpoint files at all are refused (exit 2), not reported as P-PARSE failures."""
    t0 = time.perf_counter()
    files = [_read(p) for p in args.files]
    reason = not_a_checkpoint(files)
    if reason:
        raise _not_a_checkpoint_error(reason)
    if args.progress:
        payload, descriptor, report = _verified(files, _stage_printer(t0))
    else:
        payload, descriptor, report = _verified(files)
    for problem in report.internal_errors:
        _err(terminal_safe(f"checkpoint-inspector: internal error, please report it: {problem}"))
    if args.format == "json":
        _out(render.to_json(report, payload, descriptor))
    elif args.format == "sarif":
        _out(render.to_sarif(report, payload, descriptor))
    else:
        _out(render.to_text(report, payload, descriptor, all_rules=args.all))
    return _exit_code(report)


def _write_new(path: str, data: bytes) -> None:
    """Write ``data`` to a file that must not exist yet (O_EXCL: never overwrites, inputs included).
    A write that does not complete (disk full, Ctrl+C, ...) removes the file it created: no partial
    file is left. Raises :class:`UsageError` (the file exists, or cannot be written)."""
    try:
        fh = open(path, "xb")
    except FileExistsError:
        raise UsageError(f"{display_path(path)} exists; choose a new file name") from None
    except OSError as e:
        raise UsageError(f"{display_path(path)}: cannot write ({e.strerror or type(e).__name__})") from None
    try:
        with fh:
            fh.write(data)
    except BaseException as e:
        _remove_new([path])  # created just now with O_EXCL: ours
        if isinstance(e, OSError):
            raise UsageError(f"{display_path(path)}: cannot write ({e.strerror or type(e).__name__})") from None
        raise


def _remove_new(paths: list[str]) -> list[str]:
    """Remove files this command created (each with O_EXCL, so never a file that existed before);
    returns those removed. Never raises: it runs while another failure is on its way out."""
    removed = []
    for path in paths:
        try:
            os.remove(path)
            removed.append(path)
        except OSError:
            pass
    return removed


def cmd_report(args) -> int:
    """``report FILE...``: the ticket report (redacted) in the chosen format; exit codes as ``verify``
    (2 for files that are not checkpoint files: the report then says so)."""
    import hashlib

    from inspector.ticket import build_ticket, check_report, gate_for, redact_payload, render as render_ticket

    if args.check:
        f = _read(args.check)
        ok = None if f.data is None else check_report(f.data)
        if ok is None:
            raise UsageError(f"{display_path(args.check)}: no report-sha256 digest found; not a Checkpoint Inspector report")
        _out(terminal_safe(f"{display_path(args.check)}: {CHECK_UNCHANGED if ok else CHECK_EDITED}") + "\n")
        return EXIT_OK if ok else EXIT_FAIL
    if not args.files:
        raise UsageError("report: give a payload and/or its descriptor (or --check REPORT)")
    for target in (args.output, args.redacted_payload):
        if target and os.path.lexists(target):
            raise UsageError(f"{display_path(target)} exists; choose a new file name")
    if args.output and args.redacted_payload and _same_path(args.output, args.redacted_payload):
        raise UsageError("the report and the redacted payload need two different new files")
    files = [_read(p) for p in args.files]
    reason = not_a_checkpoint(files)
    if reason:
        ticket = build_ticket(None, not_a_checkpoint=files, not_a_checkpoint_text=reason,
                              hash_prefix=args.sha256_prefixes)
        _emit(render_ticket(ticket, args.format), args.output)
        _err(f"checkpoint-inspector: {reason}")
        return EXIT_USAGE
    payload, descriptor, report = _verified(files)
    for problem in report.internal_errors:
        _err(terminal_safe(f"checkpoint-inspector: internal error, please report it: {problem}"))
    facts = None
    data = replacements = None
    # one gate for the redacted copy and the report: one tag key, so their tags can be compared
    gate = gate_for(payload.data if payload else None, descriptor.data if descriptor else None,
                    tags=args.sha256_prefixes)
    if args.redacted_payload:
        if payload is None or payload.data is None:
            raise UsageError("--redacted-payload needs a payload that could be read")
        try:
            data, replacements = redact_payload(payload.data, hash_prefix=args.sha256_prefixes, gate=gate)
        except ValueError as e:
            raise UsageError(f"{display_path(payload.path)}: no redacted copy can be made: the payload is "
                             f"{terminal_safe(str(e))}") from None
        _write_new(args.redacted_payload, data)
    # No half-done job: from here on, any failure (the report cannot be written, stdout closed or
    # full, a reader gone before the end, a crash while rendering, Ctrl+C) removes the redacted copy
    # and a report file written so far. Both were created by this command (O_EXCL), so they are ours.
    made = [args.redacted_payload] if args.redacted_payload else []
    try:
        if args.redacted_payload:
            facts = {"name": display_path(os.path.basename(os.fspath(args.redacted_payload))),
                     "size_bytes": len(data), "sha256": "sha256:" + hashlib.sha256(data).hexdigest(),
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


#: ``report --check``: what a matching report-sha256 shows, and what it does not.
CHECK_UNCHANGED = ("unchanged since it was written (its report-sha256 matches), unless the digest was "
                   "recomputed after an edit: this is not a signature")
#: ``report --check``: a digest that does not match.
CHECK_EDITED = ("EDITED: its report-sha256 does not match: the report's bytes changed after it was written (an "
                "edit, or a copy that changed its line ends or spaces)")


def _what_was_written(path: str, args) -> str:
    return f"the {'redacted payload' if path == args.redacted_payload else 'report'} {display_path(path)}"


def _same_path(a: str, b: str) -> bool:
    """Two spellings of one file name (``./x`` and ``x``, ``d/../x``), before either exists."""
    return os.path.normcase(os.path.realpath(a)) == os.path.normcase(os.path.realpath(b))


def _emit(text: str, output: str | None) -> None:
    if output:
        _write_new(output, text.encode("utf-8"))
    else:
        _out(text)


def cmd_describe(args) -> int:
    """``describe PAYLOAD``: the canonical descriptor bytes the payload should have; exit 1 if a payload rule fails,
    2 for a file that is not a checkpoint file or is clearly a descriptor (as ``verify``)."""
    f = _read(args.payload)
    reason = not_a_checkpoint([f])
    if reason:
        raise _not_a_checkpoint_error(reason)
    if f.role == "descriptor" and f.doubt is None:
        raise UsageError(f"{display_path(args.payload)} is a descriptor; describe takes a payload "
                         "('checkpoint-inspector verify PAYLOAD DESCRIPTOR' checks the pair)")
    report = verify(f.data, None, payload_size=f.size)
    if report.root_cause is not None:
        _err(terminal_safe(f"checkpoint-inspector: the payload fails {report.root_cause.rule.id}: "
                           f"{report.root_cause.message}"))
        return EXIT_FAIL
    data = report.expected_descriptor
    if args.output:
        _write_new(args.output, data)  # never over an existing file, the input included
        return EXIT_OK
    _out(data)
    return EXIT_OK


def cmd_canon(args) -> int:
    """``canon FILE``: canonical_json_v1 bytes (FORMAT.md 3.1) to stdout, or serde_json's error and exit 1."""
    if args.diff:
        return compare.cmd_canon_diff(args, _read, UsageError, _out)
    f = _read(args.file)
    if f.data is None:
        raise UsageError(f"{display_path(args.file)}: {f.hint}")
    try:
        _out(canonicalize(f.data))
    except CanonicalError as e:
        _err(terminal_safe(f"{e} (serde_json {e.category} error at byte {e.offset})"))
        return EXIT_FAIL
    return EXIT_OK


def cmd_rules(args) -> int:
    """``rules``: the catalogue as text, JSON or the README's Markdown table."""
    if args.format == "json":
        import json

        _out(json.dumps([{"id": r.id, "stage": r.stage, "title": r.title, "code": r.code, "message": r.message,
                          "requires": list(r.requires), "doc_ref": r.doc_ref, "import_path": r.import_path,
                          "not_evaluated": r.not_evaluated,
                          "plain": None if r.plain is None else {"meaning": r.plain.meaning, "causes": list(r.plain.causes),
                                                                 "next_step": r.plain.next_step}}
                         for r in catalogue()], indent=2) + "\n")
        return EXIT_OK
    if args.format == "markdown":
        _out(render.rules_markdown())
        return EXIT_OK
    lines = [f"{r.id:28} {r.stage}  {r.title}" + ("  [not evaluated]" if r.not_evaluated else "") for r in catalogue()]
    _out("\n".join(terminal_safe(line) for line in lines) + "\n")
    return EXIT_OK


def cmd_explain(args) -> int:
    """``explain RULE-ID``: one rule in plain language (meaning, likely causes, next step), then its
    code, verbatim message, prerequisites and FORMAT.md section."""
    try:
        r = rule(args.rule_id.upper())
    except KeyError:
        _err(f"checkpoint-inspector: unknown rule '{display_path(args.rule_id)}'; see 'checkpoint-inspector rules'")
        return EXIT_USAGE
    lines = [f"{r.id}: {r.title}"]
    if r.plain is not None:
        lines += ["", f"  In plain words: {r.plain.meaning}", "  Likely causes:"]
        lines += [f"    - {c}" for c in r.plain.causes]
        lines += [f"  Next step: {r.plain.next_step}", "", "  Reference:"]
    lines += [f"  stage:     {r.group} ({r.stage})",
             f"  code:      {r.code or '(none: host-side serde error, no upstream variant)'}",
             f"  message:   {r.prefix}{r.message}", f"  source:    {r.doc_ref}",
             f"  requires:  {', '.join(r.requires) or '-'}",
             f"  reported by the import path: {'yes' if r.import_path else 'no (host component check)'}"]
    if r.not_evaluated:
        lines.append(f"  not evaluated: {r.not_evaluated}")
    _out("\n".join(terminal_safe(line) for line in lines) + "\n")
    return EXIT_OK


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``checkpoint-inspector`` console script; returns the exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    if not argv:
        parser.print_help(sys.stderr)
        return EXIT_USAGE
    return guarded(_run, parser, argv)


#: Subcommands whose files may have options between them (``verify P --format json D``).
_INTERMIXED = ("verify", "report")


def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    """``parser.parse_args(argv)``, except that ``verify``/``report`` accept options between their files
    (argparse's ``nargs="+"`` alone stops at the first option and calls the rest "unrecognized"), and that
    an unknown option is reported by the subcommand's parser (its usage, a "did you mean" hint), not the
    top-level one."""
    commands = getattr(parser, "commands", {})
    sub = commands.get(argv[0]) if argv[0] in _INTERMIXED else None
    if sub is None:
        args, extras = parser.parse_known_args(argv)
        if extras:
            commands.get(args.command, parser).error(_UNRECOGNIZED + ' '.join(extras))
        return args
    args = sub.parse_intermixed_args(argv[1:])
    args.command = argv[0]
    return args


def unknown_options_hint(parser: argparse.ArgumentParser, extras: list[str]) -> str:
    """``"; did you mean --format?"`` for arguments ``extras`` that ``parser`` did not take, naming the
    options of ``parser`` close to the mistyped ones (``--formt`` -> ``--format``); ``""`` when none is close."""
    own = [o for o in parser._option_string_actions if o.startswith("--")]
    hints = []
    for arg in extras:
        if arg.startswith("--"):
            close = difflib.get_close_matches(arg.split("=", 1)[0], own, n=1, cutoff=0.6)
            if close and close[0] not in hints:
                hints.append(close[0])
    return f"; did you mean {', '.join(hints)}?" if hints else ""


def _run(parser: argparse.ArgumentParser, argv: list[str]) -> int:
    args = _parse(parser, argv)
    handler = {"verify": cmd_verify, "report": cmd_report, "describe": cmd_describe, "canon": cmd_canon,
               "rules": cmd_rules, "explain": cmd_explain,
               "diff": lambda a: compare.cmd_diff(a, _read, UsageError, _out),
               "timeline": lambda a: timeline.cmd_timeline(a, _read, UsageError, _out, _err)}[args.command]
    try:
        return handler(args)
    except UsageError as e:
        _err(f"checkpoint-inspector: {e}")
        return EXIT_USAGE


def guarded(fn, *args) -> int:
    """Run ``fn(*args)`` (returning an exit code) so that nothing escapes as a traceback with a
    verdict's exit code: ``SystemExit`` keeps its code (argparse's 0/2), Ctrl+C gives 130, an
    :class:`OutputError` (stdout closed or full) one line and :data:`EXIT_INCONCLUSIVE`, and
    any other exception prints :func:`internal_error_message` and returns :data:`EXIT_INTERNAL`.
    """
    try:
        return fn(*args)
    except SystemExit:
        raise
    except KeyboardInterrupt:
        return 130
    except OutputError as e:
        try:
            _err(f"checkpoint-inspector: cannot write the output: {e.reason}; nothing was reported "
                 f"(exit {EXIT_INCONCLUSIVE})")
        except Exception:  # stderr itself is gone: the exit code still tells
            pass
        return EXIT_INCONCLUSIVE
    except BaseException as e:  # noqa: BLE001 - the last line of defence
        try:
            _err(internal_error_message(e))
        except Exception:  # stderr itself is gone: the exit code still tells
            pass
        return EXIT_INTERNAL


def internal_error_message(exc: BaseException) -> str:
    """One line for stderr about a crash: the exception *type* and the innermost frames of our
    code (file and line), never ``str(exc)``, which may quote checkpoint content."""
    frames = traceback.extract_tb(exc.__traceback__)[-3:]
    where = " <- ".join(f"{_short(f.filename)}:{f.lineno} {f.name}" for f in reversed(frames))
    return (f"checkpoint-inspector: internal error: {type(exc).__name__}" + (f" at {where}" if where else "")
            + f"; no verdict was reached (exit {EXIT_INTERNAL}). Please report it with this line "
            "(it quotes no checkpoint content).")


def _short(filename: str) -> str:
    parts = filename.replace("\\", "/").split("/")
    return "/".join(parts[parts.index("inspector"):]) if "inspector" in parts else parts[-1]
