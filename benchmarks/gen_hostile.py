#!/usr/bin/env python3
"""Inputs that break other viewers (issue 25), for ``bench_gui_stalls.py --open``:

    .venv/bin/python benchmarks/gen_hostile.py [--out benchmarks/out] [--events 1000000] [--chars 42000000] \\
        [--depth 1000000]

* ``events-<n>.payload.json`` + descriptor: the pinned rich checkpoint (cases-pinned/001) whose other run holds
  ``n`` events (the four smallest events of the file repeated with fresh sequence numbers), descriptor made for it;
* ``message-<n>.payload.json`` + descriptor: the golden checkpoint whose first message is one ``n``-character text;
* ``deep-<n>.payload.json``: the golden payload with an unknown key in its session whose value nests ``n`` arrays
  deep (serde skips it unvalidated: P-CANONICAL, as the reference says), no descriptor.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import orjson

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from inspector.checkpoint import build_descriptor, decode, encode  # noqa: E402

FIX = ROOT / "tests" / "data" / "fixtures"


def _pair(out: Path, name: str, value: dict) -> None:
    payload = encode(value)
    (out / f"{name}.payload.json").write_bytes(payload)
    (out / f"{name}.descriptor.json").write_bytes(encode(build_descriptor(decode(payload), payload)))


def many_events(out: Path, n: int) -> None:
    v = orjson.loads((FIX / "cases-pinned" / "001-valid-rich-resume.payload.json").read_bytes())
    rec = next(r for r in v["snapshot"]["run_records"] if r["snapshot"]["id"] != v["logical_resume"]["run_id"])
    # the smallest of its kinds, so that a million of them stay under the ceiling (about 150 bytes each)
    pool = [e for r in v["snapshot"]["run_records"] for e in r["events"]]
    base = sorted(pool, key=lambda e: len(orjson.dumps(e)))[:4]
    events = []
    for i in range(n):
        e = dict(base[i % len(base)])
        e["sequence"] = i + 1
        events.append(e)
    rec["events"] = events
    rec["snapshot"]["event_count"] = n
    _pair(out, f"events-{n}", v)


def long_message(out: Path, n: int) -> None:
    v = orjson.loads((FIX / "golden" / "payload-with-resume.json").read_bytes())
    text = ("A long tool output line, repeated; " * (n // 35 + 1))[:n]
    v["snapshot"]["session"]["messages"][0]["content"][0]["text"] = text
    _pair(out, f"message-{n}", v)


def deep_unknown(out: Path, depth: int) -> None:
    data = (FIX / "golden" / "payload-with-resume.json").read_bytes()
    nested = b"[" * depth + b"]" * depth
    at = data.index(b'"context_usage":')  # inside SessionSnapshot's session: no deny_unknown_fields there
    (out / f"deep-{depth}.payload.json").write_bytes(data[:at] + b'"a_unknown":' + nested + b"," + data[at:])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", type=Path, default=HERE / "out")
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--chars", type=int, default=42_000_000)
    ap.add_argument("--depth", type=int, default=1_000_000)
    a = ap.parse_args(argv)
    a.out.mkdir(parents=True, exist_ok=True)
    many_events(a.out, a.events)
    long_message(a.out, a.chars)
    deep_unknown(a.out, a.depth)
    for p in sorted(a.out.glob("*")):
        if p.name.startswith(("events-", "message-", "deep-")):
            print(f"{p.name}: {p.stat().st_size:,} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
