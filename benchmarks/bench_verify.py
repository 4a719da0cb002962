#!/usr/bin/env python3
"""Time a full ``verify`` of a large checkpoint against ``sha256sum`` and the Rust reference.

    .venv/bin/python benchmarks/bench_verify.py [PAYLOAD DESCRIPTOR] [--reps 3] [--profile]

Without arguments it uses ``benchmarks/out/bench-250.*`` (make them with
``benchmarks/gen_checkpoint.py``). Every tool runs as its own child process; wall time is
measured around the child; CPU time and peak RSS are the child's own (GNU ``time``'s report, see
``run_child``), so the numbers of one tool never include another's or this process's. Rows:

* ``sha256sum``: one hashing pass over the file (the yardstick: ratio 1.0);
* ``oracle2 verify``: the Rust reference import path (when built; ``$ORACLE2``);
* ``checkpoint-inspector verify --format json``: our CLI end to end (interpreter start,
  reading both files, verify, JSON rendering);
* ``verify() in-process``: a child Python that reads both files, then times only the
  ``verify(payload, descriptor)`` call (its RSS includes the payload bytes it holds).

Each row is the median of ``--reps`` runs (min and max shown); the runs are interleaved (one run
of every tool per round) so load changes hit all rows alike. ``--profile`` adds a cProfile
top-N (by cumulative and by own time) of one in-process ``verify``; ``--py-spy`` a sampled
(low-overhead) top-N by line, own and inclusive. Targets (issue): no slower
than the reference (about 4.5x one ``sha256sum`` pass and 5x the payload in memory here); aim for
3x ``sha256sum`` and peak memory within 4x the payload size.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PY = ROOT / ".venv" / "bin" / "python"
CLI = ROOT / ".venv" / "bin" / "checkpoint-inspector"
MIB = 1 << 20

INPROC = r"""
import json, resource, sys, time
from inspector.checkpoint import verify
p = open(sys.argv[1], "rb").read()
d = open(sys.argv[2], "rb").read()
t, c = time.perf_counter(), time.process_time()
r = verify(p, d)
dt, dc = time.perf_counter() - t, time.process_time() - c
rc = r.root_cause
print(json.dumps({"seconds": dt, "cpu": dc, "verified": r.verified, "rule": rc.rule.id if rc else None,
                  "internal_errors": getattr(r, "internal_errors", [])}))
"""

PROFILE = r"""
import cProfile, pstats, sys
from inspector.checkpoint import verify
p = open(sys.argv[1], "rb").read()
d = open(sys.argv[2], "rb").read()
top = int(sys.argv[3])
pr = cProfile.Profile()
pr.enable()
r = verify(p, d)
pr.disable()
print("verified:", r.verified)
st = pstats.Stats(pr)
st.strip_dirs().sort_stats("cumulative").print_stats(top)
st.sort_stats("tottime").print_stats(top)
"""


def run_child(argv: list[str]) -> tuple[float, float, int, bytes, int]:
    """Run ``argv``; return (wall seconds, CPU seconds, peak RSS bytes, stdout, exit status).

    Peak RSS and CPU come from GNU ``time`` (``/usr/bin/time``) when installed: it forks the tool
    from its own small process, so the tool's ``ru_maxrss`` is its own. A child forked straight from
    this process starts with our resident set as its high-water mark (Linux keeps it across
    ``exec``), so without GNU ``time`` a small tool's peak reads as this process's size (say so).
    """
    timed = os.access(GNU_TIME, os.X_OK)
    with tempfile.NamedTemporaryFile(prefix="bench-rusage-", suffix=".txt") as rusage:
        full = [GNU_TIME, "-f", "%e %U %S %M", "-o", rusage.name, *argv] if timed else argv
        t = time.perf_counter()
        proc = subprocess.Popen(full, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        out = proc.stdout.read()
        proc.stderr.read()
        _, status, ru = os.wait4(proc.pid, 0)
        dt = time.perf_counter() - t
        proc.returncode = os.waitstatus_to_exitcode(status)
        cpu, peak = ru.ru_utime + ru.ru_stime, ru.ru_maxrss * 1024
        if timed:
            fields = rusage.read().split()[-4:]  # "Command exited with non-zero status N" may come first
            if len(fields) == 4:
                cpu, peak = float(fields[1]) + float(fields[2]), int(fields[3]) * 1024
    return dt, cpu, peak, out, proc.returncode


#: GNU time: reports the tool's own rusage (see :func:`run_child`).
GNU_TIME = "/usr/bin/time"


def measure_all(tools: list[tuple], reps: int) -> list[dict]:
    """Run every tool ``reps`` times, interleaved (one run of each tool per round), so a change of
    machine load during the benchmark hits all rows alike. ``tools``: ``(name, argv, check,
    inner_time)``. Returns one row per tool: ``name``, ``times``/``cpu`` (s), ``rss`` (bytes)."""
    rows = [{"name": name, "times": [], "cpu": [], "rss": 0} for name, *_ in tools]
    for _ in range(reps):
        for row, (_, argv, check, inner_time) in zip(rows, tools):
            wall, cpu, peak, out, code = run_child(argv)
            check(out, code)
            if inner_time:
                inner = json.loads(out)
                wall, cpu = inner["seconds"], inner["cpu"]
            row["times"].append(wall)
            row["cpu"].append(cpu)
            row["rss"] = max(row["rss"], peak)
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("payload", nargs="?", type=Path, default=HERE / "out" / "bench-250.payload.json")
    ap.add_argument("descriptor", nargs="?", type=Path, default=HERE / "out" / "bench-250.descriptor.json")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--profile", action="store_true", help="cProfile one in-process verify")
    ap.add_argument("--py-spy", action="store_true", help="sample one in-process verify with py-spy (if installed)")
    ap.add_argument("--top", type=int, default=10)
    ap.add_argument("--skip", default="", help="comma-separated rows to skip: oracle,cli,inproc")
    args = ap.parse_args(argv)
    if not args.payload.exists() or not args.descriptor.exists():
        print(f"missing {args.payload} / {args.descriptor}: run benchmarks/gen_checkpoint.py first", file=sys.stderr)
        return 2
    size = args.payload.stat().st_size
    skip = set(filter(None, args.skip.split(",")))
    P, D = str(args.payload), str(args.descriptor)
    print(f"payload {P}: {size} bytes ({size / MIB:.1f} MiB); {args.reps} repetitions, median shown")

    def ok_exit(out, code):
        if code != 0:
            raise SystemExit(f"tool failed (exit {code}): {out[:500]!r}")

    def ok_verified(out, code):
        ok_exit(out, code)
        v = json.loads(out)
        if not (v.get("ok") or v.get("verified")) or v.get("internal_errors"):
            raise SystemExit(f"not verified: {out[:500]!r}")

    tools = [("sha256sum", ["sha256sum", P], ok_exit, False)]
    oracle = os.environ.get("ORACLE2", "/tmp/reference/target/release/oracle2")
    if "oracle" not in skip and os.access(oracle, os.X_OK):
        tools.append(("oracle2 verify (Rust reference)", [oracle, "verify", P, D], ok_verified, False))
    if "cli" not in skip:
        tools.append(("checkpoint-inspector verify --format json", [str(CLI), "verify", P, D, "--format", "json"],
                      ok_exit, False))
    if "inproc" not in skip:
        tools.append(("verify() in-process (call only)", [str(PY), "-c", INPROC, P, D], ok_verified, True))
    load_start = os.getloadavg()
    rows = measure_all(tools, args.reps)
    base = statistics.median(rows[0]["times"])
    base_cpu = statistics.median(rows[0]["cpu"])
    ref = next((r for r in rows if r["name"].startswith("oracle2")), None)
    ref_t = statistics.median(ref["times"]) if ref else None
    head = (f"{'tool':42} {'wall s':>7} {'min-max s':>12} {'x sha256':>8} {'x rust':>6} {'CPU s':>6} "
            f"{'CPU x sha':>9} {'peak RSS MiB':>12} {'x payload':>9}")
    print(head)
    print("-" * len(head))
    for r in rows:
        med, cpu = statistics.median(r["times"]), statistics.median(r["cpu"])
        rust = f"{med / ref_t:6.2f}" if ref_t else f"{'-':>6}"
        print(f"{r['name']:42} {med:7.2f} {min(r['times']):5.2f}-{max(r['times']):<6.2f} {med / base:8.2f} {rust} "
              f"{cpu:6.2f} {cpu / base_cpu:9.2f} {r['rss'] / MIB:12.0f} {r['rss'] / size:9.2f}")
    print("(the in-process row times only the verify() call; its RSS is the whole child, payload bytes included)")
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in load_start)}, at the end: "
          f"{' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    if args.profile:
        print(f"\ncProfile of one in-process verify (top {args.top}):")
        sys.stdout.flush()
        subprocess.run([str(PY), "-c", PROFILE, P, D, str(args.top)], check=True)
    if args.py_spy:
        py_spy_profile(P, D, args.top)
    return 0


def py_spy_profile(payload: str, descriptor: str, top: int) -> None:
    """Sample one in-process verify at 200 Hz with py-spy; print top self and inclusive lines."""
    import collections
    import shutil
    import tempfile

    spy = shutil.which("py-spy") or str(ROOT / ".venv" / "bin" / "py-spy")
    if not os.access(spy, os.X_OK):
        print("py-spy not installed (.venv/bin/pip install py-spy)")
        return
    with tempfile.TemporaryDirectory() as tmp:
        raw = Path(tmp) / "raw.txt"
        subprocess.run([spy, "record", "-r", "200", "-f", "raw", "-o", str(raw), "--", str(PY), "-c", INPROC,
                        payload, descriptor], check=True, capture_output=True)
        own, incl, total = collections.Counter(), collections.Counter(), 0
        for line in raw.read_text().splitlines():
            stack, _, n = line.rpartition(" ")
            frames = stack.split(";")
            total += int(n)
            own[frames[-1]] += int(n)
            for f in set(frames):
                incl[f] += int(n)
    print(f"\npy-spy, one in-process verify, {total} samples at 200 Hz")
    print("top by own time (the line executing):")
    for f, n in own.most_common(top):
        print(f"  {100 * n / total:5.1f}%  {f}")
    print("top inclusive (line on the stack):")
    for f, n in incl.most_common(top + 4):
        print(f"  {100 * n / total:5.1f}%  {f}")


if __name__ == "__main__":
    sys.exit(main())
