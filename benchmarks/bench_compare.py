#!/usr/bin/env python3
"""Time and peak memory of comparing two large payloads, against verifying both.

    .venv/bin/python benchmarks/bench_compare.py PAYLOAD DESCRIPTOR [--work /tmp/cmpbench] [--reps 3]

PAYLOAD/DESCRIPTOR: a pair from ``benchmarks/gen_checkpoint.py`` (e.g. ``--mib 100 --out /tmp/cmpbench``).
The script writes a second payload B next to it (``WORK/later.payload.json`` and its descriptor): the
same session three tool rounds later (6 messages in the session and in the loop checkpoint, 6 events
on the loop checkpoint's source run, the run's counters, the loop checkpoint's ``turn``), re-encoded
canonically. Each row is one child process (peak RSS from ``os.wait4``, the child's own ``ru_maxrss``):

* ``verify A + verify B``: one Python reads A's pair, verifies it, drops it, then the same for B
  (what verifying both costs in one process);
* ``compare_documents(A, B)``: one Python reads both payloads and compares them (the engine call);
* ``checkpoint-inspector diff A B``: the CLI end to end (interpreter start, reads, compare, text).

Rows are the median of ``--reps`` runs. Target (issue 10): within 2x of verifying both.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PY = ROOT / ".venv" / "bin" / "python"
CLI = ROOT / ".venv" / "bin" / "checkpoint-inspector"
MIB = 1 << 20

VERIFY_BOTH = r"""
import gc, json, sys, time
from inspector.checkpoint import verify
t = time.perf_counter()
ok = []
for p, d in ((sys.argv[1], sys.argv[2]), (sys.argv[3], sys.argv[4])):
    payload, descriptor = open(p, "rb").read(), open(d, "rb").read()
    ok.append(verify(payload, descriptor).verified)
    del payload, descriptor
    gc.collect()
print(json.dumps({"seconds": time.perf_counter() - t, "ok": ok}))
"""

COMPARE = r"""
import json, sys, time
from inspector.checkpoint.analysis.compare import compare_documents
t = time.perf_counter()
a, b = open(sys.argv[1], "rb").read(), open(sys.argv[3], "rb").read()
c = compare_documents(a, b)
print(json.dumps({"seconds": time.perf_counter() - t, "summary": c.summary(), "changes": len(c.changes)}))
"""

LATER = r"""
import sys
import orjson
from inspector.checkpoint import encode
p = orjson.loads(open(sys.argv[1], "rb").read())
snap, lr = p["snapshot"], p["logical_resume"]
run = next(r for r in snap["run_records"] if r["snapshot"]["id"] == lr["run_id"])
for k in range(3):
    call = f"bench-call-{k}"
    use = {"role": "assistant", "content": [{"type": "tool_use", "id": call, "name": "read", "input": {"path": f"f{k}"}}]}
    res = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call, "content": "ok", "is_error": False}]}
    for msgs in (snap["session"]["messages"], lr["messages"]):
        msgs += [use, res]
    seq = max((e["sequence"] for e in run["events"]), default=-1) + 1
    run["events"] += [{"sequence": seq, "timestamp_ms": 1, "event": {"type": "tool_start", "id": call, "name": "read"}},
                      {"sequence": seq + 1, "timestamp_ms": 2, "event": {"type": "tool_end", "id": call, "name": "read",
                                                                         "output": "ok", "exit_code": 0}}]
    run["snapshot"]["event_count"] = seq + 2
    lr["turn"] += 1
open(sys.argv[2], "wb").write(encode(p))
"""


def child(argv: list[str]) -> dict:
    t = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=ROOT)
    out = proc.stdout.read()
    _, status, ru = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    row = {"wall": wall, "rss_mib": ru.ru_maxrss / 1024, "exit": os.waitstatus_to_exitcode(status)}
    try:
        row.update(json.loads(out.splitlines()[0]))
    except (ValueError, IndexError):
        row["head"] = out[:200].decode("utf-8", "replace")
    return row


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("payload", type=Path)
    ap.add_argument("descriptor", type=Path)
    ap.add_argument("--work", type=Path, default=Path("/tmp/cmpbench"))
    ap.add_argument("--reps", type=int, default=3)
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    b = args.work / "later.payload.json"
    bd = args.work / "later.descriptor.json"
    if not b.exists():
        subprocess.run([str(PY), "-c", LATER, str(args.payload), str(b)], check=True)
        with open(bd, "wb") as fh:
            subprocess.run([str(CLI), "describe", str(b)], stdout=fh, check=True)
    a_size, b_size = args.payload.stat().st_size, b.stat().st_size
    print(f"A: {a_size} bytes ({a_size / MIB:.1f} MiB); B: {b_size} bytes ({b_size / MIB:.1f} MiB)")
    files = [str(args.payload), str(args.descriptor), str(b), str(bd)]
    rows = {
        "verify A + verify B (one process)": [str(PY), "-c", VERIFY_BOTH, *files],
        "compare_documents(A, B)": [str(PY), "-c", COMPARE, *files],
        "checkpoint-inspector diff A B": [str(CLI), "diff", files[0], files[2]],
    }
    results = {}
    for name, argv in rows.items():
        runs = [child(argv) for _ in range(args.reps)]
        results[name] = runs
        wall = statistics.median(r["wall"] for r in runs)
        rss = statistics.median(r["rss_mib"] for r in runs)
        extra = runs[0].get("summary") or runs[0].get("ok") or runs[0].get("head", "")[:80]
        print(f"| {name} | {wall:.2f} ({min(r['wall'] for r in runs):.2f}-{max(r['wall'] for r in runs):.2f}) "
              f"| {rss:.0f} | {extra} |", flush=True)
    base_w = statistics.median(r["wall"] for r in results["verify A + verify B (one process)"])
    base_m = statistics.median(r["rss_mib"] for r in results["verify A + verify B (one process)"])
    for name in list(rows)[1:]:
        w = statistics.median(r["wall"] for r in results[name])
        m = statistics.median(r["rss_mib"] for r in results[name])
        print(f"{name}: {w / base_w:.2f}x the time, {m / base_m:.2f}x the peak RSS of verifying both")
    return 0


if __name__ == "__main__":
    sys.exit(main())
