"""One error base for what the user is told (inspector/checkpoint/diagnostic.py): every layer's user-facing error
is an ``InspectorError``, the front-ends say its ``diagnostics()`` as they are, and no layer re-words another's."""

from __future__ import annotations

import re
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from inspector.audit.run import AuditError
from inspector.checkpoint.artifact import PairingError, UnreadableInput
from inspector.checkpoint.diagnostic import InspectorError
from inspector.checkpoint.jsontext.errors import SerdeError
from inspector.checkpoint.sdk_export import ExportError
from inspector.cli.common import OutputError, UsageError
from inspector.session.documents import UserError
from inspector.session.sources import SourceError
from inspector.session.workers import WorkerError

ROOT = Path(__file__).resolve().parents[2]


def test_every_user_facing_error_is_an_inspector_error_with_its_exit_status():
    for kind in (UnreadableInput, PairingError, ExportError, SourceError, AuditError, UserError, UsageError):
        assert issubclass(kind, InspectorError) and kind.exit_status == 2, kind
    assert issubclass(OutputError, InspectorError) and OutputError.exit_status == 3
    # a verdict and a crash are not: a parse error is a P-PARSE failure, a worker's crash is named by its type only
    assert not issubclass(SerdeError, InspectorError) and not issubclass(WorkerError, InspectorError)
    assert UnreadableInput("x.json: no such file", "x.json").diagnostics() == "x.json: no such file"
    assert PairingError().diagnostics() == "PairingError"


def test_the_command_line_and_the_window_say_the_same_sentence(tmp_path):
    from inspector.session import engine

    missing = tmp_path / "gone.payload.json"
    p = subprocess.run([sys.executable, "-m", "inspector", "verify", str(missing)], capture_output=True, text=True,
                       cwd=ROOT)
    got = []

    def load():
        try:
            engine.load_paths([str(missing)])
        except InspectorError as e:
            got.append(e.diagnostics())

    worker = threading.Thread(target=load)
    worker.start()
    worker.join()
    assert p.returncode == 2
    assert got == [f"{missing}: no such file"]
    assert p.stderr == f"checkpoint-inspector: {got[0]}\n"


_REWORDED = re.compile(r"except \(?[\w., ]*(?:UnreadableInput|PairingError|SourceError|ExportError)[\w., ]*\)? as (\w+):"
                       r"\n\s+raise \w+\((?:str\(\1\)|\1\.reason)\)")


@pytest.mark.parametrize("folder", ["checkpoint", "session", "cli", "audit", "gui", "ticket"])
def test_no_layer_re_words_another_s_error(folder):
    found = [str(path.relative_to(ROOT)) for path in (ROOT / "inspector" / folder).rglob("*.py")
             if _REWORDED.search(path.read_text(encoding="utf-8"))]
    assert found == []
