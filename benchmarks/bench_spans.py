#!/usr/bin/env python3
"""What the rules' locations cost in ``verify``: the same pair verified with and without byte spans.

    .venv/bin/python benchmarks/bench_spans.py PAYLOAD DESCRIPTOR [--runs N]

Prints the median in-process ``checkpoint.verify`` time (milliseconds) with the locations' spans
(``Context.span``, ``Context.item_spans``: the lint's findings and the timeline's events) and with both
answering ``None``, and the share the spans take. Inputs from ``gen_checkpoint.py --mib N --no-check``.
"""

from __future__ import annotations

import argparse
import statistics
import time

from inspector import checkpoint
from inspector.checkpoint.rules import context


def _median_ms(payload: bytes, descriptor: bytes, runs: int) -> float:
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        checkpoint.verify(payload, descriptor)
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("payload")
    ap.add_argument("descriptor")
    ap.add_argument("--runs", type=int, default=40)
    a = ap.parse_args()
    payload, descriptor = open(a.payload, "rb").read(), open(a.descriptor, "rb").read()
    _median_ms(payload, descriptor, 3)  # warm
    with_spans = _median_ms(payload, descriptor, a.runs)
    context.Context.span = lambda self, source, pointer: None
    context.Context.item_spans = lambda self, pointer, items: None
    without = _median_ms(payload, descriptor, a.runs)
    print(f"{len(payload)} bytes: verify {with_spans:.1f} ms, without spans {without:.1f} ms: "
          f"spans {100 * (with_spans - without) / with_spans:.0f}%")


if __name__ == "__main__":
    main()
