#!/usr/bin/env python3
"""Bounded memory ("Safe to share", round three, item 4): every command within 4x its input plus 64 MiB,
and within 2x ``verify``'s time.

    .venv/bin/python benchmarks/bench_memory.py [--reps 1] [--big] [--skip-bombs]

Each command runs as its own child process under GNU ``time`` (peak RSS and CPU are the command's own:
:func:`bench_verify.run_child`), with the package's bytecode compiled first (as an install has it). Inputs,
made in ``benchmarks/out/`` when missing:

* ``bench-16``: ``gen_checkpoint.py --mib 16`` (16.0 MiB, canonical, verifies) and its descriptor; with
  ``--big`` also ``bench-250`` (247.4 MiB). Rows: ``verify``, ``report``, ``report --redacted-payload``
  (a new file each run) and the same with ``--sha256-prefixes``;
* gzip bombs, each verified against ``bench-16``'s descriptor (so X-BYTES fails and the restore check
  runs on it): 1 GiB of zeros in 1.0 MB, 250 MiB of zeros in 249 KB, and 250 MiB of JSON whose start
  decodes (``{"schema":``, 250 MiB of spaces, the schema's string and ``}``) in about 250 KB: the one
  that must be read to its end.

Columns: wall and CPU seconds (median of ``--reps``), peak RSS in MiB, the budget (4x the input file plus
64 MiB), and CPU over ``verify``'s CPU of the same input (bombs: over ``verify`` of ``bench-16``'s own pair).
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import zlib
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from bench_verify import GNU_TIME  # noqa: E402

MIB = 1 << 20


def cli(py: str, *args: str) -> list[str]:
    return [py, "-m", "inspector", *args]


def ensure_pair(py: str, out: Path, mib: int) -> tuple[Path, Path]:
    p, d = out / f"bench-{mib}.payload.json", out / f"bench-{mib}.descriptor.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if not p.exists():
        subprocess.run([py, str(HERE / "gen_checkpoint.py"), "--mib", str(mib), "--out", str(out), "--no-check"],
                       env=env)  # (its own describe step needs an installed console script; done below)
    if not d.exists():
        subprocess.run(cli(py, "describe", str(p), "-o", str(d)), env=env, check=True)
    return p, d


def _gzip_repeating(path: Path, head: bytes, block: bytes, times: int, tail: bytes) -> None:
    """gzip of ``head + block * times + tail`` written in a moment (see tests/checkpoint/analysis/test_restore.py:
    after a full flush the compressed block is the same bytes each time)."""
    import struct

    c = zlib.compressobj(9, zlib.DEFLATED, 16 + zlib.MAX_WBITS)
    first = c.compress(head + block) + c.flush(zlib.Z_FULL_FLUSH)
    again = c.compress(block) + c.flush(zlib.Z_FULL_FLUSH)
    last = c.compress(tail) + c.flush(zlib.Z_FULL_FLUSH)
    crc = zlib.crc32(head + block)
    for _ in range(times - 1):
        crc = zlib.crc32(block, crc)
    crc = zlib.crc32(tail, crc)
    size = len(head) + len(block) * times + len(tail)
    with open(path, "wb") as fh:
        fh.write(first)
        for _ in range(times - 1):
            fh.write(again)
        fh.write(last + b"\x03\x00" + struct.pack("<II", crc, size & 0xFFFFFFFF))


def ensure_bombs(out: Path) -> dict[str, Path]:
    specs = {"bomb: 1 GiB of zeros": ("bomb-zeros-1g.payload.json", b"", bytes(MIB), 1024, b""),
             "bomb: 250 MiB of zeros": ("bomb-zeros-250m.payload.json", b"", bytes(MIB), 250, b""),
             "bomb: 250 MiB of JSON": ("bomb-json-250m.payload.json", b'{"schema":', b" " * MIB, 250,
                                       b'"a3s.code.session-checkpoint-payload.v1"}')}
    paths = {}
    for name, (file, head, blk, times, tail) in specs.items():
        path = out / file
        if not path.exists():
            _gzip_repeating(path, head, blk, times, tail)
        paths[name] = path
    return paths


def run_child(argv: list[str]) -> tuple[float, float, int, int]:
    """``(wall s, CPU s, peak RSS bytes, exit status)`` of ``argv`` under GNU ``time`` (the tool's own rusage, as
    :func:`bench_verify.run_child`). Its output goes to /dev/null: ``report --redacted-payload`` lists every
    replacement on stderr, more than a pipe holds unread."""
    import tempfile
    import time

    with tempfile.NamedTemporaryFile(prefix="bench-rusage-", suffix=".txt") as rusage:
        t = time.perf_counter()
        code = subprocess.run([GNU_TIME, "-f", "%e %U %S %M", "-o", rusage.name, *argv],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
        wall = time.perf_counter() - t
        fields = rusage.read().split()[-4:]  # "Command exited with non-zero status N" may come first
    return wall, float(fields[1]) + float(fields[2]), int(fields[3]) * 1024, code


def measure(argv: list[str], reps: int, new_file: Path | None = None) -> dict:
    walls, cpus, peak, code = [], [], 0, None
    for _ in range(reps):
        if new_file is not None:
            new_file.unlink(missing_ok=True)
        wall, cpu, rss, code = run_child(argv)
        walls.append(wall)
        cpus.append(cpu)
        peak = max(peak, rss)
    if new_file is not None:
        new_file.unlink(missing_ok=True)
    return {"wall": statistics.median(walls), "cpu": statistics.median(cpus), "peak": peak, "code": code}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--big", action="store_true", help="also the 247 MiB bench-250 pair")
    ap.add_argument("--skip-bombs", action="store_true")
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--out", type=Path, default=HERE / "out")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    os.environ["PYTHONPATH"] = str(ROOT)
    subprocess.run([args.python, "-m", "compileall", "-q", str(ROOT / "inspector")], capture_output=True)
    py = args.python
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())}")
    header = f"{'input':24s} {'MiB':>7s} {'command':36s} {'wall s':>7s} {'CPU s':>6s} {'peak MiB':>8s} " \
             f"{'budget':>7s} {'ok':>3s} {'x verify':>8s} exit"
    print(header)
    print("-" * len(header))
    red = args.out / "bench-memory.redacted.json"

    def row(name: str, path: Path, command: str, m: dict, verify_cpu: float | None) -> None:
        size = path.stat().st_size
        budget = 4 * size + 64 * MIB
        ratio = f"{m['cpu'] / verify_cpu:8.2f}" if verify_cpu else f"{'':8s}"
        print(f"{name:24s} {size / MIB:7.1f} {command:36s} {m['wall']:7.2f} {m['cpu']:6.2f} {m['peak'] / MIB:8.0f} "
              f"{budget / MIB:7.0f} {'yes' if m['peak'] <= budget else 'NO':>3s} {ratio} {m['code']}", flush=True)

    pairs = [("bench-16", *ensure_pair(py, args.out, 16))]
    if args.big:
        pairs.append(("bench-250", *ensure_pair(py, args.out, 250)))
    verify16 = None
    for name, p, d in pairs:
        v = measure(cli(py, "verify", str(p), str(d)), args.reps)
        verify16 = verify16 or v["cpu"]
        row(name, p, "verify", v, v["cpu"])
        for label, extra, new in (("report", [], None),
                                  ("report --redacted-payload", ["--redacted-payload", str(red)], red),
                                  ("  ... --sha256-prefixes", ["--redacted-payload", str(red), "--sha256-prefixes"],
                                   red)):
            m = measure(cli(py, "report", str(p), str(d), *extra), args.reps, new)
            row(name, p, label, m, v["cpu"])
    if not args.skip_bombs:
        d16 = pairs[0][2]
        for name, bomb in ensure_bombs(args.out).items():
            m = measure(cli(py, "verify", str(bomb), str(d16)), args.reps)
            row(name, bomb, "verify (restore check)", m, verify16)
    return 0


if __name__ == "__main__":
    sys.exit(main())
