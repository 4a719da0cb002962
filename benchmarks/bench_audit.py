#!/usr/bin/env python3
"""The fleet audit's speed, side by side in one run (FORMAT.md 4.18 sessions included in every audit):

    .venv/bin/python benchmarks/bench_audit.py [--pairs 2000] [--kib 200] [--out benchmarks/out/audit]

1. writes ``--pairs`` checkpoint pairs of about ``--kib`` KiB each (``gen_checkpoint.build`` with one seed per
   pair: every pair a different session, descriptor by ``build_descriptor``) into ``OUT/store`` (kept: a second
   run reuses it);
2. times the engine alone on every pair, in this process (``inspector.checkpoint.verify``: the work itself);
3. times ``checkpoint-inspector audit`` of the folder with a local cluster of 1 and of 2 workers (the command as a
   user runs it, a new process each), sampling the RSS of every worker process (peak per worker);
4. times ``checkpoint-inspector scan`` of the same folder;
5. times a loop of the Rust reference, ``oracle2 verify PAYLOAD DESCRIPTOR``, one process per pair, when it is
   built (``$ORACLE2``, default ``/tmp/reference/target/release/oracle2``; see README "Tests").

Prints the figures, the per-file overhead of the audit over the engine's own work, and what 10 million such
checkpoints would take on N workers at the measured rate per worker.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

CLI = [sys.executable, "-m", "inspector"]


def generate(store: Path, pairs: int, kib: float) -> tuple[int, int]:
    """``(pairs, payload bytes in all)`` in ``store`` (made when it does not hold ``pairs`` pairs yet)."""
    import gen_checkpoint as gen

    from inspector.checkpoint import build_descriptor, decode, encode

    have = sorted(store.glob("*.payload.json")) if store.exists() else []
    if len(have) == pairs:
        return pairs, sum(p.stat().st_size for p in have)
    store.mkdir(parents=True, exist_ok=True)
    for p in store.iterdir():
        p.unlink()
    total = 0
    target = int(kib * 1024 * 0.6)  # (the generator's budgets overshoot about 1.65x at this size)
    t = time.perf_counter()
    for i in range(pairs):
        data = encode(gen.build(target, 1000 + i))
        (store / f"s{i:06d}.payload.json").write_bytes(data)
        (store / f"s{i:06d}.descriptor.json").write_bytes(encode(build_descriptor(decode(data), data)))
        total += len(data)
    print(f"generated {pairs} pairs, {total / pairs / 1024:.0f} KiB payloads on average, "
          f"in {time.perf_counter() - t:.0f} s", flush=True)
    return pairs, total


def engine_alone(store: Path) -> float:
    """Seconds the engine takes to verify every pair in this process (reads included)."""
    from inspector import checkpoint

    out: list = []

    def run():
        t = time.perf_counter()
        for p in sorted(store.glob("*.payload.json")):
            d = p.with_name(p.name.replace(".payload.json", ".descriptor.json"))
            r = checkpoint.verify(p.read_bytes(), d.read_bytes())
            assert r.verified, p
        out.append(time.perf_counter() - t)

    th = threading.Thread(target=run)  # (the engine never runs on a main thread)
    th.start()
    th.join()
    return out[0]


def timed(cmd: list[str], sample: bool = False) -> tuple[float, int, dict]:
    """``(seconds, exit code, peak RSS in bytes per descendant process)`` of a command."""
    import psutil

    t = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
    peaks: dict[int, int] = {}
    me = psutil.Process(proc.pid)
    while proc.poll() is None:
        if sample:
            try:
                for c in [me] + me.children(recursive=True):
                    try:
                        peaks[c.pid] = max(peaks.get(c.pid, 0), c.memory_info().rss)
                    except psutil.Error:
                        pass
            except psutil.Error:
                pass
        time.sleep(0.05)
    seconds = time.perf_counter() - t
    err = proc.stderr.read().decode(errors="replace")
    if proc.returncode not in (0, 1):
        print(err, file=sys.stderr)
    peaks["client"] = peaks.pop(proc.pid, 0)
    return seconds, proc.returncode, peaks


def audit(store: Path, out: Path, workers: int, batch: int) -> dict:
    res = out / f"audit-{workers}w.jsonl"
    summ = out / f"audit-{workers}w.summary.json"
    for f in (res, summ):
        f.unlink(missing_ok=True)
    seconds, code, peaks = timed(CLI + ["audit", str(store), "--out", str(res), "--summary", str(summ),
                                        "--workers", str(workers), "--batch", str(batch)], sample=True)
    s = json.loads(summ.read_text())
    assert code == 0 and s["verified"] == s["checkpoints"], (code, s)
    # the worker processes are the large descendants (the nanny and the resource tracker are small)
    client = peaks.pop("client")
    workers_rss = sorted(peaks.values(), reverse=True)[:workers]
    return {"seconds": seconds, "peak_client_rss": client, "inner_seconds": s["seconds"] - s["startup_seconds"], "checkpoints": s["checkpoints"],
            "peak_worker_rss": workers_rss}


def oracle_loop(store: Path) -> float | None:
    oracle = os.environ.get("ORACLE2", "/tmp/reference/target/release/oracle2")
    if not os.access(oracle, os.X_OK):
        return None
    t = time.perf_counter()
    for p in sorted(store.glob("*.payload.json")):
        d = p.with_name(p.name.replace(".payload.json", ".descriptor.json"))
        r = subprocess.run([oracle, "verify", str(p), str(d)], capture_output=True)
        assert r.returncode == 0, (p, r.stdout, r.stderr)
    return time.perf_counter() - t


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pairs", type=int, default=2000)
    ap.add_argument("--kib", type=float, default=200)
    ap.add_argument("--batch", type=int, default=200)
    ap.add_argument("--out", type=Path, default=HERE / "out" / "audit")
    ap.add_argument("--only-audit", action="store_true",
                    help="time the audit only (no engine, scan or reference loop): for the client's memory at scale")
    args = ap.parse_args(argv)
    store = args.out / "store"
    n, total = generate(store, args.pairs, args.kib)
    print(f"cores: {os.cpu_count()}; {n} pairs, payloads {total / n / 1024:.0f} KiB on average", flush=True)
    if args.only_audit:
        for w in (2,):
            r = audit(store, args.out, w, args.batch)
            print(f"audit, {w} worker(s): {r['seconds']:.2f} s wall; client (the command) peak RSS "
                  f"{r['peak_client_rss'] / 2**20:.0f} MiB; per worker "
                  + ", ".join(f"{x / 2**20:.0f} MiB" for x in r["peak_worker_rss"]), flush=True)
        return 0
    engine = engine_alone(store)
    print(f"engine alone (one process, reads included): {engine:.2f} s = {1000 * engine / n:.2f} ms/pair", flush=True)
    runs = {}
    for w in (1, 2):
        runs[w] = audit(store, args.out, w, args.batch)
        r = runs[w]
        print(f"audit, {w} worker(s): {r['seconds']:.2f} s wall ({r['inner_seconds']:.2f} s once the cluster answered), "
              f"{n / r['seconds']:.1f} pairs/s; peak RSS per worker "
              + ", ".join(f"{x / 2**20:.0f} MiB" for x in r["peak_worker_rss"])
              + f"; client (the command) {r['peak_client_rss'] / 2**20:.0f} MiB", flush=True)
    scan_s, code, _ = timed(CLI + ["scan", str(store), "--format", "json"])
    print(f"scan (one process): {scan_s:.2f} s (exit {code})", flush=True)
    oracle = oracle_loop(store)
    if oracle is None:
        print("oracle2 verify loop: not run (oracle2 not built here; set ORACLE2)")
    else:
        print(f"oracle2 verify loop (one process per pair): {oracle:.2f} s = {1000 * oracle / n:.1f} ms/pair")
    one, two = runs[1], runs[2]
    per_file_1 = one["inner_seconds"] / n
    overhead = per_file_1 - engine / n
    print(f"speed-up 2 workers / 1: {one['seconds'] / two['seconds']:.2f}x wall, "
          f"{one['inner_seconds'] / two['inner_seconds']:.2f}x after start-up")
    print(f"per-file cost in the audit (1 worker, after start-up): {1000 * per_file_1:.2f} ms; over the engine's "
          f"own {1000 * engine / n:.2f} ms: {1000 * overhead:+.2f} ms")
    rate = n / one["inner_seconds"]  # per worker
    for workers in (2, 16, 64, 256):
        hours = 10_000_000 / (rate * workers) / 3600
        print(f"10 million such checkpoints on {workers} workers at {rate:.0f} pairs/s per worker: {hours:.1f} h")
    return 0


if __name__ == "__main__":
    sys.exit(main())
