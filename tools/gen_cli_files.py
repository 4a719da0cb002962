#!/usr/bin/env python3
"""The manual page and the bash, zsh and fish completions, generated from the command line's one parser
(:func:`inspector.cli.parser.documented_parser`) by argparse-manpage and shtab, so they can never disagree
with ``--help``: the options, their choices and the exit codes (``inspector.cli.parser.EXIT_STATUS``) come
from the parser itself; only the prose of the window's sections below is written here.

Usage::

    python tools/gen_cli_files.py --out DIR    # DIR/checkpoint-inspector.1, DIR/completions/{bash,zsh,fish}

``packaging/linux/make_deb.py`` installs them (``/usr/share/man/man1``, ``/usr/share/bash-completion/
completions``, ``/usr/share/zsh/vendor-completions``, ``/usr/share/fish/vendor_completions.d``). Needs the
``package`` extra (``shtab``, ``argparse-manpage``). The page's date is ``SOURCE_DATE_EPOCH``'s (reproducible
builds), else today's.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from inspector import __version__  # noqa: E402
from inspector.cli.parser import EXIT_STATUS, documented_parser  # noqa: E402

PROG = "checkpoint-inspector"
#: Where each shell looks for a completion file of a package, and the file's name there.
COMPLETION_FILES = {
    "bash": ("usr/share/bash-completion/completions", PROG),
    "zsh": ("usr/share/zsh/vendor-completions", f"_{PROG}"),
    "fish": ("usr/share/fish/vendor_completions.d", f"{PROG}.fish"),
}

#: Arguments that name a file or folder (by metavar or destination): completed with paths.
_PATH_NAMES = {"FILE", "FILE.json", "FILE.html", "NEW_FILE", "RESULTS", "REPORT", "SOURCE", "payload", "descriptor",
               "file", "A", "B", "output"}

_WINDOW = (
    "Without a command, opens the desktop window on the given payload and/or descriptor files (or a folder), "
    "or on the bundled sample checkpoint. When a window of the same user is already open, the files go to it "
    "instead and the command exits 0; \\fB\\-\\-new\\-window\\fR (or \\fBCHECKPOINT_INSPECTOR_NEW_WINDOW=1\\fR) "
    "opens a window of its own. The commands work headless (PySide6 is not needed); a file named \\fB\\-\\fR is "
    "standard input. An SDK export wrapper (\\fB{\"descriptor\": ..., \"contentBase64\": ...}\\fR) is read as "
    "the pair it holds by every command.")

_ENVIRONMENT = (
    ".TP\n\\fBCHECKPOINT_INSPECTOR_NEW_WINDOW\\fR\n"
    "1: open a window of its own, as \\fB\\-\\-new\\-window\\fR does.\n"
    ".TP\n\\fBCHECKPOINT_INSPECTOR_NETWORK_TIMEOUT\\fR\n"
    "seconds a URL source may take to connect or to send the next piece of an answer (default 30).\n"
    ".TP\n\\fBNO_COLOR\\fR\n"
    "respected: the command line never writes colour or other terminal escapes (a value from a file that holds "
    "one is shown escaped, as \\fB\\\\x1b\\fR).")

_FILES = ("/usr/share/doc/checkpoint\\-inspector/THIRD\\-PARTY\\-NOTICES.txt \\- licences of the bundled "
          "software.")


def _roff(text: str) -> str:
    """``text`` for a roff paragraph: backslashes doubled, hyphens escaped, no line starting with a dot."""
    text = text.replace("\\", "\\\\").replace("-", "\\-")
    return "\n".join(("\\&" + line) if line.startswith((".", "'")) else line for line in text.split("\n"))


def man_page() -> str:
    """The manual page (roff, section 1) of ``checkpoint-inspector``: argparse-manpage's page of
    :func:`documented_parser`, with the window's DESCRIPTION paragraph, EXIT STATUS (``EXIT_STATUS``),
    ENVIRONMENT and FILES."""
    from argparse_manpage.manpage import Manpage

    # argparse lays out the usage and help lines for the terminal's width ($COLUMNS): the page is the same
    # wherever it is made only at one width (reproducible builds), the width man pages are read at
    width, os.environ["COLUMNS"] = os.environ.get("COLUMNS"), "80"
    try:
        page = str(_page(Manpage))  # (the layout is made here, in __str__ too)
    finally:
        if width is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = width
    # argparse-manpage wraps the help texts without escaping a line that then starts with a dot or a quote
    # ("...}, the one JSON object": troff took it for a macro and dropped the line)
    text = _TEXT_LINE_AS_REQUEST.sub(r"\\&\1", page)
    return text.rstrip("\n") + "\n"


def _page(Manpage):
    page = Manpage(documented_parser(), _data={
        "project_name": "Checkpoint Inspector", "version": __version__, "manual_title": "User Commands",
        "description": "verify and explain A3S Code portable session checkpoints"})
    page.add_section("DESCRIPTION", "=", _WINDOW + "\n.PP")
    page.add_section("EXIT STATUS", "=", "\n".join(f".TP\n\\fB{code}\\fR\n{_roff(meaning)}"
                                                   for code, meaning in EXIT_STATUS))
    page.add_section("ENVIRONMENT", "=", _ENVIRONMENT)
    page.add_section("FILES", "=", _FILES)
    return page


#: A line of text that troff would read as a request: a dot or a quote not followed by a macro the page uses.
_TEXT_LINE_AS_REQUEST = re.compile(r"^([.'])(?!(?:TH|SH|SS|TP|B|BR|BI|I|IR|IB|PP|RS|RE|IP|br|nf|fi|sp)\b)",
                                   re.MULTILINE)


def completion(shell: str) -> str:
    """The completion script of ``checkpoint-inspector`` for ``shell`` (``bash``, ``zsh`` or ``fish``), made by
    shtab from :func:`documented_parser`; the arguments that name files complete with paths. Raises
    ``KeyError`` for another shell."""
    import shtab

    COMPLETION_FILES[shell]
    parser = documented_parser()
    for p in [parser, *_subparsers(parser)]:
        for action in p._actions:
            if action.metavar in _PATH_NAMES or (action.metavar is None and action.dest in _PATH_NAMES):
                action.complete = shtab.FILE
    return shtab.complete(parser, shell=shell)


def _subparsers(parser: argparse.ArgumentParser) -> list[argparse.ArgumentParser]:
    return [sub for action in parser._actions if isinstance(action, argparse._SubParsersAction)
            for sub in dict.fromkeys(action.choices.values())]


def write(out: Path) -> list[Path]:
    """Write the manual page and the three completions under ``out``; returns the paths written."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "completions").mkdir(exist_ok=True)
    written = [out / f"{PROG}.1"]
    written[0].write_text(man_page(), encoding="utf-8")
    for shell in COMPLETION_FILES:
        p = out / "completions" / shell
        p.write_text(completion(shell), encoding="utf-8")
        written.append(p)
    return written


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True, help="the folder to write into")
    args = ap.parse_args(argv)
    for p in write(args.out):
        print(p)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
