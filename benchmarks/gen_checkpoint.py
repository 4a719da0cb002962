#!/usr/bin/env python3
"""Generate a realistic, valid checkpoint pair near the 256 MiB ceiling.

    .venv/bin/python benchmarks/gen_checkpoint.py [--mib 250] [--seed 1] [--out benchmarks/out]

Writes ``OUT/bench-<mib>.payload.json`` (canonical ``canonical_json_v1`` bytes written directly
from a Python value with ``inspector.checkpoint.encode``) and ``OUT/bench-<mib>.descriptor.json``
made by the project's own ``checkpoint-inspector describe``. With ``--check`` (default when the
reference is built) the pair is also run through ``oracle2 verify`` and must be accepted.

The session is shaped like a long coding-agent session: user prompts and assistant replies with
long text (Latin, CJK, Cyrillic, Greek, emoji, escapes), ``tool_use`` blocks with nested JSON
inputs, ``tool_result`` strings holding file contents and command output (including
``is_error``/``trust``), image blocks, tool artifacts, and the rich typed content of FORMAT.md
4.7-4.16 from the differential's generator (``tests/differential/richgen.py``): run records whose
event streams hold all 51 ``AgentEvent`` kinds (``tool_end`` events with the ``context_efficient``
transform binding and Tool-result evidence), cognitive package bindings on the session, runs and
``cognitive_context_bound`` events, Run capability bindings on runs and the loop checkpoint, a
schema-5 durable-memory binding with semantic recall, an immutable-content adapter binding, the
``SessionConfig`` policy objects, trace events, cost records, verification reports and tasks.
f32 fields hold exact f32 images; other floats are short exact decimals. The loop checkpoint's
source run is ``executing``. Roughly: 55 % messages, 25 % run records, 12 % artifacts, the rest
loop checkpoint, trace and cost records.
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from pathlib import Path

from inspector.checkpoint import encode

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT / "tests" / "differential"))
from richgen import CONTEXT_EFFICIENT, EVENT_KINDS, RichGen  # noqa: E402  (the differential's generator)
MIB = 1 << 20

WORDS = (
    "the parser offsets cover refactor build test failing passing module function return value error "
    "context window token budget cache hit retry timeout workspace branch commit diff patch review "
    "naïve déjà Straße façade résumé Ελληνικά κείμενο кириллица проект тест 中文 日本語 テキスト 검증 "
    "العربية 🚀 🙂 ✅ 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 nbsp\u00a0x tab\there quote\"d back\\slash line\u2028sep zero\u200dwidth"
).split(" ")
CODE_LINES = [
    "fn main() {", "    let mut total: u64 = 0;", "    for item in items.iter() {", "        total += item.len() as u64;",
    "    }", "    println!(\"total = {}\", total);", "}", "def verify(payload, descriptor):",
    "    return check(payload) and check(descriptor)  # naïve", "import json, sys", "\tif err != nil {",
    "\t\treturn fmt.Errorf(\"read %s: %w\", path, err)", "\t}", "// TODO: handle the 256 MiB ceiling",
    "const MAX: usize = 268_435_456;", "SELECT id, name FROM sessions WHERE state = 'Active';",
    "<div class=\"msg\">Привет, мир</div>", "# 変更点: エラー処理を追加", "",
]
TOOLS = ["read", "write", "edit", "bash", "grep", "glob", "ls", "web_fetch", "task"]


class Gen:
    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.n = 0

    def words(self, lo: int, hi: int) -> str:
        r = self.rng
        return " ".join(r.choice(WORDS) for _ in range(r.randint(lo, hi)))

    def code(self, lines: int) -> str:
        r = self.rng
        return "\n".join(r.choice(CODE_LINES) for _ in range(lines))

    def uid(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}_{self.n:07d}_{self.rng.getrandbits(32):08x}"

    def tool_input(self, name: str) -> dict:
        r = self.rng
        if name == "bash":
            return {"command": r.choice(["cargo test -q", "ls -la", "git diff --stat", "pytest -x -q"]),
                    "timeout_ms": r.choice([30000, 120000]), "env": {"LANG": "C.UTF-8", "RUST_LOG": "debug"}}
        if name in ("edit", "write"):
            return {"path": f"/workspace/src/mod_{r.randrange(500)}.rs", "old": self.code(r.randint(1, 6)),
                    "new": self.code(r.randint(1, 8)), "replace_all": r.random() < 0.1}
        if name == "grep":
            return {"pattern": r.choice(["fn \\w+", "TODO", "unsafe", "检查"]), "path": "/workspace",
                    "options": {"case_insensitive": r.random() < 0.5, "context": r.randrange(4),
                                "max_results": 200, "weights": [0.5, 0.25, 1.5]}}
        return {"path": f"/workspace/{r.choice(['src', 'tests', 'docs'])}/file_{r.randrange(1000)}.txt",
                "offset": r.randrange(10000), "limit": r.choice([100, 2000, None])}

    def message_pair(self) -> list[dict]:
        """One agent turn: user prompt, assistant text + tool calls, user tool results."""
        r = self.rng
        msgs = [{"role": "user", "content": [{"type": "text", "text": self.words(5, 80)}]}]
        calls = []
        blocks = [{"type": "text", "text": self.words(20, 400)}]
        for _ in range(r.choice([0, 1, 1, 2, 3])):
            name = r.choice(TOOLS)
            cid = self.uid("toolu")
            calls.append(cid)
            blocks.append({"type": "tool_use", "id": cid, "name": name, "input": self.tool_input(name)})
        msg = {"role": "assistant", "content": blocks}
        if r.random() < 0.2:
            msg["reasoning_content"] = self.words(10, 120)
        msgs.append(msg)
        if calls:
            results = []
            for cid in calls:
                res = {"type": "tool_result", "tool_use_id": cid, "is_error": r.choice([None, False, False, True])}
                if r.random() < 0.9:
                    res["content"] = self.code(r.randint(5, 400)) if r.random() < 0.6 else self.words(10, 600)
                else:
                    res["content"] = [{"type": "text", "text": self.words(5, 50)},
                                      {"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                                   "data": "iVBORw0KGgo" + "A" * r.randint(64, 4096)}}]
                if r.random() < 0.3:
                    res["trust"] = r.choice(["trusted", "external"])
                if r.random() < 0.1:
                    res["redaction_reviewed"] = True
                results.append(res)
            msgs.append({"role": "user", "content": results})
        return msgs


def build(target_bytes: int, seed: int) -> dict:
    g = Gen(seed)
    r = g.rng
    rich = RichGen(random.Random(seed + 1), text_scale=4)
    sid = "sess-bench-%08x" % r.getrandbits(32)
    t0 = 1730000000000
    budget_messages = int(target_bytes * 0.55)
    budget_runs = int(target_bytes * 0.25)
    budget_artifacts = int(target_bytes * 0.12)
    budget_trace = int(target_bytes * 0.04)
    policy = dict(CONTEXT_EFFICIENT)
    session_cognitive = rich.cognitive()
    loop_capability = rich.capability()

    messages, size = [], 0
    while size < budget_messages:
        for m in g.message_pair():
            messages.append(m)
            size += len(encode(m)) + 1
    runs, size = [], 0
    while size < budget_runs:
        # every AgentEvent kind in each run record, plus as many random ones
        kinds = list(EVENT_KINDS) + [r.choice(EVENT_KINDS) for _ in range(r.randint(0, 60))]
        r.shuffle(kinds)
        status = r.choice(["completed", "completed", "completed", "failed", "cancelled", "created", "verifying"])
        cognitive = rich.cognitive() if r.random() < 0.5 else None
        capability = rich.capability() if r.random() < 0.5 else None
        rec = rich.run_record(sid, g.uid("run"), status, kinds, policy, cognitive, capability,
                              t0 + len(runs) * 60000)
        runs.append(rec)
        size += len(encode(rec)) + 1
    source = rich.run_record(sid, g.uid("run"), "executing", list(EVENT_KINDS), policy, session_cognitive,
                             loop_capability, t0 + len(runs) * 60000)
    runs.append(source)
    artifacts, uris, size = [], [], 0
    while size < budget_artifacts:
        aid = g.uid("artifact")
        uri = f"a3s://artifacts/{sid}/{aid}"
        content = g.code(r.randint(50, 3000))
        art = {"artifact_id": aid, "artifact_uri": uri, "tool_name": r.choice(TOOLS), "content": content,
               "original_bytes": len(content.encode()) * r.choice([1, 2, 4]), "shown_bytes": len(content.encode())}
        artifacts.append(art)
        if r.random() < 0.5:
            uris.append(uri)
        size += len(encode(art)) + 1
    trace, costs, size = [], [], 0
    while size < budget_trace:
        tr = rich.trace_event()
        tr["details"] = {"model": "deepseek-chat", "latency_ms": r.randrange(20000), "score": 0.75,
                         "detail": g.words(5, 60)}
        trace.append(tr)
        cost = rich.cost_record(sid)
        costs.append(cost)
        size += len(encode(tr)) + len(encode(cost)) + 2

    durable = rich.durable(5)
    config = rich.config(policy)
    config.update(name="基准 benchmark session", workspace="/workspace/проект",
                  system_prompt="You are a careful coding agent.\nBe brief.")
    session = {
        "id": sid,
        "config": config,
        "state": "Active",
        "messages": messages,
        "context_usage": {"used_tokens": 183500, "max_tokens": 200000, "percent": 0.5, "turns": len(messages) // 3},
        "total_usage": {"prompt_tokens": 91234567, "completion_tokens": 4567890, "total_tokens": 95802457,
                        "cache_read_tokens": 81234567, "cache_write_tokens": 1234567},
        "total_cost": 1234.5,
        "model_name": "deepseek-chat",
        "cost_records": costs,
        "tool_names": list(TOOLS),
        "thinking_enabled": True,
        "thinking_budget": 16000,
        "created_at": t0 // 1000,
        "updated_at": t0 // 1000 + 86400,
        "llm_config": {"provider": "deepseek", "model": "deepseek-chat", "base_url": None},
        "tasks": [rich.task(i) for i in range(20)],
        "tenant_id": durable["namespace"]["tenantId"],
        "principal": durable["namespace"]["principalId"],
        "correlation_id": "corr-bench",
        "durable_memory_binding": durable,
        "cognitive_package_binding": session_cognitive,
        "immutable_content_adapter_binding": rich.immutable(),
    }
    snapshot = {
        "schema_version": 1,
        "session": session,
        "artifacts": artifacts,
        "retained_artifact_uris": sorted(uris),
        "trace_events": trace,
        "run_records": runs,
        "verification_reports": [rich.verification_report() for _ in range(5)],
        "subagent_tasks": [rich.subagent_task(sid, t0) for _ in range(5)],
    }
    logical = rich.loop_checkpoint(sid, source["snapshot"]["id"], loop_capability, messages[-30:])
    logical["turn"] = 12
    return {"schema": "a3s.code.session-checkpoint-payload.v1", "snapshot": snapshot, "logical_resume": logical}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mib", type=float, default=250, help="approximate payload size in MiB (default 250)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=HERE / "out")
    ap.add_argument("--no-check", action="store_true", help="skip the oracle2 acceptance check")
    ap.add_argument("--oracle-descriptor", action="store_true",
                    help="when describe refuses the payload, take oracle2 export's descriptor instead")
    args = ap.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    stem = args.out / f"bench-{args.mib:g}"
    payload_path = Path(f"{stem}.payload.json")
    descriptor_path = Path(f"{stem}.descriptor.json")
    t = time.perf_counter()
    value = build(int(args.mib * MIB * 1.03), args.seed)  # the budgets cover ~96 %
    data = encode(value)
    del value
    if len(data) > 268435456:
        print(f"payload is {len(data)} bytes, over the 256 MiB ceiling; lower --mib", file=sys.stderr)
        return 1
    payload_path.write_bytes(data)
    print(f"payload: {payload_path} {len(data)} bytes ({len(data) / MIB:.1f} MiB) in {time.perf_counter() - t:.1f} s")
    del data
    descriptor_path.unlink(missing_ok=True)
    t = time.perf_counter()
    cli = ROOT / ".venv" / "bin" / "checkpoint-inspector"
    oracle = os.environ.get("ORACLE2", "/tmp/reference/target/release/oracle2")
    done = subprocess.run([str(cli), "describe", str(payload_path), "-o", str(descriptor_path)])
    if done.returncode != 0:
        if not (args.oracle_descriptor and os.access(oracle, os.X_OK)):
            return 1
        # The engine refused: take the reference export's descriptor (its content must be our bytes).
        content = args.out / "oracle-export.payload.json"
        subprocess.run([oracle, "export", str(payload_path), "--descriptor-out", str(descriptor_path),
                        "--content-out", str(content)], check=True)
        same = content.read_bytes() == payload_path.read_bytes()
        content.unlink()
        print(f"descriptor: {descriptor_path} (oracle2 export, the engine refused; content identical: {same})")
        if not same:
            return 1
    else:
        print(f"descriptor: {descriptor_path} (checkpoint-inspector describe, {time.perf_counter() - t:.1f} s)")
    if not args.no_check and os.access(oracle, os.X_OK):
        out = subprocess.run([oracle, "verify", str(payload_path), str(descriptor_path)], capture_output=True, text=True)
        print(f"oracle2 verify: {out.stdout.strip()}")
        if out.returncode != 0:
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
