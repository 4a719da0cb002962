#!/usr/bin/env python3
"""What a command costs before it reads a byte: CPU seconds (user + system) of ``--version``, ``--help`` and
``verify`` of the golden pair, each the best of N runs in a fresh interpreter, against the interpreter that only
imports orjson and msgspec.

    .venv/bin/python benchmarks/bench_start.py [--runs 15] [--root CHECKOUT] [--json]

``--root`` runs another checkout's code (``python -m inspector`` in that folder), for a before/after
comparison on one machine. The checkout's modules are byte-compiled first (``compileall``): an
installed package has its bytecode, and ``PYTHONDONTWRITEBYTECODE`` would otherwise make every run compile
every module. Targets: ``verify`` within 3x the baseline, ``--version`` and ``--help`` within 2x.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "data" / "fixtures" / "golden"


def cpu_seconds(argv: list[str], cwd: Path, runs: int) -> float:
    """The smallest user + system CPU time (seconds) of ``runs`` runs of ``argv`` (stdout and stderr
    discarded)."""
    best = float("inf")
    for _ in range(runs):
        pid = os.fork()
        if pid == 0:  # the child: run the command with its output discarded
            try:
                os.chdir(cwd)
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, 1)
                os.dup2(null, 2)
                os.execv(argv[0], argv)
            finally:
                os._exit(127)
        _, _, usage = os.wait4(pid, 0)
        best = min(best, usage.ru_utime + usage.ru_stime)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout whose code runs (default: this one)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    py = sys.executable
    import compileall

    compileall.compile_dir(str(args.root / "inspector"), quiet=1)
    golden = GOLDEN if GOLDEN.is_dir() else ROOT.parent / "shared" / "fixtures" / "golden"
    pair = [str(golden / "payload-with-resume.json"), str(golden / "descriptor-with-resume.json")]
    base = cpu_seconds([py, "-c", "import orjson, msgspec"], args.root, args.runs)
    rows = {}
    for name, cmd, target in (("--version", ["--version"], 2), ("--help", ["--help"], 2),
                              ("verify", ["verify", *pair], 3)):
        t = cpu_seconds([py, "-m", "inspector", *cmd], args.root, args.runs)
        rows[name] = {"cpu_s": round(t, 4), "ratio": round(t / base, 2), "target": target, "met": t / base <= target}
    if args.json:
        print(json.dumps({"baseline_cpu_s": round(base, 4), "commands": rows}, indent=2))
    else:
        print(f"baseline (import orjson, msgspec): {base * 1000:.0f} ms CPU")
        for name, r in rows.items():
            print(f"{name:10} {r['cpu_s'] * 1000:5.0f} ms  {r['ratio']:.1f}x  (target {r['target']}x: "
                  f"{'met' if r['met'] else 'NOT met'})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
