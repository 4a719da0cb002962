"""The vendored ground truth in tests/data/ (tools/vendor_ground_truth.py): intact, complete, drift reported."""

import hashlib
import importlib.util
import shutil
import subprocess
import sys

from tests.conftest import ROOT, VENDORED

_spec = importlib.util.spec_from_file_location("vendor_ground_truth", ROOT / "tools" / "vendor_ground_truth.py")
vgt = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(vgt)

#: SHA-256 of serde_json's 6,000 canonical vectors as published in shared/vectors/.
VECTORS_SHA256 = "54fe1e254065e24638f4c936ac76cc4d4c5fea047ec353557004e0d0a4001f20"


def test_every_vendored_file_matches_the_manifest():
    assert vgt.verify_manifest(VENDORED) == []
    rows = vgt.read_manifest(VENDORED / "MANIFEST.sha256")
    assert rows["vectors/canonical-v1.jsonl"] == (VECTORS_SHA256, 3350431)
    assert hashlib.sha256((VENDORED / "vectors/canonical-v1.jsonl").read_bytes()).hexdigest() == VECTORS_SHA256


def test_vendored_set_is_complete_and_small():
    rows = vgt.read_manifest(VENDORED / "MANIFEST.sha256")
    dirs = {}
    for rel in rows:
        dirs.setdefault(rel.rsplit("/", 1)[0], []).append(rel)
    assert len(dirs["fixtures/golden"]) == 5           # 2 pairs + README
    assert len(dirs["fixtures/cases"]) == 109          # 54 pairs + cases.jsonl
    assert len(dirs["fixtures/cases-pinned"]) == 206   # 102 pairs + cases.jsonl + README
    assert max(size for _, size in rows.values()) <= vgt.MAX_BYTES


def test_manifest_detects_a_changed_byte(tmp_path):
    data = tmp_path / "data"
    shutil.copytree(VENDORED, data)
    target = data / "fixtures/golden/payload-with-resume.json"
    target.write_bytes(target.read_bytes().replace(b'"turn":3', b'"turn":4', 1))
    (data / "fixtures/cases/extra.json").write_bytes(b"{}")
    assert vgt.verify_manifest(data) == ["not in manifest: fixtures/cases/extra.json",
                                         "corrupt: fixtures/golden/payload-with-resume.json"]


def test_check_reports_drift_without_failing(tmp_path):
    shared = tmp_path / "shared"
    shutil.copytree(VENDORED, shared)
    (shared / "MANIFEST.sha256").unlink()
    (shared / "fixtures/cases/05-valid.payload.json").write_bytes(b"{}")
    (shared / "fixtures/cases-pinned/999-new.payload.json").write_bytes(b"{}")
    (shared / "fixtures/golden/README.md").unlink()
    assert vgt.compare(shared, VENDORED) == ["only in shared: fixtures/cases-pinned/999-new.payload.json",
                                             "only in tests/data: fixtures/golden/README.md",
                                             "changed: fixtures/cases/05-valid.payload.json"]
    env = {"CHECKPOINT_SHARED": str(shared), "PATH": "/usr/bin:/bin"}
    run = subprocess.run([sys.executable, str(ROOT / "tools/vendor_ground_truth.py"), "--check"],
                         capture_output=True, text=True, env=env)
    assert run.returncode == 0
    assert f"tests/data/ DIFFERS from {shared} in 3 file(s):" in run.stdout
    assert "  changed: fixtures/cases/05-valid.payload.json\n" in run.stdout
    strict = subprocess.run([sys.executable, str(ROOT / "tools/vendor_ground_truth.py"), "--check", "--strict"],
                            capture_output=True, text=True, env=env)
    assert strict.returncode == 1


def test_check_without_a_shared_copy_says_so(tmp_path):
    env = {"CHECKPOINT_SHARED": str(tmp_path / "absent"), "PATH": "/usr/bin:/bin"}
    run = subprocess.run([sys.executable, str(ROOT / "tools/vendor_ground_truth.py"), "--check"],
                         capture_output=True, text=True, env=env)
    assert (run.returncode, run.stdout) == (0, f"ground truth check: no shared copy at {tmp_path / 'absent'}; "
                                               "using the vendored tests/data/ only\n")
