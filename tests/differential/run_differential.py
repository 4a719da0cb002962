#!/usr/bin/env python3
"""Differential run against the Rust reference (``oracle2``): documents and artifacts.

Usage::

    .venv/bin/python tests/differential/run_differential.py --cases 100000 --artifacts 5000 \\
        --exports 500 --seed 1 [--out DIR]

* ``--cases N`` random JSON documents through ``oracle2 batch`` and ``canonicalize``: the
  accept/reject verdict and canonical bytes must match; for rejections the error text
  (message, line, column) is compared and the agreement counted.
* ``--artifacts N`` mutated payload/descriptor pairs (from the goldens and the 54 shared cases)
  through ``oracle2 verify`` and ``verify``: ``ok``, ``rule``, ``code`` and ``message`` must match.
* ``--exports N`` semantic edits of valid payloads exported by ``oracle2 export``: the fresh pair
  must verify, and our re-encoding and rebuilt descriptor must equal the reference's bytes.
* ``--rich N --rich-mutations M`` rich sessions (``richgen``: all 51 run-event kinds, transform
  bindings + evidence, cognitive/capability/durable-memory bindings, policy objects, f32 fields)
  exported by ``oracle2 export``, each followed by M targeted mutations (``richmut``: catalogs C, D,
  S, R, T and typed-layout hazards). Prints events per kind, bindings per kind, pairs per mutation
  target with the reference's root-cause rules, and every mismatch grouped by target and rules.
  ``--seeds A-B`` repeats the rich run for each seed in the range (``--minutes`` stops early).

Prints counts, every mismatch (grouped by known-issue id; at most ``--show`` each), and with
``--out`` writes each mismatching input to that directory. Exit status 1 when an unknown
mismatch was found. The oracle path comes from ``$ORACLE2`` (default
/tmp/reference/target/release/oracle2).
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import diffkit as dk  # noqa: E402
import richrun  # noqa: E402

sys.stdout.reconfigure(line_buffering=True)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", type=int, default=10000, help="random JSON documents (default 10000)")
    ap.add_argument("--artifacts", type=int, default=1000, help="mutated artifact pairs (default 1000)")
    ap.add_argument("--exports", type=int, default=100, help="export-path round trips (default 100)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--rich", type=int, default=0, help="rich sessions per seed (default 0)")
    ap.add_argument("--rich-mutations", type=int, default=50, help="targeted mutations per rich session")
    ap.add_argument("--seeds", help="rich run seeds as A-B (inclusive); default: --seed only")
    ap.add_argument("--minutes", type=float, default=0, help="stop the rich seeds after this long (0: no limit)")
    ap.add_argument("--show", type=int, default=5, help="mismatches to print per group")
    ap.add_argument("--out", type=Path, help="write mismatching inputs here")
    args = ap.parse_args(argv)
    path = dk.oracle_path()
    if path is None:
        print("oracle2 not found (set ORACLE2)", file=sys.stderr)
        return 2
    oracle = dk.Oracle(path)
    unknown = 0
    if args.out:
        args.out.mkdir(parents=True, exist_ok=True)

    if args.cases:
        t = time.perf_counter()
        docs = dk.gen_documents(args.cases, args.seed)
        r = dk.compare_documents(oracle, docs)
        dt = time.perf_counter() - t
        print(f"documents: {r.total} ({r.accepted} accepted, {r.rejected} rejected by the reference) in {dt:.1f} s")
        print(f"  verdict mismatches: {len(r.verdict_mismatch)}; canonical-bytes mismatches: {len(r.bytes_mismatch)};"
              f" engine crashes: {len(r.engine_crash)}")
        print(f"  rejection error text (message + line + column) agrees: {r.error_text_agree}/{r.rejected}")
        for title, rows in (("verdict", r.verdict_mismatch), ("bytes", r.bytes_mismatch),
                            ("error text", r.error_text_mismatch), ("crash", r.engine_crash)):
            for i, row in enumerate(rows[: args.show]):
                print(f"  [{title}] input={dk.show(row[0])}\n      ours={row[1]!r}\n      reference={row[2]!r}")
            if args.out:
                for i, row in enumerate(rows):
                    (args.out / f"doc-{title.replace(' ', '-')}-{i}.json").write_bytes(row[0])
        unknown += r.mismatches + len(r.error_text_mismatch)

    if args.artifacts or args.exports:
        t = time.perf_counter()
        res = dk.run_artifacts(oracle, args.artifacts, args.seed, exports=args.exports, progress=lambda r: print(
            f"  ... {r.total} pairs, {len(r.mismatches)} mismatches", file=sys.stderr, flush=True))
        dt = time.perf_counter() - t
        print(f"artifacts: {res.total} pairs compared ({args.artifacts} mutated, {res.exports} exports of which "
              f"{res.export_ok} accepted by the export path) in {dt:.1f} s; reference accepted {res.accepted}")
        print("  reference root causes: " + ", ".join(
            f"{k or 'ok'}={v}" for k, v in sorted(res.by_rule.items(), key=lambda kv: (-kv[1], str(kv[0])))))
        groups = collections.defaultdict(list)
        for m in res.mismatches:
            groups[dk.known_issue(m["ours"], m["reference"]) or "UNKNOWN"].append(m)
        print(f"  verdict mismatches: {len(res.mismatches)} "
              + (str({k: len(v) for k, v in sorted(groups.items())}) if groups else ""))
        for gid, rows in sorted(groups.items()):
            for m in rows[: args.show]:
                print(f"  [{gid}] {m['label']}\n      ours={m['ours']}\n      reference={m['reference']}")
        if args.out:
            for i, m in enumerate(res.mismatches):
                stem = args.out / f"artifact-{i}"
                stem.with_suffix(".payload.json").write_bytes(m["payload"])
                stem.with_suffix(".descriptor.json").write_bytes(m["descriptor"])
                stem.with_suffix(".verdicts.json").write_text(json.dumps(
                    {k: m[k] for k in ("label", "ours", "reference")}, ensure_ascii=False, indent=1))
        print(f"  export round-trip problems: {len(res.export_mismatches)}")
        for m in res.export_mismatches[: args.show]:
            print(f"  [export] {m['label']}: {m['problems']}")
        unknown += len(groups.get("UNKNOWN", [])) + len(res.export_mismatches)
    if args.rich:
        unknown += _rich(oracle, args)
    return 1 if unknown else 0


def _rich(oracle, args) -> int:
    if args.seeds:
        a, b = (int(x) for x in args.seeds.split("-"))
        seeds = range(a, b + 1)
    else:
        seeds = [args.seed]
    total = richrun.RichResult()
    t0 = time.perf_counter()
    for seed in seeds:
        t = time.perf_counter()
        res = richrun.run_rich(oracle, args.rich, args.rich_mutations, seed)
        print(f"rich seed {seed}: {res.pairs} pairs, {len(res.mismatches)} mismatches, "
              f"{len(res.export_refused)} export refusals in {time.perf_counter() - t:.1f} s", file=sys.stderr)
        richrun.merge(total, res)
        if args.minutes and time.perf_counter() - t0 > args.minutes * 60:
            print(f"rich: stopping after seed {seed} (--minutes {args.minutes:g})", file=sys.stderr)
            break
    print(f"rich run: seeds {seeds[0]}..{seed}, {time.perf_counter() - t0:.1f} s")
    print("\n".join(richrun.report(total, args.show)))
    if args.out:
        richrun.write_mismatches(total, args.out)
    odd = [r for r in total.export_refused if r["reference"].get("rule") != "P-CANONICAL"]
    return len(total.mismatches) + len(odd) + len(total.export_mismatches)


if __name__ == "__main__":
    sys.exit(main())
