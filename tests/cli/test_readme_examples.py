"""The README's sample command output is what the command prints (a newcomer pastes it and compares)."""

import os

from inspector.cli import main
from tests.conftest import ROOT


def _readme_block(first_line: str) -> str:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    start = readme.index(first_line)
    return readme[start:readme.index("```", start)]


def test_readme_diff_example_is_the_output_of_diff_on_the_bundled_samples(capsysbinary, monkeypatch):
    monkeypatch.chdir(ROOT)
    cmd = "$ checkpoint-inspector diff resources/samples/sample.payload.json resources/samples/broken.payload.json\n"
    shown = _readme_block(cmd)[len(cmd):]
    code = main(["diff", os.path.join("resources", "samples", "sample.payload.json"),
                 os.path.join("resources", "samples", "broken.payload.json")])
    out = capsysbinary.readouterr().out.decode("utf-8")
    assert code == 1
    assert shown == out.replace(os.sep, "/")
