"""Folder scans (inspector/session/folderscan.py): classification without keeping bytes.

Moved from the round-named test files (tests mirror the code), assertions unchanged."""

import os
import shutil
import threading
import pytest
pytest.importorskip("PySide6")
import inspector.checkpoint as checkpoint  # noqa: E402
from inspector.session import folderscan
from tests.gui.conftest import CASES, GOLDEN_D, GOLDEN_P  # noqa: E402


def _in_worker(fn):
    out = {}

    def run():
        try:
            out["value"] = fn()
        except BaseException as e:  # noqa: BLE001
            out["error"] = e
    t = threading.Thread(target=run)
    t.start()
    t.join(120)
    if "error" in out:
        raise out["error"]
    return out["value"]


def test_cases_folder_lists_cases_jsonl_as_not_a_checkpoint(monkeypatch):
    events = []
    real_read, real_verify = checkpoint.read_input, checkpoint.verify

    def read(path, *a, **kw):
        events.append(("read", os.path.basename(path)))
        return real_read(path, *a, **kw)

    def verify(*a, **kw):
        events.append(("verify", None))
        return real_verify(*a, **kw)
    monkeypatch.setattr(checkpoint, "read_input", read)
    monkeypatch.setattr(checkpoint, "verify", verify)
    rows = _in_worker(lambda: folderscan.scan_folder(str(CASES)))
    checkpoints = [r for r in rows if r.checkpoint]
    others = [r for r in rows if not r.checkpoint]
    assert [os.path.basename(r.other) for r in others] == ["cases.jsonl"]
    assert others[0].summary == "not a checkpoint: a JSON Lines file that holds no SDK export wrapper"
    assert len(checkpoints) == 54
    assert not any(r.payload and r.payload.endswith(".jsonl") for r in checkpoints)
    # each payload is read just before its own verification, never all up front
    kinds = [k for k, _ in events]
    assert kinds.count("verify") == 54
    for i, k in enumerate(kinds):
        if k == "read":
            assert kinds[i + 1] == "verify"


def test_large_files_are_classified_from_their_head_without_keeping_bytes(tmp_path):
    big = tmp_path / "payload-with-resume.json"  # pairs with the descriptor by name (its digest differs)
    data = GOLDEN_P.read_bytes()
    big.write_bytes(data[:-1] + b" " * (2 << 20) + data[-1:])  # 2 MiB of whitespace: non-canonical
    found = folderscan._classify_file(str(big))
    assert (found.role, found.data, found.size) == ("payload", None, big.stat().st_size)
    d = folderscan._classify_file(str(GOLDEN_D))
    assert d.role == "descriptor" and d.data == GOLDEN_D.read_bytes()
    p = folderscan._classify_file(str(GOLDEN_P))
    assert p.role == "payload" and p.data is None  # small payloads are read again when verified
    shutil.copyfile(GOLDEN_D, tmp_path / GOLDEN_D.name)
    rows = _in_worker(lambda: folderscan.scan_folder(str(tmp_path)))
    assert [(os.path.basename(r.payload or ""), os.path.basename(r.descriptor or ""), r.root_rule) for r in rows] == [
        ("payload-with-resume.json", "descriptor-with-resume.json", "X-BYTES")]
