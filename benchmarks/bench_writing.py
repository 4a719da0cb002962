"""What writing a new file whole costs (inspector/session/writing.py): ``write_new_file`` (O_EXCL, every
short write followed by another, fsync, checked close) against a plain ``open(path, "xb").write`` of the
same bytes, for a size like the largest redacted payload (``--mib``, default 250). Wall time per write.

    .venv/bin/python benchmarks/bench_writing.py [--mib 250] [--reps 5] [--dir benchmarks/out]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from inspector.session.writing import write_new_file  # noqa: E402


def plain(path: str, data: bytes) -> None:
    with open(path, "xb") as fh:
        fh.write(data)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mib", type=int, default=250)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--dir", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "out"))
    args = ap.parse_args()
    os.makedirs(args.dir, exist_ok=True)
    data = os.urandom(1 << 20) * args.mib
    target = os.path.join(args.dir, "bench-writing.json")
    for name, fn in (("open('xb').write (before)", plain), ("write_new_file (fsync, checked close)", write_new_file)):
        times = []
        for _ in range(args.reps):
            if os.path.exists(target):
                os.remove(target)
            t0 = time.perf_counter()
            fn(target, data)
            times.append(time.perf_counter() - t0)
            os.remove(target)
        print(f"{name:40} {args.mib} MiB: median {statistics.median(times):.2f} s "
              f"(min {min(times):.2f}, max {max(times):.2f}, {args.reps} reps)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
