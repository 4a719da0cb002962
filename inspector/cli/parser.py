"""The command line's options: every subcommand's arguments, declared in this one place (argparse).

Importing this module imports nothing of the engine: ``--help``, ``--version`` and a usage error are
answered from here (:mod:`.main` imports a command's own module only when it runs).
"""

from __future__ import annotations

import argparse
import difflib
import sys

from inspector import __version__
from inspector.formats import names

from .common import EXIT_USAGE, NOT_REDACTED, out
from .termsafe import terminal_safe_lines

__all__ = ["SUBCOMMANDS", "EXIT_STATUS", "build_parser", "documented_parser", "parse_args", "unknown_options_hint"]

SUBCOMMANDS = ("verify", "report", "describe", "canon", "rules", "explain", "diff", "timeline", "restore", "scan", "audit")


#: The exit codes of every command, ``(code, meaning)``: ``--help``'s epilog and the manual page's EXIT STATUS
#: are both made from this (tools/gen_cli_files.py).
EXIT_STATUS = (
    (0, "verified (or, for one file, no rule failed)"),
    (1, "a rule failed or canon rejected the document"),
    (2, "unreadable input or bad usage (unknown command or option, missing file, ...)"),
    (3, "inconclusive or internal error (an internal error left a rule unevaluated, or the program crashed; "
        "never a verdict; please report it)"),
)

SELF_TEST_HELP = ("checkpoint-inspector --self-test [--require-gui] checks that this installation works (one line, "
                  "exit 0/1; without PySide6 the window check is skipped unless --require-gui).")

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
        from inspector.checkpoint.rules.catalogue import reference_line

        out(f"checkpoint-inspector {__version__}\n{reference_line()}\n")  # whole, or exit 3
        parser.exit()


def build_parser() -> argparse.ArgumentParser:
    """The argparse parser of the headless subcommands (``verify``, ``report``, ``describe``, ``canon``, ``rules``,
    ``explain``)."""
    p = _Parser(prog="checkpoint-inspector",
                description="Verify and explain A3S Code portable session checkpoints. "
                            "Without a subcommand (or with only file names), opens the desktop inspector.",
                epilog=f"other: {SELF_TEST_HELP} exit codes: "
                       + "; ".join(f"{code} {meaning}" for code, meaning in EXIT_STATUS) + ".")
    p.add_argument("--version", action=_Version, nargs=0, help="show the version, the pinned reference and the rule "
                                                                "catalogue, and exit")
    sub = p.add_subparsers(dest="command", parser_class=_Parser)
    v = sub.add_parser("verify", help="verify a payload and/or descriptor (either order; recognised by content)",
                       description="Verify a payload and/or descriptor (either order; recognised by content). "
                                   + NOT_REDACTED)
    v.add_argument("files", nargs="+", metavar="FILE", help="payload and/or descriptor")
    v.add_argument("--format", choices=names("verify"), default=names("verify")[0])
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
    t.add_argument("--format", choices=names("report"), default=names("report")[0])
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
    r.add_argument("--format", choices=names("rules"), default=names("rules")[0])
    e = sub.add_parser("explain", help="explain one rule")
    e.add_argument("rule_id")
    for add in (_add_diff, _add_timeline, _add_restore, _add_scan, _add_audit):
        add(sub)
    p.commands = dict(sub.choices)  # for _parse: verify/report take options between their files
    return p


def documented_parser() -> argparse.ArgumentParser:
    """:func:`build_parser` with the options :mod:`inspector.entry` answers before it (``--self-test``,
    ``--require-gui``, ``--new-window``), for the manual page and the shell completions made from it
    (tools/gen_cli_files.py): what a user can type, in one parser."""
    p = build_parser()
    p.add_argument("--self-test", action="store_true", help=SELF_TEST_HELP)
    p.add_argument("--require-gui", action="store_true", help="with --self-test: a missing PySide6 fails the check")
    p.add_argument("--new-window", action="store_true",
                   help="open a window of its own even when one is open (default: the files go to the open window)")
    return p


#: Subcommands whose files may have options between them (``verify P --format json D``).
_INTERMIXED = ("verify", "report")


def parse_args(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
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


def _add_diff(sub) -> None:
    """Register ``diff`` on the subcommand parsers ``sub`` (``canon --diff`` is an option of ``canon``)."""
    d = sub.add_parser("diff", help="what changed between two payloads or two descriptors (exit 0 equal, 1 differ)",
                       description="What changed between two payloads or two descriptors (exit 0 equal, 1 differ). "
                                   + NOT_REDACTED)
    d.add_argument("a", metavar="A", help="the old payload or descriptor")
    d.add_argument("b", metavar="B", help="the new one (same kind as A)")
    d.add_argument("--format", choices=names("diff"), default=names("diff")[0],
                   help="patch: an RFC 6902 JSON Patch turning A into B")

def _add_timeline(sub) -> None:
    """Register ``timeline`` on the subcommand parsers ``sub``."""
    t = sub.add_parser("timeline", help="the runs' events as passes of the agent loop, and the resume boundary",
                       description="The runs' events as passes of the agent loop, and the resume boundary. " + NOT_REDACTED)
    t.add_argument("files", nargs="+", metavar="FILE", help="a payload (and, optionally, its descriptor)")
    t.add_argument("--format", choices=names("timeline"), default=names("timeline")[0])

def _add_restore(sub) -> None:
    """The ``restore`` subcommand's options."""
    r = sub.add_parser("restore", help="write the exported payload back from a re-saved copy, when its SHA-256 "
                                       "proves it (CRLF, BOM, pretty-printing, gzip...)")
    r.add_argument("payload", help="the payload file as received (or an SDK export wrapper, which holds both)")
    r.add_argument("descriptor", nargs="?", help="its descriptor (not needed for an SDK export wrapper)")
    r.add_argument("-o", "--output", required=True, help="the new file to write (never an existing one)")

def _add_scan(sub) -> None:
    """The ``scan`` subcommand's options."""
    s = sub.add_parser("scan", help="list a folder's checkpoints by session, each series in order of history (gaps, "
                                    "forks, same-export copies, the latest resumable)",
                       description="List a folder's checkpoints by session, each series in order of history "
                                   "(FORMAT.md 4.18: run-event sequences, never checkpoint_ms): gaps, forks, "
                                   "same-export copies, the latest resumable (none at a fork head). " + NOT_REDACTED)
    s.add_argument("folder", metavar="SOURCE",
                   help="a folder, an fsspec URL prefix (s3://, gs://, az://, http(s)://, memory://; needs the "
                        "'sources' extra) or a .jsonl file of SDK export wrappers")
    s.add_argument("--format", choices=names("scan"), default=names("scan")[0],
                   help="jsonl (with --watch): one JSON line per export as it appears and per change of a session's "
                        "latest resumable export")
    s.add_argument("-r", "--recursive", action="store_true", help="also the folders (prefixes) below SOURCE")
    s.add_argument("--watch", action="store_true",
                   help="keep watching: a local folder through the operating system's notifications (watchdog), "
                        "a URL by polling; a file is judged once its size and change token stay the same for "
                        "--settle seconds; exits 0 on Ctrl+C or SIGTERM")
    s.add_argument("--interval", type=float, default=None, metavar="SECONDS",
                   help="with --watch: seconds between looks (default 1 for a local folder, 10 for a URL)")
    s.add_argument("--settle", type=float, default=1.0, metavar="SECONDS",
                   help="with --watch: how long a file must stay unchanged before it is judged (default 1)")
    s.add_argument("--pair-wait", type=float, default=10.0, metavar="SECONDS",
                   help="with --watch: how long a payload or descriptor waits for the other half before it is "
                        "judged alone (default 10)")

def _add_audit(sub) -> None:
    """The ``audit`` subcommand's options."""
    a = sub.add_parser("audit", help="verify every checkpoint under a folder, URL prefix, .jsonl file or manifest "
                                     "on Dask; one record per checkpoint, and a summary",
                       description="Verify every checkpoint under SOURCE (a folder and the folders below it, an "
                                   "fsspec URL prefix, a .jsonl file of SDK export wrappers, a .jsonl manifest of "
                                   "{\"payload\": URL, \"descriptor\": URL} lines) on a Dask cluster: one record "
                                   "per checkpoint in RESULTS (locations, sizes, SHA-256, ids, run and pass, "
                                   "verified, the root cause, generation, resumability, lint kinds, why a file "
                                   "was not read: no content), and a summary. Needs the 'audit' extra.")
    a.add_argument("source", metavar="SOURCE")
    a.add_argument("--out", required=True, metavar="RESULTS", help="the records, a new file")
    a.add_argument("--format", choices=names("audit"), default=names("audit")[0],
                   help="RESULTS as JSON Lines (default) or Parquet (needs pyarrow)")
    a.add_argument("--summary", metavar="FILE.json", help="also write the summary as JSON to this new file")
    a.add_argument("--summary-html", metavar="FILE.html", help="also write the summary as an HTML page with plots")
    a.add_argument("--scheduler", metavar="ADDRESS",
                   help="a running Dask scheduler (tcp://HOST:8786); default: a local cluster on this machine")
    a.add_argument("--workers", type=int, metavar="N", help="worker processes of the local cluster (default: cores)")
    a.add_argument("--memory-limit", metavar="SIZE", help="memory per worker of the local cluster (e.g. 2GiB)")
    a.add_argument("--batch", type=int, default=200, metavar="FILES", help="about how many files one task handles")
    a.add_argument("--file-timeout", type=float, default=120.0, metavar="SECONDS",
                   help="give up a file whose verification takes longer (default 120)")
    a.add_argument("--resume", action="store_true",
                   help="continue an interrupted audit from RESULTS.partial (checkpoints recorded there are skipped)")
    a.add_argument("--no-recursive", dest="recursive", action="store_false",
                   help="only SOURCE itself, not the folders (prefixes) below it")
