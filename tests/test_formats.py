"""One registry of output formats per family (inspector/formats.py): the CLI's ``--format`` choices, the window's
Export dialog and the ticket's writers all come from it."""

from __future__ import annotations

import argparse
import importlib

import pytest

from inspector import formats
from inspector.cli.parser import documented_parser

#: command -> family
COMMANDS = {"verify": "verify", "report": "report", "rules": "rules", "diff": "diff", "timeline": "timeline",
            "scan": "scan", "audit": "audit"}


def _format_option(command: str) -> argparse.Action:
    parser = documented_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return next(a for a in sub.choices[command]._actions if "--format" in a.option_strings)


@pytest.mark.parametrize("command", list(COMMANDS))
def test_each_command_s_format_choices_are_its_family_s(command):
    option = _format_option(command)
    fam = formats.family(COMMANDS[command])
    assert tuple(option.choices) == tuple(f.name for f in fam)
    assert option.default == fam[0].name


def test_the_families_as_registered():
    assert formats.names("report") == ("text", "markdown", "html", "json", "sarif")
    assert formats.names("verify") == ("text", "json", "sarif")
    assert formats.names("audit") == ("jsonl", "parquet")
    assert [f.suffix for f in formats.family("report")] == [".txt", ".md", ".html", ".json", ".sarif"]
    assert formats.find("diff", "patch").label == "JSON Patch (RFC 6902)"
    with pytest.raises(KeyError):
        formats.find("verify", "markdown")
    with pytest.raises(LookupError):
        formats.find("scan", "jsonl").writer()  # the scan streams its lines itself


def test_every_writer_resolves_and_the_ticket_renders_through_the_registry():
    from inspector.audit.output import FORMATS as AUDIT_FORMATS
    from inspector.cli import render as cli_render
    ticket_render = importlib.import_module("inspector.ticket.render")  # (the package's `render` is the function)

    assert ticket_render.FORMATS == {f.name: f.writer() for f in formats.family("report")}
    assert ticket_render.FORMATS["sarif"] is ticket_render.to_sarif
    assert [f.writer() for f in formats.family("verify")] == [cli_render.to_text, cli_render.to_json,
                                                              cli_render.to_sarif]
    assert AUDIT_FORMATS == ("jsonl", "parquet")
