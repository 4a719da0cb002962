"""The sample command output quoted in the README and in docs/cli.md is what the command prints (a newcomer
pastes it and compares)."""

import os

from inspector.cli import main
from tests.conftest import ROOT


def _doc_block(document: str, first_line: str) -> str:
    text = (ROOT / document).read_text(encoding="utf-8")
    start = text.index(first_line)
    return text[start:text.index("```", start)]


def test_cli_doc_diff_example_is_the_output_of_diff_on_the_bundled_samples(capsysbinary, monkeypatch):
    monkeypatch.chdir(ROOT)
    cmd = "$ checkpoint-inspector diff resources/samples/sample.payload.json resources/samples/broken.payload.json\n"
    shown = _doc_block("docs/cli.md", cmd)[len(cmd):]
    code = main(["diff", os.path.join("resources", "samples", "sample.payload.json"),
                 os.path.join("resources", "samples", "broken.payload.json")])
    out = capsysbinary.readouterr().out.decode("utf-8")
    assert code == 1
    assert shown == out.replace(os.sep, "/")


def test_readme_verify_example_is_how_verify_of_the_broken_sample_begins(capsysbinary, monkeypatch):
    monkeypatch.chdir(ROOT)
    cmd = ("$ checkpoint-inspector verify resources/samples/broken.payload.json "
           "resources/samples/broken.descriptor.json\n")
    shown = _doc_block("README.md", cmd)[len(cmd):]
    code = main(["verify", os.path.join("resources", "samples", "broken.payload.json"),
                 os.path.join("resources", "samples", "broken.descriptor.json")])
    out = capsysbinary.readouterr().out.decode("utf-8")
    assert code == 1
    assert shown.count("\n") == 12 and "Root cause: X-BYTES" in shown
    assert out.replace(os.sep, "/").startswith(shown)
