"""Seeded generator of rich, valid A3S Code session checkpoint payload values (FORMAT.md 4.1-4.16).

A session from :class:`RichGen` carries what the typed layout of turn 2 covers: run events of all
51 ``AgentEvent`` kinds (FORMAT.md 4.7, layout from ``reference/src/types.rs``), ``tool_end``
events whose ``metadata`` holds a Tool-result transform binding and Tool-result evidence (4.7.3;
conservative, ``context_efficient`` or a random valid policy), cognitive package bindings on the
session, on runs and in ``cognitive_context_bound`` events (4.8), Run capability bindings on runs
and on the loop checkpoint (4.9), a durable-memory binding of schema version 5 (with semantic
recall), 4, 3, 2 or 1 (4.10), trace events (4.11), verification reports (4.12), cost records
(4.13), planning tasks (4.14), the ``SessionConfig`` policy objects (4.15) and every f32 field of
4.16 holding an exact f32 image.

The value is plain Python (dicts, lists, str, int, float). ``diffkit`` hands it to ``oracle2
export`` for the canonical pair; ``benchmarks/gen_checkpoint.py`` encodes it directly. The digests
the validators recompute (cognitive capability snapshot digest, transform policy/binding digests,
immutable-content binding digest) are computed here with ``hashlib``, independently of the engine.

:data:`EVENT_KINDS` lists the 51 wire ``type`` values in declaration order; :func:`binding_kinds`
names the bindings a payload value carries (for coverage counts).
"""

from __future__ import annotations

import hashlib
import json
import random
import struct

EVENT_KINDS = (
    "agent_start", "agent_mode_changed", "turn_start", "text_delta", "reasoning_delta", "tool_start",
    "tool_input_delta", "tool_request_bound", "tool_execution_start", "tool_end", "tool_output_delta", "turn_end",
    "agent_end", "error", "confirmation_required", "confirmation_received", "confirmation_timeout",
    "external_task_pending", "external_task_completed", "permission_denied", "context_resolving",
    "context_resolved", "run_capability_bound", "model_presentation_bound", "model_input_bound",
    "model_usage_bound", "cognitive_context_bound", "command_dead_lettered", "command_retry", "queue_alert",
    "task_updated", "memory_stored", "memory_recalled", "memories_searched", "memory_cleared", "subagent_start",
    "subagent_progress", "subagent_end", "planning_start", "planning_end", "step_start", "step_end",
    "goal_extracted", "goal_progress", "goal_achieved", "context_compacted", "run_control_applied",
    "persistence_failed", "budget_threshold_hit", "passivation_requested", "peer_invocation",
)

PAYLOAD_SCHEMA = "a3s.code.session-checkpoint-payload.v1"
U64_MAX = (1 << 64) - 1
I64_MAX = (1 << 63) - 1

# 4.3 / 4.7.3: Tool-result transform policy and binding
POLICY_SCHEMA = "a3s.code.tool-result-transform-policy.v1"
POLICY_DIGEST_DOMAIN = "a3s.code.tool-result-transform-policy-digest.v1"
BINDING_SCHEMA = "a3s.code.tool-result-transform-binding.v1"
TRANSFORM_ALGORITHM = "a3s.code.tool-result-transform.v1"
EVIDENCE_SCHEMA = "a3s.code.tool-result-evidence.v1"
BINDING_KEY = "a3s_tool_result_transform_binding"
EVIDENCE_KEY = "a3s_tool_result_evidence"
POLICY_FIELDS = ("schema", "max_output_bytes", "head_bytes", "tail_bytes", "fold_repeated_lines",
                 "repeated_line_threshold", "structured_sample_items")
CONSERVATIVE = dict(zip(POLICY_FIELDS, (POLICY_SCHEMA, 102400, 102400, 0, False, 3, 0)))
CONTEXT_EFFICIENT = dict(zip(POLICY_FIELDS, (POLICY_SCHEMA, 102400, 65536, 32768, True, 3, 32)))
LOSS_MODES = ("none", "bounded_preview", "head_tail", "deterministic_transform", "composite")

# 4.8 cognitive package binding
COGNITIVE_SCHEMA = "a3s.code.cognitive-package-session-binding.v1"
KNOWLEDGE_SCHEMA = "agentic.ontology.r0-knowledge-lease-binding.v1"
SEARCH_SCHEMA = "a3s.use.okf-knowledge-search-request.v1"
READ_SCHEMA = "a3s.use.okf-knowledge-read-request.v1"
CITATION_SCHEMA = "a3s.use.okf-knowledge-citation.v1"
# 4.9 run capability binding
RUN_CAP_SCHEMA = "a3s.code.run-capability-binding.v1"
CAP_SET_SCHEMA = "a3s.code.capability-set.v1"
CAP_CEILING_SCHEMA = "a3s.code.capability-ceiling.v1"
USE_CURSOR_SCHEMA = "a3s.use.capability-snapshot-cursor.v1"
# 4.10 durable memory
RETRIEVAL_CURRENT = "a3s.memory.lexical.word-cjk-bigram.v1"
RETRIEVAL_LEGACY = "a3s.memory.lexical.word.v1"
CONTEXT_V2 = "a3s.code.memory.context.session-run-invocation-sequence-sha256.v2"
CONTEXT_V1 = "a3s.code.memory.context.session-run-sequence-sha256.v1"
CONTEXT_V0 = "a3s.code.memory.context.host-id.v0"
DURABLE_PAIRING = {5: (RETRIEVAL_CURRENT, CONTEXT_V2), 4: (RETRIEVAL_CURRENT, CONTEXT_V2),
                   3: (RETRIEVAL_CURRENT, CONTEXT_V1), 2: (RETRIEVAL_CURRENT, CONTEXT_V0),
                   1: (RETRIEVAL_LEGACY, CONTEXT_V0)}
SEMANTIC_SCHEMA = "a3s.code.memory.semantic-recall-binding.v1"
FUSION_PROFILE = "a3s.code.memory.hybrid.rrf-k60.v1"
IMMUTABLE_SCHEMA = "a3s.code.immutable-content-adapter-binding.v1"

TEXT_POOL = ("parser offsets cover refactor build test failing passing module function return value error context "
             "window token budget cache retry timeout workspace branch commit diff patch review naïve déjà Straße "
             "Ελληνικά кириллица 中文 日本語 검증 العربية 🚀 ✅ 𝔘𝔫𝔦 tab\there quote\"d back\\slash line\u2028sep "
             "nbsp\u00a0x zero\u200dwidth ctrl\u0001x del\u007fx nul\u0000x").split(" ")
TOOLS = ("read", "write", "edit", "bash", "grep", "glob", "ls", "web_fetch", "task")
LANES = ("Control", "Query", "Execute", "Generate")
STATUSES = ("created", "planning", "executing", "verifying", "completed", "failed", "cancelled")
TERMINAL = ("completed", "failed", "cancelled")
VERIFICATION_STATUSES = ("passed", "failed", "needs_review", "skipped")


def f32(x: float) -> float:
    """The exact f64 widening of the nearest f32 to ``x`` (FORMAT.md 4.16)."""
    return struct.unpack("<f", struct.pack("<f", x))[0]


def sha256_hex(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def declared_json(pairs) -> bytes:
    """Compact ``serde_json::to_vec`` of a struct whose fields are ``pairs`` (declared order)."""
    return json.dumps(dict(pairs), ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def domain_digest_of_bytes(domain: str, data: bytes) -> str:
    """``sha256:`` + hex(SHA-256(domain ‖ 0x00 ‖ data)) (FORMAT.md 3.2)."""
    return sha256_hex(domain.encode() + b"\x00" + data)


def policy_digest(policy: dict) -> str:
    """Declared-order policy digest (FORMAT.md 4.3)."""
    return domain_digest_of_bytes(POLICY_DIGEST_DOMAIN, declared_json((k, policy[k]) for k in POLICY_FIELDS))


def transform_binding(policy: dict) -> dict:
    """The valid ``ToolResultTransformBindingV1`` for ``policy`` (FORMAT.md 4.7.3)."""
    pd = policy_digest(policy)
    bd = domain_digest_of_bytes(BINDING_SCHEMA, declared_json(
        [("schema", BINDING_SCHEMA), ("transform_algorithm", TRANSFORM_ALGORITHM), ("policy_digest", pd)]))
    return {"schema": BINDING_SCHEMA, "transform_algorithm": TRANSFORM_ALGORITHM, "policy_digest": pd,
            "binding_digest": bd}


def cognitive_capability_digest(b: dict) -> str:
    """``capabilitySnapshotDigest`` of a cognitive binding (FORMAT.md 4.8)."""
    k = b["knowledge"]
    j = json.dumps([b["packageId"], b["packageVersion"], b["lifecycleGeneration"], b["generationDigest"],
                    k["surfaceId"], k["formatVersion"], k["contentDigest"]], ensure_ascii=False,
                   separators=(",", ":")).encode("utf-8")
    d = b"a3s.use.capability-snapshot.v1"
    m = b"agentic-ontology-canonical-v1\x00" + struct.pack(">Q", len(d)) + d + struct.pack(">Q", len(j)) + j
    return sha256_hex(m)


def immutable_binding_digest(b: dict) -> str:
    return domain_digest_of_bytes(IMMUTABLE_SCHEMA, declared_json(
        [("schema", b["schema"]), ("authority_digest", b["authority_digest"]), ("maximum_bytes", b["maximum_bytes"])]))


class RichGen:
    """Random valid session values. ``rng`` drives every choice; ``text_scale`` multiplies the
    length of free text (the benchmark uses longer texts than the differential); ``wide_floats``
    puts any finite f32/f64 into the fields no validator bounds (the differential exports them
    through ``oracle2``; a payload written directly with them may not survive serde_json's own
    float reading, so the benchmark keeps short decimals)."""

    def __init__(self, rng: random.Random, text_scale: int = 1, wide_floats: bool = False):
        self.r = rng
        self.scale = text_scale
        self.wide = wide_floats
        self.n = 0

    # -- scalars ------------------------------------------------------------------------------
    def text(self, lo: int = 1, hi: int = 8) -> str:
        r = self.r
        return " ".join(r.choice(TEXT_POOL) for _ in range(r.randint(lo, hi) * self.scale))

    def uid(self, prefix: str) -> str:
        self.n += 1
        return f"{prefix}-{self.n}-{self.r.getrandbits(24):06x}"

    def digest(self) -> str:
        return "sha256:%064x" % self.r.getrandbits(256)

    def opt(self, value, p: float = 0.5):
        return value if self.r.random() < p else None

    def u(self, hi: int = 100000) -> int:
        r = self.r
        k = r.random()
        if k < 0.05:
            return 0
        if k < 0.08:
            return U64_MAX if hi > (1 << 32) else hi
        return r.randrange(hi)

    def f32_unit(self) -> float:
        return f32(self.r.choice([0.0, 1.0, 0.5, 0.25, 0.7, 0.35, 0.85, 0.1, self.r.random()]))

    def f32_free(self) -> float:
        """An f32 field no validator bounds: with ``wide_floats`` any finite f32 (subnormals,
        negatives, near ``f32::MAX``), else an exact image in [0, 1]."""
        if self.wide and self.r.random() < 0.4:
            while True:
                x = struct.unpack("<f", struct.pack("<I", self.r.getrandbits(32)))[0]
                if x == x and abs(x) != float("inf"):
                    return x
        return self.f32_unit()

    def f64(self) -> float:
        if self.wide and self.r.random() < 0.3:  # any finite double, printed shortest
            while True:
                x = struct.unpack("<d", struct.pack("<Q", self.r.getrandbits(64)))[0]
                if x == x and abs(x) != float("inf"):
                    return x
        # Short decimals only: serde_json's default float parser is not correctly rounded for
        # long mantissas, so an exported value would differ from the written one.
        return self.r.choice([0.0, 0.5, 81234.5, 100000.0, 1e-7, 1e21, 0.3, -3.25, round(self.r.uniform(0, 1e6), 2)])

    def json_value(self, depth: int = 0):
        r = self.r
        k = r.randrange(9 if depth < 2 else 6)
        if k == 0:
            return None
        if k == 1:
            return r.random() < 0.5
        if k == 2:
            return r.choice([0, -1, 42, U64_MAX, -(1 << 63), 1 << 53])
        if k == 3:
            return r.choice([0.5, 1.5e300, -0.0, 2.5e-8, 0.1])
        if k in (4, 5):
            return self.text(1, 3)
        if k in (6, 7):
            return {self.r.choice(["path", "command", "z", "a", "é", "\u2028", ""]) + str(i): self.json_value(depth + 1)
                    for i in range(r.randint(0, 3))}
        return [self.json_value(depth + 1) for _ in range(r.randint(0, 3))]

    def usage(self) -> dict:
        p, c = self.u(10 ** 6), self.u(10 ** 5)
        return {"prompt_tokens": p, "completion_tokens": c, "total_tokens": p + c,
                "cache_read_tokens": self.opt(self.u(10 ** 6)), "cache_write_tokens": self.opt(self.u(10 ** 5))}

    # -- bindings -----------------------------------------------------------------------------
    def policy(self) -> dict:
        r = self.r
        k = r.random()
        if k < 0.4:
            return dict(CONSERVATIVE)
        if k < 0.8:
            return dict(CONTEXT_EFFICIENT)
        mx = r.randint(1024, 102400)
        if r.random() < 0.5:
            head, tail = mx, 0
        else:
            head = r.randint(1, mx - 512)
            tail = r.randint(0, mx - 512 - head)
        return dict(zip(POLICY_FIELDS, (POLICY_SCHEMA, mx, head, tail, r.random() < 0.5, r.randint(2, 10000),
                                        r.randint(0, 1024))))

    def cognitive(self) -> dict:
        r = self.r
        alnum = "abcdefghijklmnopqrstuvwxyz0123456789-_"
        pub = "".join(r.choice(alnum) for _ in range(r.randint(1, 12)))
        name = "".join(r.choice(alnum) for _ in range(r.randint(1, 20)))
        gen = r.choice([1, 3, 7, U64_MAX, r.randrange(1, 1 << 40)])
        gd = self.digest()
        version = r.choice(["1.0.3", "v2-β", "版本 1", "2026.09", "x" * 128, "1"])
        surface = r.choice(["okf:acme/knowledge@main", "a", "A1.b_c:d/e@f-g", "s" * 256, "okf:" + pub])
        fmt = r.choice(["okf-r0.2", "r0", "ф" * 32, "f" * 64])
        b = {"schema": COGNITIVE_SCHEMA, "packageId": f"{pub}/{name}", "packageVersion": version,
             "lifecycleGeneration": gen, "generationDigest": gd, "capabilitySnapshotDigest": "",
             "knowledge": {"schema": KNOWLEDGE_SCHEMA, "surfaceId": surface, "formatVersion": fmt,
                           "contentDigest": self.digest(), "searchSchema": SEARCH_SCHEMA, "readSchema": READ_SCHEMA,
                           "citationSchema": CITATION_SCHEMA, "lifecycleGeneration": gen, "generationDigest": gd},
             "limits": {"maxResults": r.randint(1, 4), "maxDocumentBytes": r.choice([1, 6144, r.randint(1, 6144)]),
                        "maxTotalBytes": r.choice([1, 6144, r.randint(1, 6144)])}}
        b["capabilitySnapshotDigest"] = cognitive_capability_digest(b)
        return b

    def capability(self) -> dict:
        b = {"schema": RUN_CAP_SCHEMA, "capabilitySetSchema": CAP_SET_SCHEMA, "codeCatalogGeneration": self.u(1 << 63),
             "catalogDigest": self.digest(), "capabilityCeilingSchema": CAP_CEILING_SCHEMA,
             "capabilityCeilingDigest": self.digest()}
        if self.r.random() < 0.6:
            b["useGeneration"] = {"schema": USE_CURSOR_SCHEMA, "generation": self.u(1 << 63),
                                  "revision": self.digest(), "registryRevision": self.digest()}
        return b

    def durable(self, version: int, mode: str | None = None) -> dict:
        """A valid ``DurableMemoryBindingV1`` of schema ``version``; ``mode`` (``active_recall`` or
        ``shadow_candidates``, not for version 5) is random when ``None``."""
        r = self.r
        retrieval, context = DURABLE_PAIRING[version]
        ns = {"tenantId": r.choice(["tenant-42", "t", "租户", "x" * 256]),
              "principalId": r.choice(["user:alice", " p ", "p" * 256]),
              "scopeId": r.choice(["repo:parser", "s", "s" * 256])}
        if mode is None:
            mode = "active_recall" if version == 5 or r.random() < 0.6 else "shadow_candidates"
        b = {"schemaVersion": version, "namespace": ns, "mode": mode, "retrievalProfile": retrieval,
             "contextIdProfile": context}
        if mode == "active_recall":
            b["recallPolicy"] = {"maxResults": r.choice([1, 8, 100, r.randint(1, 100)]), "minLexicalScore": self.f32_unit(),
                                 "maxRelatedLookups": r.choice([0, 4, 100])}
        if version == 5:
            dim = r.choice([1, 384, 1536, 65536])
            b["semanticRecall"] = {
                "schema": SEMANTIC_SCHEMA, "authorityDigest": self.digest(),
                "embedding": {"provider": r.choice(["fixture", "openai", "本地"]), "model": r.choice(["m", "x" * 256]),
                              "revision": r.choice(["fixture-r1", "r"]), "dimension": dim,
                              "normalization": r.choice(["none", "unit"])},
                "embeddingExecutionDigest": self.digest(),
                "vectorIndex": {"dimension": dim, "metric": "cosine", "normalization": "unit",
                                "maxRecords": r.choice([1, 10000]), "maxBytes": dim * 4 * r.choice([1, 1000])},
                "policy": {"candidateLimit": r.choice([1, 8, 100]), "minScore": self.f32_unit()},
                "fusionProfile": FUSION_PROFILE}
        return b

    def immutable(self) -> dict:
        b = {"schema": IMMUTABLE_SCHEMA, "authority_digest": self.digest(),
             "maximum_bytes": self.r.choice([1, 1 << 20, U64_MAX])}
        b["binding_digest"] = immutable_binding_digest(b)
        return b

    # -- planning / verification ----------------------------------------------------------------
    def task(self, i: int) -> dict:
        r = self.r
        t = {"id": f"t{i}", "content": self.text(2, 6),
             "status": r.choice(["pending", "in_progress", "completed", "failed", "skipped", "cancelled"]),
             "priority": r.choice(["high", "medium", "low"])}
        if r.random() < 0.4:
            t["tool"] = r.choice(TOOLS)
        if r.random() < 0.4:
            t["dependencies"] = [f"t{j}" for j in range(r.randint(1, 3))]
        if r.random() < 0.4:
            t["success_criteria"] = self.text(1, 4)
        return t

    def goal(self) -> dict:
        return {"description": self.text(2, 6), "success_criteria": [self.text(1, 3) for _ in range(self.r.randint(0, 3))],
                "progress": self.f32_free(), "achieved": self.r.random() < 0.3,
                "created_at": self.r.randint(-(1 << 40), 1 << 40), "achieved_at": self.opt(self.r.randint(0, 1 << 40))}

    def verification_report(self) -> dict:
        r = self.r
        checks = []
        for i in range(r.randint(0, 3)):
            c = {"id": f"c{i}", "kind": r.choice(["command", "review", "lint"]), "description": self.text(1, 5),
                 "status": r.choice(VERIFICATION_STATUSES), "required": r.random() < 0.5}
            if r.random() < 0.4:
                c["suggested_tools"] = [r.choice(TOOLS)]
            if r.random() < 0.4:
                c["evidence_uris"] = ["a3s://artifacts/" + self.uid("log")]
            if r.random() < 0.3:
                c["residual_risk"] = self.text(1, 4)
            checks.append(c)
        rep = {"schema": "a3s.verification_report.v1", "subject": self.text(1, 3),
               "status": r.choice(VERIFICATION_STATUSES), "checks": checks}
        if r.random() < 0.4:
            rep["residual_risks"] = [self.text(1, 4)]
        return rep

    def verification_summary(self) -> dict:
        s = {"status": self.r.choice(VERIFICATION_STATUSES)}
        for k in ("report_count", "required_check_count", "pending_required_check_count", "failed_check_count",
                  "residual_risk_count"):
            s[k] = self.u(50)
        for k in ("pending_subjects", "failed_subjects"):
            if self.r.random() < 0.4:
                s[k] = [self.text(1, 2)]
        return s

    # -- events (FORMAT.md 4.7) ----------------------------------------------------------------
    def tool_end_metadata(self, policy: dict):
        """``tool_end.metadata``: mostly a valid binding + evidence for ``policy``; sometimes no
        metadata, a non-object, an object without the binding, or evidence without a binding
        (all skipped by the S-TOOLEND rules)."""
        r = self.r
        k = r.random()
        if k < 0.15:
            return None
        if k < 0.22:
            return r.choice(["ok", [1, 2], 3, True, None])
        meta = {"exit_status": r.choice(["ok", "error"]), "duration_ms": self.u(10 ** 6)}
        if k < 0.3:
            return meta
        orig = self.u(1 << 30)
        proj = r.randrange(orig + 1) if orig else 0
        ev = {"schema": EVIDENCE_SCHEMA, "original_bytes": orig, "projected_bytes": proj,
              "original_estimated_tokens": (orig + 3) // 4, "projected_estimated_tokens": (proj + 3) // 4,
              "token_estimator": "utf8-bytes-ceil-div-4/v1", "transform_algorithm": TRANSFORM_ALGORITHM,
              "content_digest": self.digest(), "repeat_key": self.digest(),
              "content_ref": "a3s://tool-results/" + self.uid("r"), "loss_mode": r.choice(LOSS_MODES)}
        if r.random() < 0.6:
            ev["projected_digest"] = self.digest()
        if r.random() < 0.6:
            ev["byte_delta"] = proj - orig
            ev["estimated_token_delta"] = r.choice([(proj - orig) // 4, -(1 << 63), I64_MAX])
        meta[EVIDENCE_KEY] = ev
        if k < 0.35:
            return meta  # evidence without a binding: not checked
        meta[BINDING_KEY] = transform_binding(policy)
        return meta

    def error_kind(self) -> dict:
        r = self.r
        t = r.choice(["version_conflict", "remote_git_conflict", "not_found", "invalid_argument", "hook_denied",
                      "unsupported", "timeout", "transport", "cancelled", "partial_failure", "rate_limited"])
        fields = {
            "version_conflict": lambda: {"path": "src/x.rs", "expected": "3bfc2695", "actual": self.opt("9a1f")},
            "remote_git_conflict": lambda: {"code": "E409", "message": self.text(1, 3)},
            "not_found": lambda: {"path": "/workspace/" + self.text(1, 1)},
            "invalid_argument": lambda: {"message": self.text(1, 4)},
            "hook_denied": lambda: {"reason": self.text(1, 3), "retryable": r.random() < 0.5,
                                    "retry_after_ms": self.opt(self.u(1 << 40))},
            "unsupported": lambda: {"message": self.text(1, 3)},
            "timeout": lambda: {"op": "bash", "duration_ms": self.u(1 << 40)},
            "transport": lambda: {"op": "web_fetch"},
            "cancelled": lambda: {"op": "bash"},
            "partial_failure": lambda: {"failed": self.u(10), "total": self.u(100)},
            "rate_limited": lambda: {"retry_after_ms": self.opt(self.u(1 << 40))},
        }[t]()
        fields["type"] = t
        return fields

    def presentation_profile(self) -> dict:
        return {"schema": "a3s.code.tool-presentation-profile.v1",
                "mode": self.r.choice(["adaptive", "direct", "code", "disabled"])}

    def event(self, kind: str, ctx: dict) -> dict:
        """One ``AgentEvent`` of wire type ``kind``. ``ctx``: ``session_id``, ``policy`` (the
        session's transform policy) and ``cognitive`` (the binding ``cognitive_context_bound``
        must carry in this run)."""
        r, t, u, d, o = self.r, self.text, self.u, self.digest, self.opt
        tool = r.choice(TOOLS)
        tid = self.uid("toolu")
        sid = ctx["session_id"]
        e = {
            "agent_start": lambda: {"prompt": t(2, 10)},
            "agent_mode_changed": lambda: {"mode": r.choice(["general", "plan"]), "agent": "general",
                                           "description": t(1, 5)},
            "turn_start": lambda: {"turn": u(1000)},
            "text_delta": lambda: {"text": t(1, 10)},
            "reasoning_delta": lambda: {"text": t(1, 10)},
            "tool_start": lambda: {"id": tid, "name": tool},
            "tool_input_delta": lambda: {"delta": '{"command":"cargo', **({"id": tid} if r.random() < 0.7 else {})},
            "tool_request_bound": lambda: {"tool_id": tid, "tool_name": tool, "snapshot": {
                "schema": "a3s.code.tool-request-snapshot.v1",
                "origin": r.choice(["agent", "nested", "host_direct_trusted", "host_direct_governed",
                                    "host_direct_nested_trusted", "host_direct_nested_governed"]),
                "toolIdDigest": d(), "toolNameDigest": d(), "argumentsBytes": u(1 << 40), "argumentsDigest": d(),
                "snapshotDigest": d()}},
            "tool_execution_start": lambda: {"id": tid, "name": tool, "args": self.json_value()},
            "tool_end": lambda: self._tool_end(tid, tool, ctx),
            "tool_output_delta": lambda: {"id": tid, "name": tool, "delta": t(1, 6)},
            "turn_end": lambda: {"turn": u(1000), "usage": self.usage()},
            "agent_end": lambda: {"text": t(1, 10), "usage": self.usage(),
                                  "verification_summary": self.verification_summary(),
                                  **({"meta": self._meta()} if r.random() < 0.6 else {})},
            "error": lambda: {"message": t(1, 6)},
            "confirmation_required": lambda: {"tool_id": tid, "tool_name": tool, "args": self.json_value(),
                                              "timeout_ms": u(1 << 40)},
            "confirmation_received": lambda: {"tool_id": tid, "approved": r.random() < 0.5, "reason": o(t(1, 4))},
            "confirmation_timeout": lambda: {"tool_id": tid, "action_taken": r.choice(["rejected", "approved"])},
            "external_task_pending": lambda: {"task_id": self.uid("ext"), "session_id": sid, "lane": r.choice(LANES),
                                              "command_type": tool, "payload": self.json_value(),
                                              "timeout_ms": u(1 << 40)},
            "external_task_completed": lambda: {"task_id": self.uid("ext"), "session_id": sid,
                                                "success": r.random() < 0.5},
            "permission_denied": lambda: {"tool_id": tid, "tool_name": tool, "args": self.json_value(),
                                          "reason": t(1, 5)},
            "context_resolving": lambda: {"providers": [r.choice(["fs", "memory", "web"]) for _ in range(r.randint(0, 3))]},
            "context_resolved": lambda: {"total_items": u(100), "total_tokens": u(10 ** 6)},
            "run_capability_bound": lambda: {"call_sequence": u(1 << 40), "snapshot": self._run_cap_snapshot()},
            "model_presentation_bound": lambda: {"snapshot": {
                "schema": "a3s.code.model-presentation-snapshot.v1", "callSequence": u(1 << 40),
                "profile": self.presentation_profile(), "application": r.choice(["profiled", "auxiliary"]),
                "sourceToolCount": u(50), "sourceToolDefinitionsDigest": d(), "sourceEstimatedTokens": u(10 ** 5),
                "presentedToolCount": u(50), "presentedToolDefinitionsDigest": d(),
                "presentedEstimatedTokens": u(10 ** 5), "snapshotDigest": d()}},
            "model_input_bound": lambda: {"snapshot": self._model_input()},
            "model_usage_bound": lambda: {"snapshot": self._model_usage()},
            "cognitive_context_bound": lambda: {"binding": ctx["cognitive"]},
            "command_dead_lettered": lambda: {"command_id": self.uid("cmd"), "command_type": tool,
                                              "lane": r.choice(["execute", "Query"]), "error": t(1, 4),
                                              "attempts": r.choice([0, 3, (1 << 32) - 1])},
            "command_retry": lambda: {"command_id": self.uid("cmd"), "command_type": tool, "lane": "query",
                                      "attempt": r.choice([1, (1 << 32) - 1]), "delay_ms": u(1 << 40)},
            "queue_alert": lambda: {"level": r.choice(["warning", "critical"]), "alert_type": "depth",
                                    "message": t(1, 5)},
            "task_updated": lambda: {"session_id": sid, "tasks": [self.task(i) for i in range(r.randint(0, 3))]},
            "memory_stored": lambda: {"memory_id": self.uid("mem"), "memory_type": r.choice(["episodic", "semantic"]),
                                      "importance": self.f32_free(), "tags": [t(1, 1) for _ in range(r.randint(0, 2))]},
            "memory_recalled": lambda: {"memory_id": self.uid("mem"), "content": t(1, 6), "relevance": self.f32_free()},
            "memories_searched": lambda: {"query": o(t(1, 3)), "tags": [t(1, 1) for _ in range(r.randint(0, 2))],
                                          "result_count": u(100)},
            "memory_cleared": lambda: {"tier": r.choice(["working", "long_term"]), "count": u(1 << 40)},
            "subagent_start": lambda: {"task_id": self.uid("task"), "session_id": self.uid("child"),
                                       "parent_session_id": sid, "agent": "explore", "description": t(1, 4),
                                       "started_ms": u(1 << 42)},
            "subagent_progress": lambda: {"task_id": self.uid("task"), "session_id": self.uid("child"),
                                          "status": "running", "metadata": self.json_value()},
            "subagent_end": lambda: {"task_id": self.uid("task"), "session_id": self.uid("child"), "agent": "explore",
                                     "output": t(1, 6), "success": r.random() < 0.5, "finished_ms": u(1 << 42)},
            "planning_start": lambda: {"prompt": t(1, 6)},
            "planning_end": lambda: {"plan": {"goal": t(1, 5), "steps": [self.task(i) for i in range(r.randint(0, 3))],
                                              "complexity": r.choice(["Simple", "Medium", "Complex", "VeryComplex"]),
                                              "required_tools": [r.choice(TOOLS)], "estimated_steps": u(20)},
                                     "estimated_steps": u(20)},
            "step_start": lambda: {"step_id": "t1", "description": t(1, 4), "step_number": u(10), "total_steps": u(10)},
            "step_end": lambda: {"step_id": "t1", "status": r.choice(["pending", "in_progress", "completed", "failed",
                                                                      "skipped", "cancelled"]),
                                 "step_number": u(10), "total_steps": u(10)},
            "goal_extracted": lambda: {"goal": self.goal()},
            "goal_progress": lambda: {"goal": t(1, 4), "progress": self.f32_free(), "completed_steps": u(10),
                                      "total_steps": u(10)},
            "goal_achieved": lambda: {"goal": t(1, 4), "total_steps": u(10),
                                      "duration_ms": r.choice([0, -5, 5400, I64_MAX, -(1 << 63)])},
            "context_compacted": lambda: {"session_id": sid, "before_messages": u(100), "after_messages": u(50),
                                          "percent_before": self.f32_free(),
                                          **({"summary": t(1, 6)} if r.random() < 0.6 else {})},
            "run_control_applied": lambda: {"request_id": self.uid("req"), "operation": r.choice(["steer", "interrupt"]),
                                            "turn_id": o("turn-2"), "turn_revision": u(1 << 40),
                                            **({"input": t(1, 4)} if r.random() < 0.5 else {}),
                                            **({"reason": t(1, 4)} if r.random() < 0.5 else {})},
            "persistence_failed": lambda: {"session_id": sid, "operation": "save", "error": t(1, 4)},
            "budget_threshold_hit": lambda: {"resource": "llm_tokens", "kind": r.choice(["soft", "hard"]),
                                             "consumed": self.f64(), "limit": self.f64(),
                                             **({"message": t(1, 4)} if r.random() < 0.6 else {})},
            "passivation_requested": lambda: {"reason": "idle_reaper",
                                              **({"deadline_ms": u(1 << 42)} if r.random() < 0.6 else {})},
            "peer_invocation": lambda: {"from_session_id": self.uid("peer"),
                                        **({"from_tenant_id": "tenant-42"} if r.random() < 0.5 else {}),
                                        **({"correlation_id": self.uid("corr")} if r.random() < 0.5 else {})},
        }[kind]()
        e["type"] = kind
        return e

    def _tool_end(self, tid: str, tool: str, ctx: dict) -> dict:
        r = self.r
        e = {"id": tid, "name": tool, "output": self.text(1, 12), "exit_code": r.choice([0, 1, -1, 101, (1 << 31) - 1,
                                                                                        -(1 << 31)])}
        args = self.json_value()
        if args is not None:  # Option<Value>: a null is read as None and dropped
            e["args"] = args
        meta = self.tool_end_metadata(ctx["policy"])
        if meta is not None or r.random() < 0.2:
            e["metadata"] = meta  # a None here is dropped by the export (omit-None)
        if r.random() < 0.3:
            e["error_kind"] = self.error_kind()
        if e.get("metadata") is None:
            e.pop("metadata", None)
        return e

    def _meta(self) -> dict:
        m = {}
        for k in ("provider", "request_model", "request_url", "response_id", "response_model", "response_object"):
            if self.r.random() < 0.5:
                m[k] = self.text(1, 1)
        for k in ("first_token_ms", "duration_ms"):
            if self.r.random() < 0.5:
                m[k] = self.u(1 << 40)
        return m

    def _run_cap_snapshot(self) -> dict:
        r, u, d, o = self.r, self.u, self.digest, self.opt
        return {"schema": "a3s.code.run-capability-snapshot.v1", "modelVisibleToolCount": u(50),
                "modelVisibleToolsDigest": d(),
                "workspace": {k: r.random() < 0.5 for k in ("read", "write", "exec", "search", "git", "codeIntelligence")},
                "policy": {"permissionCheckerBound": r.random() < 0.5, "permissionPolicyDigest": o(d()),
                           "confirmationManagerBound": r.random() < 0.5, "confirmationPolicyDigest": o(d()),
                           "budgetGuardBound": r.random() < 0.5, "activeSkillToolRestrictions": r.random() < 0.5,
                           "maxToolRounds": u(100), "maxParallelTasks": u(16), "toolTimeoutMs": o(u(1 << 40)),
                           "llmApiTimeoutMs": o(u(1 << 40)), "maxExecutionTimeMs": o(u(1 << 40))},
                "retrieval": {"enabled": r.random() < 0.5,
                              "phase": r.choice(["disabled", "building", "ready", "degraded", "closed"]),
                              "catalogRevision": u(1 << 40), "sourceRevision": u(1 << 40), "vectorRevision": u(1 << 40),
                              "coverageBps": r.choice([0, 9650, 10000, 65535]), "modelDigest": o(d())},
                "snapshotDigest": d()}

    def _model_input(self) -> dict:
        r, u, d, o = self.r, self.u, self.digest, self.opt
        s = {"schema": "a3s.code.model-input-snapshot.v1", "callSequence": u(1 << 40),
             "kind": r.choice(["completion", "streaming", "structured", "streaming_structured"])}
        for k in ("messageCount", "contentBlockCount", "imageBlockCount", "toolResultCount", "toolCount",
                  "retrievalResultCount"):
            s[k] = u(100)
        s["retrievalResultBytes"] = u(1 << 40)
        s["retrievalResultsDigest"] = o(d())
        for k in ("systemBytes", "messagePayloadBytes", "toolDefinitionBytes", "structuredOutputBytes", "payloadBytes"):
            s[k] = u(1 << 40)
        s.update({"estimatedPromptTokens": u(10 ** 6), "messagesDigest": d(), "systemDigest": o(d()),
                  "toolDefinitionsDigest": d(), "structuredOutputDigest": o(d()), "inputDigest": d(),
                  "capabilitySnapshotDigest": d(), "snapshotDigest": d()})
        return s

    def _model_usage(self) -> dict:
        u, d, o = self.u, self.digest, self.opt
        return {"schema": "a3s.code.model-usage-snapshot.v1", "callSequence": u(1 << 40), "inputSnapshotDigest": d(),
                "estimatedPromptTokens": u(10 ** 6), "reportedPromptTokens": u(10 ** 6),
                "reportedCompletionTokens": u(10 ** 5), "reportedTotalTokens": u(10 ** 6),
                "reportedCacheReadTokens": o(u(10 ** 6)), "reportedCacheWriteTokens": o(u(10 ** 6)),
                "toolResults": {"totalCount": u(50), "uniqueCount": u(50), "repeatedCount": u(50),
                                "contentBytes": u(1 << 40), "repeatedContentBytes": u(1 << 40),
                                "estimatedTokens": u(10 ** 6), "repeatedEstimatedTokens": u(10 ** 6),
                                "contentsDigest": o(d()), "repeatedContentsDigest": o(d())},
                "snapshotDigest": d()}

    # -- snapshot pieces ----------------------------------------------------------------------
    def timestamp(self) -> str:
        """An RFC 3339 UTC timestamp in chrono's ``AutoSi`` form (FORMAT.md 4.13)."""
        r = self.r
        secs = r.randrange(0, 4102444800)
        nanos = r.choice([0, 250_000_000, 123_456_000, 123_456_789, 1_000, 999_999_999])
        y, rest = divmod(secs, 86400)
        import datetime
        dt = datetime.datetime(1970, 1, 1) + datetime.timedelta(days=y, seconds=rest)
        s = dt.strftime("%Y-%m-%dT%H:%M:%S")
        if nanos:
            if nanos % 1_000_000 == 0:
                s += ".%03d" % (nanos // 1_000_000)
            elif nanos % 1000 == 0:
                s += ".%06d" % (nanos // 1000)
            else:
                s += ".%09d" % nanos
        return s + "Z"

    def cost_record(self, sid: str) -> dict:
        p, c = self.u(10 ** 6), self.u(10 ** 5)
        return {"model": "deepseek-chat", "provider": "deepseek", "prompt_tokens": p, "completion_tokens": c,
                "total_tokens": p + c, "cost_usd": self.opt(self.f64(), 0.8), "timestamp": self.timestamp(),
                "session_id": self.opt(sid, 0.7)}

    def trace_event(self) -> dict:
        r = self.r
        t = {"schema": "a3s.trace_event.v1", "kind": r.choice(["tool_execution", "program_execution"]),
             "name": r.choice(TOOLS), "success": r.random() < 0.7, "exit_code": r.choice([0, 1, -(1 << 31)]),
             "duration_ms": self.u(1 << 40), "output_bytes": self.u(1 << 30)}
        if r.random() < 0.5:
            t["metadata_keys"] = sorted([EVIDENCE_KEY, BINDING_KEY][: r.randint(1, 2)])
        if r.random() < 0.5:
            t["artifact_uris"] = ["a3s://artifacts/trace/" + self.uid("a")]
        details = self.json_value()
        if details is not None and r.random() < 0.7:  # Option<Value>: null reads as None
            t["details"] = details
        return t

    def message(self) -> dict:
        r = self.r
        k = r.randrange(4)
        if k == 0:
            blocks = [{"type": "text", "text": self.text(2, 20)}]
        elif k == 1:
            blocks = [{"type": "text", "text": self.text(1, 8)},
                      {"type": "tool_use", "id": self.uid("toolu"), "name": r.choice(TOOLS), "input": self.json_value()}]
        elif k == 2:
            content = self.text(1, 20) if r.random() < 0.7 else [
                {"type": "text", "text": self.text(1, 5)} if r.random() < 0.7 else
                {"type": "image", "source": {"type": "base64", "media_type": "image/jpeg", "data": "/9j/4AAQ"}}
                for _ in range(r.randint(0, 3))]
            res = {"type": "tool_result", "tool_use_id": self.uid("toolu"), "content": content,
                   "is_error": r.choice([None, True, False])}
            if r.random() < 0.3:
                res["trust"] = r.choice(["trusted", "external"])
            if r.random() < 0.1:
                res["redaction_reviewed"] = True
            blocks = [res]
        else:
            blocks = [{"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                   "data": "iVBORw0KGgo" + "A" * r.randint(0, 64)}}]
        m = {"role": "user" if k in (0, 2) else "assistant", "content": blocks}
        if r.random() < 0.1:
            m["reasoning_content"] = self.text(1, 6)
        return m

    def config(self, policy: dict) -> dict:
        r = self.r
        c = {"name": self.text(1, 3), "workspace": "/workspace", "system_prompt": self.opt(self.text(1, 6)),
             "max_context_length": r.choice([200000, 0, (1 << 32) - 1]), "auto_compact": r.random() < 0.5,
             "auto_compact_threshold": self.f32_free(), "storage_type": r.choice(["memory", "file", "custom"]),
             "planning_mode": r.choice(["Auto", "Disabled", "Enabled"]), "goal_tracking": r.random() < 0.5,
             "tool_presentation_profile": self.presentation_profile(), "tool_result_transform_policy": policy}
        if r.random() < 0.7:
            c["queue_config"] = {
                "controlMaxConcurrency": self.u(16), "queryMaxConcurrency": self.u(16),
                "executeMaxConcurrency": self.u(16), "generateMaxConcurrency": self.u(16),
                "laneHandlers": {lane: {"mode": r.choice(["Internal", "External", "Hybrid"]), "timeout_ms": self.u(1 << 40)}
                                 for lane in r.sample(LANES, r.randint(0, 4))},
                "enableDlq": r.random() < 0.5, "dlqMaxSize": self.opt(self.u(10000)), "enableMetrics": r.random() < 0.5,
                "enableAlerts": r.random() < 0.5, "defaultTimeoutMs": self.opt(self.u(1 << 40)),
                "storagePath": self.opt("/var/lib/a3s/queue"),
                "retryPolicy": self.opt({"strategy": "exponential", "maxRetries": r.choice([0, 3, (1 << 32) - 1]),
                                         "initialDelayMs": self.u(1 << 40), "fixedDelayMs": self.opt(self.u(1000))}),
                "rateLimit": self.opt({"limitType": "per_minute", "maxOperations": self.opt(self.u(1000))}),
                "priorityBoost": self.opt({"strategy": "standard", "deadlineMs": self.opt(self.u(1000))}),
                "pressureThreshold": self.opt(self.u(1000)),
                "laneTimeouts": {lane: self.u(1 << 40) for lane in r.sample(LANES, r.randint(0, 4))}}
        if r.random() < 0.7:
            c["confirmation_policy"] = {"enabled": r.random() < 0.5, "default_timeout_ms": self.u(1 << 40),
                                        "timeout_action": r.choice(["Reject", "AutoApprove"]),
                                        "yolo_lanes": r.sample(LANES, r.randint(0, 1))}
        if r.random() < 0.7:
            rule = lambda: {"rule": r.choice(["Read(src/**/*.rs)", "Grep(*)", "Bash(cargo:*)", "Bash(rm -rf:*)"])}
            c["permission_policy"] = {k: [rule() for _ in range(r.randint(0, 2))] for k in ("deny", "allow", "ask")}
            c["permission_policy"].update(default_decision=r.choice(["allow", "deny", "ask"]), enabled=r.random() < 0.7)
        if r.random() < 0.6:
            c["security_config"] = {
                "enabled": r.random() < 0.5, "classification_rules": [],
                "redaction_strategy": r.choice(["Mask", "Remove", "Hash"]),
                "network_whitelist": ["api.example.invalid"][: r.randint(0, 1)],
                "dangerous_commands": ["rm\\s+-rf\\s+/", "dd\\s+if="][: r.randint(0, 2)],
                "features": {k: r.random() < 0.5 for k in ("output_sanitizer", "taint_tracking", "tool_interceptor",
                                                           "injection_defense")}}
        if r.random() < 0.3:
            c["enforce_active_skill_tool_restrictions"] = True
        if r.random() < 0.5:
            c["max_parallel_tasks"] = self.u(16)
        if r.random() < 0.5:
            c["auto_delegation"] = {"enabled": r.random() < 0.5, "autoParallel": r.random() < 0.5,
                                    "allowManualDelegation": r.random() < 0.5, "minConfidence": self.f32_free(),
                                    "maxTasks": self.u(10)}
        if r.random() < 0.3:
            c["parent_id"] = self.uid("parent")
        return c

    def run_record(self, sid: str, rid: str, status: str, kinds: list[str], policy: dict, cognitive, capability,
                   t0: int) -> dict:
        """A run record whose events have the wire types ``kinds`` (in order)."""
        r = self.r
        legacy = cognitive if cognitive is not None else self.cognitive()
        ctx = {"session_id": sid, "policy": policy, "cognitive": legacy}
        events, seq = [], r.choice([0, 0, 0, 3, 1000])
        for kind in kinds:
            events.append({"sequence": seq, "timestamp_ms": t0 + seq * 250, "event": self.event(kind, ctx)})
            seq += r.choice([1, 1, 1, 2])
        last = events[-1]["sequence"] if events else -1
        snap = {"id": rid, "session_id": sid, "prompt": self.text(1, 8), "status": status,
                "created_at_ms": t0, "updated_at_ms": t0 + seq * 250 + 1000,
                "event_count": last + 1 + r.choice([0, 0, 0, 1, 7]) if events else self.u(10)}
        if cognitive is not None:
            snap["cognitive_package_binding"] = cognitive
        if capability is not None:
            snap["capability_binding"] = capability
        if status == "completed" and r.random() < 0.7:
            snap["result_text"] = self.text(1, 8)
        if status == "failed" or r.random() < 0.1:
            snap["error"] = self.text(1, 6)
        if r.random() < 0.2:
            snap["workspace_change_set"] = {"base_tree": "%040x" % r.getrandbits(160),
                                            "result_tree": "%040x" % r.getrandbits(160), "patch_digest": self.digest(),
                                            "patch_bytes": self.u(1 << 20), "patch_base64": "ZGlmZg==",
                                            "observed_at_ms": t0 + 5}
        return {"snapshot": snap, "events": events}

    def payload(self, extra_events: int = 20, with_resume: float = 0.75, durable_version="random") -> dict:
        """A valid payload value with events of all 51 kinds (each at least once) plus
        ``extra_events`` random ones, spread over 2-5 run records. ``durable_version``: a schema
        version (5..1), ``(version, mode)``, ``None`` for no durable-memory binding, or
        ``"random"``."""
        r = self.r
        sid = r.choice(["sess-", "séance-", "会话-", "s"]) + "%08x" % r.getrandbits(32)
        t0 = r.randrange(1700000000000, 1800000000000)
        policy = self.policy()
        version = r.choice([None, 5, 4, 3, 2, 1]) if durable_version == "random" else durable_version
        mode = None
        if isinstance(version, tuple):
            version, mode = version
        session_cog = self.cognitive() if r.random() < 0.6 else None
        resume = r.random() < with_resume
        n_runs = r.randint(2, 5)
        kinds = list(EVENT_KINDS) + [r.choice(EVENT_KINDS) for _ in range(extra_events)]
        r.shuffle(kinds)
        cuts = sorted(r.randint(0, len(kinds)) for _ in range(n_runs - 1))
        parts = [kinds[a:b] for a, b in zip([0] + cuts, cuts + [len(kinds)])]
        for part in r.sample(parts, min(2, n_runs)):  # repeated equal cognitive events in one run
            for _ in range(r.randint(1, 2)):
                part.insert(r.randint(0, len(part)), "cognitive_context_bound")
        src = r.randrange(n_runs)
        lr_cap = self.capability() if r.random() < 0.6 else None
        runs = []
        for i, part in enumerate(parts):
            if resume and i == src:
                cog, cap, status = session_cog, lr_cap, r.choice(["created", "planning", "executing", "verifying"])
            else:
                cog = self.cognitive() if r.random() < 0.5 else None
                cap = self.capability() if r.random() < 0.5 else None
                status = r.choice(STATUSES)
            runs.append(self.run_record(sid, self.uid("run"), status, part, policy, cog, cap, t0 + i * 60000))
        messages = [self.message() for _ in range(r.randint(1, 6))]
        session = {"id": sid, "config": self.config(policy), "state": r.choice(["Unknown", "Active", "Paused",
                                                                                 "Completed", "Error"]),
                   "messages": messages,
                   "context_usage": {"used_tokens": self.u(200000), "max_tokens": 200000, "percent": self.f32_free(),
                                     "turns": self.u(100)},
                   "total_usage": self.usage(), "total_cost": self.f64(),
                   "cost_records": [self.cost_record(sid) for _ in range(r.randint(0, 3))],
                   "tool_names": list(TOOLS[: r.randint(0, len(TOOLS))]), "thinking_enabled": r.random() < 0.5,
                   "thinking_budget": self.opt(self.u(100000)), "created_at": t0 // 1000, "updated_at": t0 // 1000 + 60,
                   "tasks": [self.task(i) for i in range(r.randint(0, 4))]}
        if r.random() < 0.7:
            session["model_name"] = "deepseek-chat"
        if r.random() < 0.5:
            session["llm_config"] = {"provider": "deepseek", "model": "deepseek-chat",
                                     "base_url": self.opt("https://api.example.invalid")}
        for k in ("parent_id", "agent_template_id", "correlation_id"):
            if r.random() < 0.3:
                session[k] = self.uid(k)
        if version is not None:
            b = self.durable(version, mode)
            session["durable_memory_binding"] = b
            session["tenant_id"] = b["namespace"]["tenantId"]
            session["principal"] = b["namespace"]["principalId"]
        else:
            if r.random() < 0.3:
                session["tenant_id"] = "tenant-42"
            if r.random() < 0.3:
                session["principal"] = "user:alice"
        if session_cog is not None:
            session["cognitive_package_binding"] = session_cog
        if r.random() < 0.4:
            session["immutable_content_adapter_binding"] = self.immutable()
        snapshot = {"schema_version": 1, "session": session,
                    "artifacts": [{"artifact_id": self.uid("art"), "artifact_uri": "a3s://artifacts/" + self.uid("a"),
                                   "tool_name": r.choice(TOOLS), "content": self.text(1, 10),
                                   "original_bytes": self.u(1 << 30), "shown_bytes": self.u(1 << 20)}
                                  for _ in range(r.randint(0, 2))],
                    "retained_artifact_uris": sorted("a3s://artifacts/" + self.uid("k") for _ in range(r.randint(0, 2))),
                    "trace_events": [self.trace_event() for _ in range(r.randint(0, 3))],
                    "run_records": runs,
                    "verification_reports": [self.verification_report() for _ in range(r.randint(0, 2))],
                    "subagent_tasks": [self.subagent_task(sid, t0) for _ in range(r.randint(0, 2))]}
        p = {"schema": PAYLOAD_SCHEMA, "snapshot": snapshot}
        if resume:
            p["logical_resume"] = self.loop_checkpoint(sid, runs[src]["snapshot"]["id"], lr_cap, messages)
        return p

    def subagent_task(self, sid: str, t0: int) -> dict:
        r = self.r
        st = {"task_id": self.uid("task"), "parent_session_id": r.choice([sid, sid, ""]),
              "child_session_id": self.uid("child"), "agent": "explore", "description": self.text(1, 4),
              "status": r.choice(["running", "completed", "failed", "cancelled"]), "started_ms": t0,
              "updated_ms": t0 + 900,
              "progress": [{"timestamp_ms": t0 + 100, "status": "running", "metadata": self.json_value()}
                           for _ in range(r.randint(0, 2))]}
        if st["status"] != "running":
            st.update(finished_ms=t0 + 900, output=self.text(1, 4), success=st["status"] == "completed")
        return st

    def loop_checkpoint(self, sid: str, rid: str, capability, messages: list) -> dict:
        r = self.r
        lc = {"schema_version": 1, "run_id": rid, "session_id": sid, "turn": r.choice([1, 2, 12, U64_MAX]),
              "messages": messages[: r.randint(0, len(messages))], "total_usage": self.usage(),
              "tool_calls_count": self.u(100), "verification_reports": [self.verification_report()
                                                                         for _ in range(r.randint(0, 1))],
              "convergence": {"parse_error_count": self.u(3), "continuation_count": self.u(3),
                              "reasoning_only_repair_count": 0, "guarded_duplicate_count": self.u(3),
                              "recent_tool_signatures": ["bash:2c26b46b => error"][: r.randint(0, 1)],
                              "incomplete_response_stalled": r.random() < 0.2},
              "checkpoint_ms": self.u(1 << 42)}
        if r.random() < 0.3:
            lc["convergence"]["guarded_duplicate_signature"] = "bash:2c26b46b"
        if capability is not None:
            lc["capability_binding"] = capability
        return lc


def binding_kinds(p: dict) -> list[str]:
    """Names of the bindings a payload value carries, for coverage counts: ``session-cognitive``,
    ``run-cognitive``, ``event-cognitive``, ``event-cognitive-legacy``, ``run-capability``,
    ``run-capability+use``, ``loop-capability``, ``durable-v{N}-{mode}``, ``durable-v5-semantic``,
    ``transform-conservative``/``transform-context_efficient``/``transform-custom``,
    ``tool-evidence``, ``immutable``."""
    out = []
    snap = p.get("snapshot") or {}
    sess = snap.get("session") or {}
    if not isinstance(sess, dict):
        return out
    if sess.get("cognitive_package_binding"):
        out.append("session-cognitive")
    if sess.get("immutable_content_adapter_binding"):
        out.append("immutable")
    d = sess.get("durable_memory_binding")
    if isinstance(d, dict):
        out.append(f"durable-v{d.get('schemaVersion')}-{d.get('mode')}")
        if d.get("semanticRecall"):
            out.append("durable-v5-semantic")
    for run in snap.get("run_records") or []:
        rs = run.get("snapshot") or {}
        if rs.get("cognitive_package_binding"):
            out.append("run-cognitive")
        cap = rs.get("capability_binding")
        if cap:
            out.append("run-capability+use" if cap.get("useGeneration") else "run-capability")
        for ev in run.get("events") or []:
            e = ev.get("event") if isinstance(ev, dict) else None
            if not isinstance(e, dict):
                continue
            if e.get("type") == "cognitive_context_bound":
                out.append("event-cognitive" if rs.get("cognitive_package_binding") else "event-cognitive-legacy")
            meta = e.get("metadata")
            if e.get("type") == "tool_end" and isinstance(meta, dict) and BINDING_KEY in meta:
                name = {policy_digest(CONSERVATIVE): "conservative", policy_digest(CONTEXT_EFFICIENT):
                        "context_efficient"}.get((meta[BINDING_KEY] or {}).get("policy_digest") if isinstance(
                            meta[BINDING_KEY], dict) else None, "custom")
                out.append("transform-" + name)
                if EVIDENCE_KEY in meta:
                    out.append("tool-evidence")
    lr = p.get("logical_resume")
    if isinstance(lr, dict) and lr.get("capability_binding"):
        out.append("loop-capability")
    return out


def event_kinds(p: dict) -> list[str]:
    """The wire ``type`` of every run event in a payload value (in order)."""
    out = []
    for run in ((p.get("snapshot") or {}).get("run_records") or []):
        for ev in run.get("events") or []:
            e = ev.get("event") if isinstance(ev, dict) else None
            if isinstance(e, dict) and isinstance(e.get("type"), str):
                out.append(e["type"])
    return out
