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
import sys
import time
import traceback

from inspector import __version__
from inspector.checkpoint import (
    CanonicalError, UnreadableInput, canonicalize, display_path, not_a_checkpoint, rule, verify,
)
from inspector.checkpoint import catalogue
from inspector.checkpoint.artifact import expand_exports
from inspector.checkpoint.pairing import find_sibling
from inspector.session.sources import is_url
from inspector.checkpoint.sdk_export import wrap as wrap_export
from inspector.checkpoint.analysis.story import comparison
from inspector.checkpoint.rules.catalogue import reference_line

from . import audit as audit_cli, compare, render, restore, scan, timeline
from .common import (  # noqa: F401 (EXIT_* and the errors are the CLI's public names)
    EXIT_FAIL, EXIT_INCONCLUSIVE, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, OutputError, UsageError,
    out as _out, stdout_to_devnull as _stdout_to_devnull, flush_stdout as _flush_stdout,
    take_output_failure as _take_output_failure, err as _err, read_file as _read,
    not_a_checkpoint_error as _not_a_checkpoint_error, verified as _verified, exit_code as _exit_code,
    write_new as _write_new, remove_new as _remove_new, same_path as _same_path, emit as _emit,
)
from .common import NOT_REDACTED, retain_parsed_payloads  # noqa: F401 (inspector.entry calls it here)
from .common import _stdin_taken
from .report import CHECK_EDITED, CHECK_UNCHANGED, cmd_report  # noqa: F401 (re-exported)
from .termsafe import terminal_safe, terminal_safe_lines

SUBCOMMANDS = ("verify", "report", "describe", "canon", "rules", "explain", "diff", "timeline", "restore", "scan", "audit")


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
        _out(f"checkpoint-inspector {__version__}\n{reference_line()}\n")  # whole, or exit 3
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
    v = sub.add_parser("verify", help="verify a payload and/or descriptor (either order; recognised by content)",
                       description="Verify a payload and/or descriptor (either order; recognised by content). "
                                   + NOT_REDACTED)
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
    t.add_argument("--file-digests", action="store_true",
                   help="show the files' SHA-256 and the descriptor's content, evidence and descriptor digests in "
                        "clear (default: a tagged marker each). Beside a redacted payload each such digest lets "
                        "anyone test guesses at short redacted values (a PIN, a code), so ask for them only for "
                        "someone who may see the payload")
    t.add_argument("--check", metavar="REPORT",
                   help="check whether a report file is unchanged since it was written (its report-sha256; not a "
                        "signature: anyone who edits a report can recompute it)")
    d = sub.add_parser("describe", help="print the descriptor a payload should have (canonical JSON)")
    d.add_argument("payload")
    d.add_argument("-o", "--output", help="write to this new file instead of stdout (never overwrites an input)")
    d.add_argument("--sdk-export", action="store_true",
                   help="write the SDK export wrapper instead: {\"descriptor\": ..., \"contentBase64\": ...}, the one "
                        "JSON object the Node, Python and Go SDKs hand their sink (FORMAT.md 1)")
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
    restore.add_parser(sub)
    scan.add_parser(sub)
    audit_cli.add_parser(sub)
    p.commands = dict(sub.choices)  # for _parse: verify/report take options between their files
    return p




def _stage_printer(t0: float):
    """``on_stage`` for ``verify --progress``: each partial verdict on stderr as soon as it is known
    (with the failing rule's two compared values when the root cause is already decided).
    Progress lines carry stage names, rule ids, our words and counts, and no content (issue 22): every
    engine text goes through the redaction gate (a digest or size shows, a value of the files does
    not), and every line is terminal-safe."""
    from inspector.ticket import Gate

    gate = Gate(file_digests=True)  # (verify's own output shows the files' digests: so does its progress)
    said = []

    def show(stage) -> None:
        rc = stage.root_cause
        if rc is not None and said:  # the root cause was given already: only say what was added
            _err(f"[{time.perf_counter() - t0:5.1f} s] payload structure read; checking the other rules…")
            return
        lines = [f"[{time.perf_counter() - t0:5.1f} s] {gate.text(stage.headline)}"]
        if rc is not None:
            said.append(rc.rule.id)
            for label, value in comparison(rc):  # (Stated, Recomputed for a cross-binding rule)
                lines.append(f"    {(label.lower() + ':').ljust(9)} {gate.text(value) if value is not None else '—'}")
            lines += [f"    - {gate.text(n)}" for n in rc.notes]
        _err("\n".join(terminal_safe(line) for line in lines))
        sys.stderr.flush()
    return show


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
    alone = payload if descriptor is None else descriptor if payload is None else None
    sibling = None if alone is None or alone.form or is_url(alone.path) or alone.path == "-" else find_sibling(
        alone.path, alone.role, alone.data, alone.size)
    if args.format == "json":
        _out(render.to_json(report, payload, descriptor, sibling))
    elif args.format == "sarif":
        _out(render.to_sarif(report, payload, descriptor))
    else:
        _out(render.to_text(report, payload, descriptor, all_rules=args.all, sibling=sibling))
    return _exit_code(report)


def cmd_describe(args) -> int:
    """``describe PAYLOAD``: the canonical descriptor bytes the payload should have (``--sdk-export``: the SDK
    export wrapper of the payload and that descriptor, FORMAT.md 1); exit 1 if a payload rule fails, 2 for a file
    that is not a checkpoint file or is clearly a descriptor (as ``verify``). An SDK export wrapper given as
    PAYLOAD is described by the payload it holds."""
    f = _read(args.payload)
    reason = not_a_checkpoint([f])
    if reason:
        raise _not_a_checkpoint_error(reason)
    try:  # an SDK export wrapper: describe the payload it holds
        f = next((x for x in expand_exports([f]) if x.role == "payload"), f)
    except UnreadableInput as e:
        raise UsageError(str(e)) from None
    if f.role == "descriptor" and f.doubt is None:
        raise UsageError(f"{display_path(args.payload)} is a descriptor; describe takes a payload "
                         "('checkpoint-inspector verify PAYLOAD DESCRIPTOR' checks the pair)")
    report = verify(f.data, None, payload_size=f.size)
    if report.root_cause is not None:
        _err(terminal_safe(f"checkpoint-inspector: the payload fails {report.root_cause.rule.id}: "
                           f"{report.root_cause.message}"))
        return EXIT_FAIL
    data = report.expected_descriptor
    if args.sdk_export:
        data = wrap_export(f.data, data)
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
    """``rules``: the catalogue as text, JSON or the Markdown table of docs/rules.md."""
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
    _stdin_taken.clear()  # (each command may read standard input once: `-`)
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
               "timeline": lambda a: timeline.cmd_timeline(a, _read, UsageError, _out, _err),
               "restore": restore.cmd_restore, "scan": scan.cmd_scan,
               "audit": audit_cli.cmd_audit}[args.command]
    try:
        return handler(args)
    except UsageError as e:
        _err(f"checkpoint-inspector: {e}")
        return EXIT_USAGE


def guarded(fn, *args) -> int:
    """Run ``fn(*args)`` (returning an exit code) so that nothing escapes as a traceback with a
    verdict's exit code: ``SystemExit`` keeps its code (argparse's 0/2), Ctrl+C gives 130, an
    :class:`OutputError` (stdout closed or full, a new file that cannot be written whole) one line
    and :data:`EXIT_INCONCLUSIVE`, and any other exception prints :func:`internal_error_message`
    and returns :data:`EXIT_INTERNAL`.

    Standard output is flushed here, not by the interpreter at exit (where a failure gives exit
    120), and a write to it that failed while its caller went on (argparse ignores ``OSError`` when
    it prints help) also gives exit 3 (:func:`~.common.take_output_failure`): an output is whole or the
    exit code is 3."""
    try:
        code = fn(*args)
        _flush_stdout()
    except SystemExit:
        try:
            _flush_stdout()
        except OutputError as e:
            return _cannot_write(e.reason)
        failure = _take_output_failure()
        if failure is not None:
            return _cannot_write(failure)
        raise
    except KeyboardInterrupt:
        return 130
    except OutputError as e:
        return _cannot_write(e.reason)
    except BaseException as e:  # noqa: BLE001 - the last line of defence
        failure = _take_output_failure()
        if failure is not None and isinstance(e, OSError):  # a print() to stdout that failed: not a crash
            return _cannot_write(failure)
        try:
            _err(internal_error_message(e))
        except Exception:  # stderr itself is gone: the exit code still tells
            pass
        return EXIT_INTERNAL
    failure = _take_output_failure()
    if failure is not None:
        return _cannot_write(failure)
    return code


def _cannot_write(reason: str) -> int:
    """Say on stderr that the output could not be written (``reason``); returns :data:`EXIT_INCONCLUSIVE`.
    The failure the stream remembered is said with it (forgotten: an outer :func:`guarded` does not repeat it)."""
    _take_output_failure()
    try:
        _err(f"checkpoint-inspector: cannot write the output: {reason}; nothing was reported "
             f"(exit {EXIT_INCONCLUSIVE})")
    except Exception:  # stderr itself is gone: the exit code still tells
        pass
    return EXIT_INCONCLUSIVE


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
