"""Reproducible builds (reproducible-builds.org): one commit gives the same wheel, sdist and .deb bytes, whoever
builds it and whenever (packaging/build_dists.py, packaging/linux/make_deb.py under ``SOURCE_DATE_EPOCH``;
packaging/ci.sh compares two whole builds, bundle included)."""

from __future__ import annotations

import gzip
import hashlib
import importlib.util
import io
import os
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest

from tests.conftest import ROOT
from tests.installers.test_build_recipes import _fake_bundle

EPOCH = 1796083200  # 2026-12-01 00:00:00 UTC


def _module(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


@pytest.mark.skipif(shutil.which("git") is None or not (ROOT / ".git").exists(), reason="needs a git checkout")
def test_two_checkouts_give_the_same_wheel_and_sdist(tmp_path):
    pytest.importorskip("build", reason="build is in the dev and package extras")
    out = {}
    for name, umask in (("a", 0o022), ("b", 0o077)):
        clone = tmp_path / name
        subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
        if name == "b":  # another checkout: other file times, and a umask that makes files private
            later = time.time() + 3600
            for p in (clone / "inspector").rglob("*.py"):
                os.utime(p, (later, later))
                os.chmod(p, 0o600)
        old = os.umask(umask)
        try:
            subprocess.run([sys.executable, str(clone / "packaging" / "build_dists.py"), "--out", str(tmp_path / f"out-{name}")],
                           check=True, capture_output=True, env={**os.environ, "SOURCE_DATE_EPOCH": str(EPOCH)})
        finally:
            os.umask(old)
        out[name] = sorted((tmp_path / f"out-{name}").iterdir())
    assert [p.name for p in out["a"]] == ["checkpoint_inspector-0.1.0-py3-none-any.whl", "checkpoint_inspector-0.1.0.tar.gz"]
    assert [_sha(p) for p in out["a"]] == [_sha(p) for p in out["b"]]
    sdist = out["a"][1]
    raw = sdist.read_bytes()
    assert raw[3] & 0x08 == 0  # no file name in the gzip header
    assert int.from_bytes(raw[4:8], "little") == EPOCH
    with tarfile.open(sdist) as tar:
        members = tar.getmembers()
    assert {(m.uid, m.gid, m.uname, m.gname) for m in members} == {(0, 0, "root", "root")}
    assert max(m.mtime for m in members) <= EPOCH
    assert {m.mode for m in members} <= {0o644, 0o755}
    assert "checkpoint_inspector-0.1.0/inspector/cli/parser.py" in {m.name for m in members}
    import zipfile

    pinned = next(line.split("==")[1].split()[0] for line in (ROOT / "packaging" / "requirements-build.txt").read_text()
                  .splitlines() if line.startswith("setuptools=="))
    with zipfile.ZipFile(out["a"][0]) as whl:
        assert f"Generator: setuptools ({pinned})" in whl.read("checkpoint_inspector-0.1.0.dist-info/WHEEL").decode()


@pytest.mark.skipif(sys.platform != "linux" or shutil.which("dpkg-deb") is None, reason="needs dpkg-deb")
def test_the_deb_is_the_same_bytes_when_built_again(tmp_path, monkeypatch):
    pytest.importorskip("shtab", reason="the .deb's completions need the package extra")
    monkeypatch.setenv("SOURCE_DATE_EPOCH", str(EPOCH))
    make_deb = _module("make_deb", ROOT / "packaging" / "linux" / "make_deb.py")
    debs = []
    for n in range(2):
        (tmp_path / f"b{n}").mkdir()
        bundle = _fake_bundle(tmp_path / f"b{n}")
        debs.append(make_deb.build_deb(bundle, tmp_path / f"out{n}", version="9.9.9"))
        time.sleep(1.1)  # a second later: any time taken from the clock would differ
    assert _sha(debs[0]) == _sha(debs[1])
    listing = subprocess.run(["dpkg-deb", "--fsys-tarfile", str(debs[0])], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(listing)) as tar:
        assert max(m.mtime for m in tar.getmembers()) <= EPOCH
        changelog = gzip.decompress(tar.extractfile("./usr/share/doc/checkpoint-inspector/changelog.gz").read())
    assert b" -- " in changelog and changelog.rstrip().endswith(b"Tue, 01 Dec 2026 00:00:00 +0000")
