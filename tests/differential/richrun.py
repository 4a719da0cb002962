"""Differential run over rich sessions: :mod:`richgen` values exported by ``oracle2 export``, then
targeted :mod:`richmut` mutations compared between ``oracle2 verify`` and the engine's ``verify``.

For each seeded session the reference's export should accept the value; it refuses (P-CANONICAL)
only when a double in a field no validator bounds (``wide_floats``) does not survive serde_json's
own float reading, and those bytes are compared too (target ``export-refused``). The fresh pair must verify here with our canonical re-encoding and rebuilt
descriptor byte-identical to the reference's. Then each mutation is re-pointed at its new bytes
(component sizes, digests and evidence digests, outer size/digest, descriptor digest: the same
"descriptor re-pointed" step as ``cases-pinned``) so the verdict is about the payload edit, and both
verdicts (``ok``, ``rule``, ``code``, full ``message``) must be identical.

Counts: run events per wire ``type`` and bindings per kind in the exported sessions, mutations per
target, the reference's root-cause rules per target, and mismatches per target.
"""

from __future__ import annotations

import collections
import json
import random
from dataclasses import dataclass, field
from pathlib import Path

import orjson

import diffkit as dk
import richgen as rg
import richmut as rm


#: Durable-memory bindings in turn: (schema version, mode), random mode, or none.
#: Shares of mutations that get a second edit (target ``stack``) or are respelled (``richmut.respell``).
STACK_RATE, RESPELL_RATE = 0.2, 0.2

DURABLE_CYCLE = (5, (4, "active_recall"), (4, "shadow_candidates"), 3, (2, "shadow_candidates"),
                 (1, "shadow_candidates"), (1, "active_recall"), None)


@dataclass
class RichResult:
    sessions: int = 0
    exported: int = 0
    export_refused: list = field(default_factory=list)
    export_mismatches: list = field(default_factory=list)
    event_kinds: collections.Counter = field(default_factory=collections.Counter)
    bindings: collections.Counter = field(default_factory=collections.Counter)
    pairs: int = 0
    accepted: int = 0
    by_rule: collections.Counter = field(default_factory=collections.Counter)
    by_target: collections.Counter = field(default_factory=collections.Counter)
    target_rules: dict = field(default_factory=lambda: collections.defaultdict(collections.Counter))
    mismatches: list = field(default_factory=list)
    spellings: collections.Counter = field(default_factory=collections.Counter)

    def mismatch_targets(self) -> collections.Counter:
        return collections.Counter(m["target"] for m in self.mismatches)


def run_rich(oracle: dk.Oracle, sessions: int, mutations: int, seed: int, workdir: Path | None = None,
             progress=None) -> RichResult:
    """``sessions`` rich sessions from ``seed``, each exported and compared, then ``mutations``
    targeted mutations of each compared. Returns the counts and every mismatch."""
    rng = random.Random(seed)
    res = RichResult()
    runner = dk.ArtifactRunner(oracle, workdir)
    scratch = dk.ArtifactResult()
    try:
        for i in range(sessions):
            # Durable-memory versions and modes in turn (DURABLE_CYCLE) so short runs cover each.
            value = rg.RichGen(random.Random(rng.getrandbits(64)), wide_floats=True).payload(
                extra_events=rng.choice([0, 10, 40]), durable_version=DURABLE_CYCLE[i % len(DURABLE_CYCLE)])
            res.sessions += 1
            src = runner.dir / "rich-src.json"
            src.write_bytes(orjson.dumps(value))
            out = oracle.export(src, runner.dir)
            if isinstance(out, dict):
                # The reference refuses its own export when a double it printed does not read back
                # under serde_json's (not correctly rounded) float parser: P-CANONICAL. The bytes
                # still get compared, with a descriptor re-pointed at them.
                res.export_refused.append({"seed": seed, "index": i, "reference": out})
                payload = dk.encode(value)
                _compare(runner, scratch, res, payload, dk.rebind_full(payload, dk._GOLDEN_DESC),
                         f"rich:{seed}:{i}:export-refused", "export-refused")
                continue
            res.exported += 1
            content, desc = out
            exported = orjson.loads(content)
            res.event_kinds.update(rg.event_kinds(exported))
            res.bindings.update(rg.binding_kinds(exported))
            problems = dk.fresh_pair_problems(content, desc)
            if problems:
                res.export_mismatches.append({"label": f"rich:{seed}:{i}", "payload": content, "descriptor": desc,
                                              "problems": problems})
            _compare(runner, scratch, res, content, desc, f"rich:{seed}:{i}:valid", "valid")
            for j in range(mutations):
                p = orjson.loads(content)
                data, label, target = rm.mutate_rich(rng, p)
                if rng.random() < STACK_RATE:  # a second edit: which of two violations is reported first
                    try:
                        p = orjson.loads(data)
                    except orjson.JSONDecodeError:
                        p = None
                    try:  # the first edit may have broken the shape the second one needs
                        data2, label2, _ = rm.mutate_rich(rng, p) if isinstance(p, dict) else (None, None, None)
                    except (KeyError, TypeError, AttributeError, IndexError, ValueError):
                        data2 = None
                    if data2 is not None:
                        data, label, target = data2, f"{label}&{label2}", "stack"
                if rng.random() < RESPELL_RATE:  # independent of stacking
                    data, spelling = rm.respell(rng, data)
                    label += "+" + spelling
                    res.spellings[spelling] += 1
                mode = rng.choice(["full", "full", "full", "outer"])
                d2 = dk.rebind_full(data, desc) if mode == "full" else dk.rebind_outer(data, desc)
                _compare(runner, scratch, res, data, d2, f"rich:{seed}:{i}:{j}:{label}+{mode}", target)
            if progress:
                progress(res)
    finally:
        runner.close()
    return res


def _compare(runner, scratch, res: RichResult, payload: bytes, desc: bytes, label: str, target: str) -> None:
    before = len(scratch.mismatches)
    ref = runner.check(payload, desc, label, scratch)
    res.pairs += 1
    res.accepted += bool(ref["ok"])
    res.by_rule[ref["rule"]] += 1
    res.by_target[target] += 1
    res.target_rules[target][ref["rule"]] += 1
    if len(scratch.mismatches) > before:
        m = scratch.mismatches[-1]
        m["target"] = target
        res.mismatches.append(m)


def merge(total: RichResult, res: RichResult) -> None:
    """Add the counts and findings of ``res`` to ``total``."""
    for name in ("sessions", "exported", "pairs", "accepted"):
        setattr(total, name, getattr(total, name) + getattr(res, name))
    for name in ("export_refused", "export_mismatches", "mismatches"):
        getattr(total, name).extend(getattr(res, name))
    for name in ("event_kinds", "bindings", "by_rule", "by_target", "spellings"):
        getattr(total, name).update(getattr(res, name))
    for t, c in res.target_rules.items():
        total.target_rules[t].update(c)


def report(res: RichResult, show: int = 5) -> list[str]:
    """Human-readable summary lines of a rich run."""
    lines = [f"rich sessions: {res.sessions} generated, {res.exported} accepted by oracle2 export, "
             f"{len(res.export_refused)} refused; fresh-pair problems: {len(res.export_mismatches)}",
             f"  events per kind ({len(res.event_kinds)} of {len(rg.EVENT_KINDS)} kinds, "
             f"{sum(res.event_kinds.values())} events): "
             + ", ".join(f"{k}={res.event_kinds[k]}" for k in rg.EVENT_KINDS),
             "  bindings: " + ", ".join(f"{k}={v}" for k, v in sorted(res.bindings.items())),
             f"  pairs compared: {res.pairs} (reference accepted {res.accepted}); mismatches: {len(res.mismatches)}",
             "  respelled mutations: " + ", ".join(f"{k}={v}" for k, v in sorted(res.spellings.items())),
             "  reference root causes: " + ", ".join(f"{k or 'ok'}={v}" for k, v in res.by_rule.most_common())]
    mt = res.mismatch_targets()
    for t in sorted(res.by_target):
        rules = ", ".join(f"{k or 'ok'}={v}" for k, v in res.target_rules[t].most_common())
        lines.append(f"  target {t}: {res.by_target[t]} pairs, {mt.get(t, 0)} mismatches; reference: {rules}")
    for r in res.export_refused[:show]:
        lines.append(f"  [export refused] {r}")
    for m in res.export_mismatches[:show]:
        lines.append(f"  [fresh pair] {m['label']}: {m['problems']}")
    groups = collections.defaultdict(list)
    for m in res.mismatches:
        groups[(m["target"], m["reference"]["rule"], m["ours"]["rule"])].append(m)
    for (t, rr, orl), rows in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        lines.append(f"  [mismatch x{len(rows)}] target={t} reference={rr} ours={orl}")
        for m in rows[:show]:
            lines.append(f"      {m['label']}\n        ours={m['ours']}\n        reference={m['reference']}")
    return lines


def write_mismatches(res: RichResult, out: Path) -> None:
    """Each mismatching pair as ``rich-N.payload.json``/``.descriptor.json``/``.verdicts.json``."""
    out.mkdir(parents=True, exist_ok=True)
    for i, m in enumerate(res.mismatches):
        stem = out / f"rich-{i}"
        stem.with_suffix(".payload.json").write_bytes(m["payload"])
        stem.with_suffix(".descriptor.json").write_bytes(m["descriptor"])
        stem.with_suffix(".verdicts.json").write_text(json.dumps(
            {k: m[k] for k in ("label", "target", "ours", "reference")}, ensure_ascii=False, indent=1))
