#!/usr/bin/env python3
"""Vendor the format's ground truth into ``tests/data/`` and check the copy against ``../shared``.

The tests run on a lone clone: FORMAT.md, the golden pairs, ``cases/``, ``cases-pinned/``, the
resume ``scenarios/`` and the 6,000 canonical-encoding vectors are copied from the shared ground
truth (``../shared`` beside the clone, or ``$CHECKPOINT_SHARED``) into ``tests/data/`` with the same
layout, and ``tests/data/MANIFEST.sha256`` lists the plain SHA-256 and size of every vendored file.
DESIGN.md and the Rust reference are not vendored (the tests that run the reference skip without it).

Usage::

    python tools/vendor_ground_truth.py            # refresh tests/data/ from the shared copy
    python tools/vendor_ground_truth.py --check    # report drift; exit 0 even when files differ
    python tools/vendor_ground_truth.py --check --strict   # exit 1 on drift (for a release check)
    python tools/vendor_ground_truth.py --verify   # tests/data/ against its own manifest (exit 1 if not)

No vendored file may exceed ``MAX_BYTES`` (5 MB): a larger one is refused, never committed.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
MANIFEST = DATA / "MANIFEST.sha256"
#: Folders/files copied from the shared root, relative to it (the layout is kept).
VENDORED = ("FORMAT.md", "fixtures/README.md", "fixtures/golden", "fixtures/cases", "fixtures/cases-pinned",
            "fixtures/scenarios", "vectors/README.md", "vectors/canonical-v1.jsonl")
MAX_BYTES = 5_000_000


def shared_root() -> Path:
    """The shared ground truth: ``$CHECKPOINT_SHARED`` if set, else ``../shared`` beside the clone."""
    env = os.environ.get("CHECKPOINT_SHARED")
    return Path(env) if env else ROOT.parent / "shared"


def sha256_file(path: Path) -> str:
    """Lowercase hex SHA-256 of the file's bytes (read in 1 MiB chunks)."""
    h = hashlib.sha256()
    with path.open("rb") as f:
        while chunk := f.read(1 << 20):
            h.update(chunk)
    return h.hexdigest()


def list_files(root: Path) -> list[str]:
    """Relative POSIX paths of the vendored files present under ``root``, sorted."""
    out: list[str] = []
    for rel in VENDORED:
        p = root / rel
        if p.is_file():
            out.append(rel)
        elif p.is_dir():
            out.extend(q.relative_to(root).as_posix() for q in p.rglob("*") if q.is_file())
    return sorted(out)


def read_manifest(path: Path = MANIFEST) -> dict[str, tuple[str, int]]:
    """``{relative path: (sha256, size in bytes)}`` from a manifest (``sha256  size  path`` lines)."""
    rows: dict[str, tuple[str, int]] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            digest, size, rel = line.split(None, 2)
            rows[rel] = (digest, int(size))
    return rows


def compare(shared: Path, data: Path = DATA) -> list[str]:
    """Lines describing every difference between ``shared`` and the vendored copy (empty: same).

    Each line is ``changed: PATH``, ``only in shared: PATH`` or ``only in tests/data: PATH``."""
    ours, theirs = set(list_files(data)), set(list_files(shared))
    diffs = [f"only in shared: {p}" for p in sorted(theirs - ours)]
    diffs += [f"only in tests/data: {p}" for p in sorted(ours - theirs)]
    diffs += [f"changed: {p}" for p in sorted(ours & theirs) if sha256_file(data / p) != sha256_file(shared / p)]
    return diffs


def refresh(shared: Path, data: Path = DATA) -> int:
    """Replace the vendored files with the shared ones and rewrite the manifest; returns the file count.

    Raises ``SystemExit`` (message) when the shared copy is missing or a file is over ``MAX_BYTES``."""
    files = list_files(shared)
    if not files:
        raise SystemExit(f"no ground truth at {shared} (set CHECKPOINT_SHARED)")
    big = [f"{p} ({(shared / p).stat().st_size} bytes)" for p in files if (shared / p).stat().st_size > MAX_BYTES]
    if big:
        raise SystemExit("refusing to vendor files over 5 MB (compress or split them first): " + ", ".join(big))
    for rel in VENDORED:
        target = data / rel
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
    lines = ["# sha256  size_bytes  path (relative to tests/data/), written by tools/vendor_ground_truth.py"]
    for rel in files:
        target = data / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(shared / rel, target)
        lines.append(f"{sha256_file(target)}  {target.stat().st_size}  {rel}")
    MANIFEST.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return len(files)


def verify_manifest(data: Path = DATA) -> list[str]:
    """Differences between ``tests/data/`` and its manifest (empty: every file present and intact)."""
    rows = read_manifest(data / MANIFEST.name)
    present = set(list_files(data))
    diffs = [f"missing: {p}" for p in sorted(set(rows) - present)]
    diffs += [f"not in manifest: {p}" for p in sorted(present - set(rows))]
    for p in sorted(set(rows) & present):
        digest, size = rows[p]
        if (data / p).stat().st_size != size or sha256_file(data / p) != digest:
            diffs.append(f"corrupt: {p}")
    return diffs


def main(argv: list[str] | None = None) -> int:
    """CLI entry point; returns the exit code (see the module docstring)."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--check", action="store_true", help="report differences from the shared copy")
    ap.add_argument("--strict", action="store_true", help="with --check: exit 1 when they differ")
    ap.add_argument("--verify", action="store_true", help="check tests/data/ against its manifest")
    args = ap.parse_args(argv)
    shared = shared_root()
    if args.verify:
        diffs = verify_manifest()
        for d in diffs:
            print(d)
        print(f"tests/data/: {'intact' if not diffs else f'{len(diffs)} problem(s)'} against MANIFEST.sha256")
        return 1 if diffs else 0
    if args.check:
        if not (shared / "fixtures").is_dir():
            print(f"ground truth check: no shared copy at {shared}; using the vendored tests/data/ only")
            return 0
        diffs = compare(shared)
        if not diffs:
            print(f"ground truth check: tests/data/ equals {shared} ({len(list_files(shared))} files)")
            return 0
        print(f"ground truth check: tests/data/ DIFFERS from {shared} in {len(diffs)} file(s):")
        for d in diffs:
            print(f"  {d}")
        print("  (refresh with: python tools/vendor_ground_truth.py)")
        return 1 if args.strict else 0
    n = refresh(shared)
    print(f"vendored {n} files from {shared} into {DATA.relative_to(ROOT)}/ (manifest: {MANIFEST.name})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
