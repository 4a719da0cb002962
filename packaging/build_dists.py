#!/usr/bin/env python3
"""Build the wheel and the sdist reproducibly: the same commit gives the same bytes, whoever builds it, when
and from which checkout (reproducible-builds.org's ``SOURCE_DATE_EPOCH``).

    python3 packaging/build_dists.py --out dist [--source-date-epoch SECONDS]

How:

* ``SOURCE_DATE_EPOCH`` is the option's, else the environment's, else the commit's time (``git log -1
  --format=%ct``); the build sees it (the wheel's file times are taken from it);
* the build runs (``python -m build``, the ``package`` extra) on a copy of the files git tracks, every one
  dated ``SOURCE_DATE_EPOCH``, so neither the checkout's file times nor untracked files reach an artifact;
* the build backend is the pinned one (``requirements-build.txt``'s setuptools, passed to the isolated build);
* the build runs with umask 022 (the wheel keeps the modes of the files the build makes, its metadata);
* the sdist is written again in a normal form, member by member in the order setuptools wrote them: owner
  ``root`` (0/0), times clamped to ``SOURCE_DATE_EPOCH``, modes 0644 or 0755, and a gzip header with that
  time and no file name (setuptools writes the building user, the file times and its own gzip header).

Prints the path and SHA-256 of each artifact. Exits non-zero when the build fails.
"""

from __future__ import annotations

import argparse
import gzip
import hashlib
import io
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def source_date_epoch(given: int | None = None) -> int:
    """Seconds since 1970 for every time written: ``given``, else ``$SOURCE_DATE_EPOCH``, else the commit's
    time (raises ``subprocess.CalledProcessError`` outside a git checkout without either)."""
    if given is not None:
        return given
    if os.environ.get("SOURCE_DATE_EPOCH"):
        return int(os.environ["SOURCE_DATE_EPOCH"])
    out = subprocess.run(["git", "log", "-1", "--format=%ct"], cwd=ROOT, capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


def tracked_copy(dest: Path, epoch: int) -> Path:
    """Copy the files git tracks (as they are in the work tree) under ``dest``, each dated ``epoch``."""
    names = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in sorted(n for n in names.decode().split("\0") if n):
        src, dst = ROOT / name, dest / name
        if not src.is_file() or src.is_symlink():
            continue  # (a file deleted in the work tree but not yet in git; symlinks are not packaged)
        dst.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dst)
        os.chmod(dst, 0o755 if os.stat(src).st_mode & 0o100 else 0o644)  # (not the checkout's umask)
        os.utime(dst, (epoch, epoch))
    for d in sorted((p for p in dest.rglob("*") if p.is_dir()), reverse=True):
        os.chmod(d, 0o755)
        os.utime(d, (epoch, epoch))
    return dest


def normal_sdist(path: Path, epoch: int) -> None:
    """Rewrite the sdist at ``path`` in the normal form the module docstring gives."""
    members = []
    with tarfile.open(path, "r:gz") as tar:
        for m in tar.getmembers():
            data = tar.extractfile(m).read() if m.isfile() else None
            members.append((m, data))
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w", format=tarfile.PAX_FORMAT) as out:
        for m, data in members:
            m.uid = m.gid = 0
            m.uname = m.gname = "root"
            m.mtime = min(int(m.mtime), epoch)
            m.mode = 0o755 if m.isdir() or (m.mode & 0o111) else 0o644
            m.pax_headers = {}
            out.addfile(m, io.BytesIO(data) if data is not None else None)
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=epoch, compresslevel=9) as gz:
        gz.write(buf.getvalue())


def build(out: Path, epoch: int | None = None) -> list[Path]:
    """Build the wheel and the sdist into ``out`` (created); returns their paths, sdist first. Raises
    ``subprocess.CalledProcessError`` when the build fails."""
    epoch = source_date_epoch(epoch)
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="checkpoint-inspector-dist-") as tmp:
        tree = tracked_copy(Path(tmp) / "tree", epoch)
        built = Path(tmp) / "out"
        # the isolated build environment takes its setuptools from these pins too: the wheel's metadata names the
        # backend's version (Generator), and a newer one may lay it out otherwise
        env = {**os.environ, "SOURCE_DATE_EPOCH": str(epoch), "PYTHONHASHSEED": "0",
               "PIP_CONSTRAINT": str(ROOT / "packaging" / "requirements-build.txt")}
        subprocess.run([sys.executable, "-m", "build", "--sdist", "--wheel", "--outdir", str(built), str(tree)],
                       check=True, env=env, stdout=subprocess.DEVNULL,
                       preexec_fn=lambda: os.umask(0o022))  # the files it makes (metadata) get 0644 under any umask
        paths = []
        for p in sorted(built.iterdir(), key=lambda p: (not p.name.endswith(".tar.gz"), p.name)):
            if p.name.endswith(".tar.gz"):
                normal_sdist(p, epoch)
            target = out / p.name
            shutil.copyfile(p, target)
            paths.append(target)
    return paths


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--source-date-epoch", type=int, default=None)
    args = ap.parse_args(argv)
    for p in build(args.out, args.source_date_epoch):
        print(f"{p}  sha256:{hashlib.sha256(p.read_bytes()).hexdigest()}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
