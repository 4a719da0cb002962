"""The manual page and the shell completions are made from the parser (tools/gen_cli_files.py: argparse-manpage
and shtab), and work in the real programs: ``man`` renders the page without a warning, with the exit codes
``--help`` gives; bash, zsh and fish complete the commands, their choices and file names."""

from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys

import pytest

from tests.conftest import ROOT

pytest.importorskip("shtab", reason="shtab is in the dev and package extras")
pytest.importorskip("argparse_manpage", reason="argparse-manpage is in the dev and package extras")


def _tool():
    spec = importlib.util.spec_from_file_location("gen_cli_files", ROOT / "tools" / "gen_cli_files.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def made(tmp_path_factory):
    out = tmp_path_factory.mktemp("cli-files")
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1796083200"}  # 2026-12-01
    subprocess.run([sys.executable, str(ROOT / "tools" / "gen_cli_files.py"), "--out", str(out)], check=True,
                   env=env, capture_output=True)
    return out


def _help_exit_codes() -> list[tuple[str, str]]:
    out = subprocess.run([sys.executable, "-m", "inspector", "--help"], cwd=ROOT, capture_output=True, text=True,
                         env={**os.environ, "COLUMNS": "10000"}).stdout
    listed = out.split("exit codes: ", 1)[1].strip().rstrip(".")
    return [(m.group(1), " ".join(m.group(2).split())) for m in re.finditer(r"(\d) (.*?)(?=; \d |$)", listed, re.DOTALL)]


def test_the_man_page_has_the_exit_codes_help_has_and_every_command(made):
    page = (made / "checkpoint-inspector.1").read_text()
    assert page.startswith('.TH CHECKPOINT\\-INSPECTOR "1" "2026\\-12\\-01" "Checkpoint Inspector 0.1.0" "User Commands"\n')
    rendered = subprocess.run(["man", "--warnings", "-E", "UTF-8", "-l", str(made / "checkpoint-inspector.1")],
                              capture_output=True, text=True, env={**os.environ, "MANWIDTH": "10000"})
    if rendered.returncode != 0 and shutil.which("man") is None:
        pytest.skip("man is not installed")
    assert rendered.stderr == ""  # (a wrapped help line starting "...}" was taken for a macro and dropped)
    text = re.sub(r".\x08", "", rendered.stdout)
    status = text.split("\nEXIT STATUS\n", 1)[1].split("\nENVIRONMENT\n", 1)[0]
    in_page = [(m.group(1), " ".join(m.group(2).split())) for m in re.finditer(r"^ +(\d) +(.+?)(?=\n\n|\Z)", status,
                                                                              re.MULTILINE | re.DOTALL)]
    assert in_page == _help_exit_codes()
    assert [c for c, _ in in_page] == ["0", "1", "2", "3"]
    from inspector.cli.parser import SUBCOMMANDS, build_parser

    for name in SUBCOMMANDS:
        assert f"COMMAND 'checkpoint-inspector {name}'" in text, name
    sub = build_parser().commands
    for name, parser in sub.items():  # every option of every command, as --help names it
        for action in parser._actions:
            for option in set(action.option_strings) - {"-h", "--help"}:  # (the page does not repeat -h)
                assert option in text, (name, option)
    assert "--self-test" in text and "--new-window" in text and "a file named - is standard input" in text
    assert "...}, the one JSON object the Node, Python and Go SDKs hand their sink" in " ".join(text.split())


def test_the_files_are_the_same_bytes_when_made_again(made, tmp_path):
    """Made again in a terminal of another width: argparse lays out for $COLUMNS, the page is made at 80."""
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1796083200", "COLUMNS": "300"}
    subprocess.run([sys.executable, str(ROOT / "tools" / "gen_cli_files.py"), "--out", str(tmp_path)], check=True,
                   env=env, capture_output=True)
    names = ["checkpoint-inspector.1", "completions/bash", "completions/zsh", "completions/fish"]
    assert [(tmp_path / n).read_bytes() for n in names] == [(made / n).read_bytes() for n in names]


def _bash(made, words: list[str]) -> list[str]:
    script = (f"source {made / 'completions' / 'bash'}\n"
              "COMP_WORDS=(\"$@\"); COMP_CWORD=$(($# - 1)); COMP_LINE=\"$*\"; COMP_POINT=${#COMP_LINE}\n"
              "_shtab_checkpoint_inspector checkpoint-inspector \"${COMP_WORDS[COMP_CWORD]}\" \"${COMP_WORDS[COMP_CWORD-1]}\"\n"
              "printf '%s\\n' \"${COMPREPLY[@]}\"\n")
    p = subprocess.run(["bash", "-c", script, "bash", *words], capture_output=True, text=True, check=True)
    return sorted(p.stdout.split())


def test_bash_completes_commands_choices_and_files(made, tmp_path):
    assert _bash(made, ["checkpoint-inspector", "ver"]) == ["verify"]
    assert _bash(made, ["checkpoint-inspector", "verify", "--format", ""]) == ["json", "sarif", "text"]
    assert _bash(made, ["checkpoint-inspector", "scan", "--format", ""]) == ["json", "jsonl", "text"]
    (tmp_path / "p1.payload.json").write_bytes(b"{}")
    (tmp_path / "p1.descriptor.json").write_bytes(b"{}")
    assert _bash(made, ["checkpoint-inspector", "verify", str(tmp_path / "p1.")]) == [
        str(tmp_path / "p1.descriptor.json"), str(tmp_path / "p1.payload.json")]


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed (.ci/run installs it)")
def test_fish_completes_commands_choices_and_files(made, tmp_path):
    (tmp_path / "p1.payload.json").write_bytes(b"{}")

    def fish(line: str) -> list[str]:
        p = subprocess.run(["fish", "--no-config", "-c", f"source {made / 'completions' / 'fish'}; complete -C {line!r}"],
                           capture_output=True, text=True, check=True)
        return sorted(x.split("\t")[0] for x in p.stdout.splitlines())

    assert fish("checkpoint-inspector ver") == ["verify"]
    assert fish("checkpoint-inspector timeline --format ") == ["json", "text"]
    assert fish(f"checkpoint-inspector verify {tmp_path}/p1.") == [f"{tmp_path}/p1.payload.json"]


_ZSH = r"""
zmodload zsh/zpty
zpty z zsh -f -i
zpty -w z "fpath=($1 \$fpath); autoload -U compinit; compinit -u -D; setopt nobeep; LISTMAX=1000"
zpty -w z "print -r -- READY"
zpty -r z line '*READY*'
zpty -w -n z "$2"$'\t'
zpty -w z $'\C-u'"print -r -- DONE"
zpty -r z out '*DONE*'
print -r -- "$out"
zpty -d z
"""


@pytest.mark.skipif(shutil.which("zsh") is None, reason="zsh is not installed (.ci/run installs it)")
def test_zsh_completes_commands_and_choices(made, tmp_path):
    (tmp_path / "_checkpoint-inspector").write_bytes((made / "completions" / "zsh").read_bytes())
    (tmp_path / "t.zsh").write_text(_ZSH)

    def zsh(line: str) -> str:
        p = subprocess.run(["zsh", "-f", str(tmp_path / "t.zsh"), str(tmp_path), line], capture_output=True,
                           text=True, timeout=60)
        return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]|[\x08\r]", "", p.stdout)

    assert re.search(r"json +sarif +text", zsh("checkpoint-inspector verify --format "))
    assert "checkpoint-inspector scan " in zsh("checkpoint-inspector sc")  # the one match, completed in the line


def test_make_deb_installs_the_page_and_the_completions(tmp_path):
    """The .deb's files come from the generator (the fake-bundle build in test_build_recipes.py installs them)."""
    tool = _tool()
    assert tool.COMPLETION_FILES == {
        "bash": ("usr/share/bash-completion/completions", "checkpoint-inspector"),
        "zsh": ("usr/share/zsh/vendor-completions", "_checkpoint-inspector"),
        "fish": ("usr/share/fish/vendor_completions.d", "checkpoint-inspector.fish")}
    source = (ROOT / "packaging" / "linux" / "make_deb.py").read_text()
    assert "cli_files.man_page()" in source and "cli_files.completion(shell)" in source
