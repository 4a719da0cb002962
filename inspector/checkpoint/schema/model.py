"""The typed layout of payloads and descriptors, as the reference's serde derives define it.

Data only: every struct of FORMAT.md sections 3.3 and 4 with its fields in declaration order
(the order decides which ``missing field`` serde reports first and the order of ``expected
one of`` lists), serialized key, type, read default, aliases and serialize-skip rule.
:mod:`.typed` interprets these descriptions exactly like serde derive + serde_json do.

Every payload type is typed, including the turn-2 pins of sections 4.7-4.16 (run events,
bindings, trace events, verification, cost records, planning, ``SessionConfig`` policy
objects; declared in :mod:`.schema_pins`). Only what the reference itself keeps as
``serde_json::Value`` is free-form: :data:`NOT_TYPE_CHECKED`.
"""

from __future__ import annotations

from inspector.checkpoint.schema.pins import (
    AGENT_EVENT, COGNITIVE_BINDING, CONFIRMATION_POLICY, COST_RECORD, DURABLE_BINDING, PERMISSION_POLICY,
    PRESENTATION, QUEUE_CONFIG, RUN_CAPABILITY_BINDING, SECURITY_CONFIG, TASK, TOKEN_USAGE, TOOL_RESULT_EVIDENCE,
    TOOL_RESULT_TRANSFORM_BINDING, TRACE_EVENT, VERIFICATION_REPORT,
)
from inspector.checkpoint.schema.kinds import (
    BOOL, EMPTY, F32, F64, I32, I64, NONE, PATH, REQUIRED, STR, TIMESTAMP, U16, U32, U64, USIZE, VALUE, Enum,
    Field, Map, Opt, Prim, Set, Struct, Tagged, Untagged, Vec,
)

__all__ = [
    "Prim", "Opt", "Vec", "Map", "Set", "Enum", "Struct", "Field", "Tagged", "Untagged", "REQUIRED",
    "STR", "PATH", "BOOL", "NONE", "EMPTY", "U16", "U32", "U64", "USIZE", "I32", "I64", "F32", "F64", "VALUE", "TIMESTAMP",
    "PAYLOAD", "DESCRIPTOR", "SNAPSHOT", "LOOP_CHECKPOINT", "NOT_TYPE_CHECKED", "ALL_TYPES", "UNORDERED_SETS",
    "AGENT_EVENT", "COGNITIVE_BINDING", "RUN_CAPABILITY_BINDING", "DURABLE_BINDING", "TRACE_EVENT",
    "VERIFICATION_REPORT", "COST_RECORD", "TASK", "QUEUE_CONFIG", "CONFIRMATION_POLICY", "PERMISSION_POLICY",
    "SECURITY_CONFIG", "TOOL_RESULT_TRANSFORM_BINDING", "TOOL_RESULT_EVIDENCE",
]


# -- descriptor (FORMAT.md 3.3) -----------------------------------------------------------
SNAPSHOT_EVIDENCE = Struct("SessionSnapshotEvidenceV1", (
    Field("schema", STR), Field("encoding", STR), Field("session_id", STR),
    Field("snapshot_schema_version", U32), Field("size_bytes", U64),
    Field("content_digest", STR), Field("evidence_digest", STR),
), deny=True)

LOGICAL_EVIDENCE = Struct("SessionLogicalResumeEvidenceV1", (
    Field("schema", STR), Field("resume_semantics", STR), Field("session_id", STR),
    Field("source_run_id", STR), Field("checkpoint_schema_version", U32),
    Field("completed_tool_rounds", U64), Field("checkpoint_ms", U64), Field("size_bytes", U64),
    Field("content_digest", STR), Field("evidence_digest", STR),
), deny=True)

DESCRIPTOR = Struct("SessionCheckpointDescriptorV1", (
    Field("schema", STR), Field("format", STR), Field("media_type", STR),
    Field("snapshot", SNAPSHOT_EVIDENCE),
    Field("logical_resume", Opt(LOGICAL_EVIDENCE), default=None, skip_if=NONE),
    Field("size_bytes", U64), Field("content_digest", STR), Field("descriptor_digest", STR),
), deny=True)

# -- LLM types (FORMAT.md 4.4) --------------------------------------------------------------
IMAGE_SOURCE = Struct("ImageSource", (Field("type", STR), Field("media_type", STR), Field("data", STR)))
TEXT_VARIANT = Struct("ContentBlock::Text", (Field("text", STR),))
IMAGE_VARIANT = Struct("ContentBlock::Image", (Field("source", IMAGE_SOURCE),))
TOOL_RESULT_CONTENT = Tagged("ToolResultContent", "type", (("text", TEXT_VARIANT), ("image", IMAGE_VARIANT)))
TOOL_RESULT_FIELD = Untagged("ToolResultContentField", (STR, Vec(TOOL_RESULT_CONTENT)))
TRUST = Enum("ToolResultTrustV1", ("trusted", "workspace_data", "external"))
CONTENT_BLOCK = Tagged("ContentBlock", "type", (
    ("text", TEXT_VARIANT),
    ("image", IMAGE_VARIANT),
    ("tool_use", Struct("ContentBlock::ToolUse", (Field("id", STR), Field("name", STR), Field("input", VALUE)))),
    ("tool_result", Struct("ContentBlock::ToolResult", (
        Field("tool_use_id", STR), Field("content", TOOL_RESULT_FIELD), Field("is_error", Opt(BOOL)),
        Field("trust", TRUST, default="workspace_data", skip_if=("workspace_data",)),
        Field("redaction_reviewed", BOOL, default=False, skip_if=(False,)),
    ))),
))
MESSAGE = Struct("Message", (
    Field("role", STR), Field("content", Vec(CONTENT_BLOCK)),
    Field("reasoning_content", Opt(STR), default=None, skip_if=NONE),
))

# -- SessionData and config (FORMAT.md 4.2, 4.3) ----------------------------------------------
TRANSFORM_POLICY_DEFAULT = {
    "schema": "a3s.code.tool-result-transform-policy.v1", "max_output_bytes": 102400,
    "head_bytes": 102400, "tail_bytes": 0, "fold_repeated_lines": False,
    "repeated_line_threshold": 3, "structured_sample_items": 0,
}
PRESENTATION_DEFAULT = {"schema": "a3s.code.tool-presentation-profile.v1", "mode": "adaptive"}
AUTO_COMPACT_THRESHOLD_DEFAULT = 0.800000011920929  # 0.80f32 widened to f64
AUTO_DELEGATION_DEFAULTS = {"enabled": False, "autoParallel": True, "allowManualDelegation": True,
                            "minConfidence": 0.7200000286102295, "maxTasks": 4}

TRANSFORM_POLICY = Struct("ToolResultTransformPolicyV1", (
    Field("schema", STR), Field("max_output_bytes", USIZE), Field("head_bytes", USIZE),
    Field("tail_bytes", USIZE), Field("fold_repeated_lines", BOOL),
    Field("repeated_line_threshold", USIZE), Field("structured_sample_items", USIZE),
), deny=True)
AUTO_DELEGATION = Struct("AutoDelegationConfig", (
    Field("enabled", BOOL, default=False),
    Field("autoParallel", BOOL, default=True, aliases=("auto_parallel",)),
    Field("allowManualDelegation", BOOL, default=True, aliases=("allow_manual_delegation",)),
    Field("minConfidence", F32, default=AUTO_DELEGATION_DEFAULTS["minConfidence"]),
    Field("maxTasks", USIZE, default=4),
))
IMMUTABLE_BINDING = Struct("ImmutableContentAdapterBindingV1", (
    Field("schema", STR), Field("authority_digest", STR), Field("maximum_bytes", U64), Field("binding_digest", STR),
), deny=True)
SESSION_CONFIG = Struct("SessionConfig", (
    Field("name", STR), Field("workspace", STR), Field("system_prompt", Opt(STR)),
    Field("max_context_length", U32), Field("auto_compact", BOOL),
    Field("auto_compact_threshold", F32, default=AUTO_COMPACT_THRESHOLD_DEFAULT),
    Field("storage_type", Enum("StorageBackend", ("memory", "file", "custom")), default="file"),
    Field("queue_config", Opt(QUEUE_CONFIG), skip_if=NONE),
    Field("confirmation_policy", Opt(CONFIRMATION_POLICY), skip_if=NONE),
    Field("permission_policy", Opt(PERMISSION_POLICY), skip_if=NONE),
    Field("enforce_active_skill_tool_restrictions", BOOL, default=False, skip_if=(False,)),
    Field("max_parallel_tasks", Opt(USIZE), default=None, skip_if=NONE),
    Field("auto_delegation", Opt(AUTO_DELEGATION), default=None, skip_if=NONE),
    Field("parent_id", Opt(STR), skip_if=NONE),
    Field("security_config", Opt(SECURITY_CONFIG), skip_if=NONE),
    Field("planning_mode", Enum("PlanningMode", ("Auto", "Disabled", "Enabled")), default="Auto"),
    Field("goal_tracking", BOOL, default=False),
    Field("tool_presentation_profile", PRESENTATION, default=PRESENTATION_DEFAULT),
    Field("tool_result_transform_policy", TRANSFORM_POLICY, default=TRANSFORM_POLICY_DEFAULT),
))
CONTEXT_USAGE = Struct("ContextUsage", (
    Field("used_tokens", USIZE), Field("max_tokens", USIZE), Field("percent", F32), Field("turns", USIZE),
))
LLM_CONFIG = Struct("LlmConfigData", (
    Field("provider", STR), Field("model", STR),
    Field("api_key", Opt(STR), default=None, never_written=True),
    Field("base_url", Opt(STR)),
))
SESSION_DATA = Struct("SessionData", (
    Field("id", STR), Field("config", SESSION_CONFIG),
    Field("state", Enum("SessionState", ("Unknown", "Active", "Paused", "Completed", "Error"))),
    Field("messages", Vec(MESSAGE)), Field("context_usage", CONTEXT_USAGE), Field("total_usage", TOKEN_USAGE),
    Field("total_cost", F64, default=0.0),
    Field("model_name", Opt(STR), skip_if=NONE),
    Field("cost_records", Vec(COST_RECORD), default=[]),
    Field("tool_names", Vec(STR)), Field("thinking_enabled", BOOL), Field("thinking_budget", Opt(USIZE)),
    Field("created_at", I64), Field("updated_at", I64),
    Field("llm_config", Opt(LLM_CONFIG), skip_if=NONE),
    Field("tasks", Vec(TASK), default=[], aliases=("todos",)),
    Field("parent_id", Opt(STR), skip_if=NONE),
    Field("tenant_id", Opt(STR), default=None, skip_if=NONE),
    Field("principal", Opt(STR), default=None, skip_if=NONE),
    Field("agent_template_id", Opt(STR), default=None, skip_if=NONE),
    Field("correlation_id", Opt(STR), default=None, skip_if=NONE),
    Field("durable_memory_binding", Opt(DURABLE_BINDING), default=None, skip_if=NONE),
    Field("cognitive_package_binding", Opt(COGNITIVE_BINDING), default=None, skip_if=NONE),
    Field("immutable_content_adapter_binding", Opt(IMMUTABLE_BINDING), default=None, skip_if=NONE),
))

# -- snapshot, runs, subagents (FORMAT.md 4.1, 4.5) --------------------------------------------
TOOL_ARTIFACT = Struct("ToolArtifact", (
    Field("artifact_id", STR), Field("artifact_uri", STR), Field("tool_name", STR), Field("content", STR),
    Field("original_bytes", USIZE), Field("shown_bytes", USIZE),
))
RUN_STATUS = Enum("RunStatus", ("created", "planning", "executing", "verifying", "completed", "failed", "cancelled"))
RUN_EVENT = Struct("RunEventRecord", (Field("sequence", USIZE), Field("timestamp_ms", U64), Field("event", AGENT_EVENT)))
WORKSPACE_CHANGE_SET = Struct("RunWorkspaceChangeSet", (
    Field("base_tree", STR), Field("result_tree", STR), Field("patch_digest", STR),
    Field("patch_bytes", U64), Field("patch_base64", STR), Field("observed_at_ms", U64),
))
RUN_SNAPSHOT = Struct("RunSnapshot", (
    Field("id", STR), Field("session_id", STR), Field("status", RUN_STATUS), Field("prompt", STR),
    Field("cognitive_package_binding", Opt(COGNITIVE_BINDING), default=None, skip_if=NONE),
    Field("capability_binding", Opt(RUN_CAPABILITY_BINDING), default=None, skip_if=NONE),
    Field("created_at_ms", U64), Field("updated_at_ms", U64),
    Field("result_text", Opt(STR), skip_if=NONE), Field("error", Opt(STR), skip_if=NONE),
    Field("event_count", USIZE),
    Field("workspace_change_set", Opt(WORKSPACE_CHANGE_SET), default=None, skip_if=NONE),
))
RUN_RECORD = Struct("RunRecord", (Field("snapshot", RUN_SNAPSHOT), Field("events", Vec(RUN_EVENT))))
SUBAGENT_PROGRESS = Struct("SubagentProgressEntry", (
    Field("timestamp_ms", U64), Field("status", STR), Field("metadata", VALUE),
))
SUBAGENT_TASK = Struct("SubagentTaskSnapshot", (
    Field("task_id", STR), Field("parent_session_id", STR), Field("child_session_id", STR),
    Field("agent", STR), Field("description", STR),
    Field("status", Enum("SubagentStatus", ("running", "completed", "failed", "cancelled"))),
    Field("started_ms", U64), Field("updated_ms", U64),
    Field("finished_ms", Opt(U64), skip_if=NONE), Field("output", Opt(STR), skip_if=NONE),
    Field("success", Opt(BOOL), skip_if=NONE), Field("progress", Vec(SUBAGENT_PROGRESS)),
))
SNAPSHOT = Struct("SessionSnapshotV1", (
    Field("schema_version", U32), Field("session", SESSION_DATA),
    Field("artifacts", Vec(TOOL_ARTIFACT), default=[]),
    Field("retained_artifact_uris", Vec(STR), default=[]),
    Field("trace_events", Vec(TRACE_EVENT), default=[]),
    Field("run_records", Vec(RUN_RECORD), default=[]),
    Field("verification_reports", Vec(VERIFICATION_REPORT), default=[]),
    Field("subagent_tasks", Vec(SUBAGENT_TASK), default=[]),
))

# -- loop checkpoint (FORMAT.md 4.6) -------------------------------------------------------------
CONVERGENCE_DEFAULT = {
    "parse_error_count": 0, "continuation_count": 0, "reasoning_only_repair_count": 0,
    "recent_tool_signatures": [], "guarded_duplicate_count": 0, "incomplete_response_stalled": False,
}
CONVERGENCE = Struct("LoopConvergenceState", (
    Field("parse_error_count", U32, default=0), Field("continuation_count", U32, default=0),
    Field("reasoning_only_repair_count", U32, default=0),
    Field("recent_tool_signatures", Vec(STR), default=[]),
    Field("guarded_duplicate_signature", Opt(STR), default=None, skip_if=NONE),
    Field("guarded_duplicate_count", U32, default=0),
    Field("last_incomplete_response_hash", Opt(STR), default=None, skip_if=NONE),
    Field("incomplete_response_stalled", BOOL, default=False),
))
LOOP_CHECKPOINT = Struct("LoopCheckpoint", (
    Field("schema_version", U32, default=0), Field("run_id", STR), Field("session_id", STR),
    Field("capability_binding", Opt(RUN_CAPABILITY_BINDING), default=None, skip_if=NONE),
    Field("turn", USIZE), Field("messages", Vec(MESSAGE)), Field("total_usage", TOKEN_USAGE),
    Field("tool_calls_count", USIZE), Field("verification_reports", Vec(VERIFICATION_REPORT), default=[]),
    Field("convergence", CONVERGENCE, default=CONVERGENCE_DEFAULT),
    Field("checkpoint_ms", U64),
))

PAYLOAD = Struct("SessionCheckpointPayloadV1", (
    Field("schema", STR), Field("snapshot", SNAPSHOT),
    Field("logical_resume", Opt(LOOP_CHECKPOINT), default=None, skip_if=NONE),
), deny=True)

#: Free-form parts of a payload (``serde_json::Value`` in the reference too), as JSON Pointer
#: patterns ("*" = any index or key). Everything else is typed.
NOT_TYPE_CHECKED = (
    "/snapshot/session/messages/*/content/*/input",
    "/snapshot/session/config/security_config/classification_rules/*",
    "/snapshot/trace_events/*/details",
    "/snapshot/subagent_tasks/*/progress/*/metadata",
    "/snapshot/run_records/*/events/*/event/args",
    "/snapshot/run_records/*/events/*/event/payload",
    "/snapshot/run_records/*/events/*/event/metadata",
    "/logical_resume/messages/*/content/*/input",
)

#: ``HashSet`` fields, as JSON Pointers: the reference writes them in hash-iteration order, so
#: with two or more elements its own re-encoding, and verdict, is not reproducible (FORMAT.md 3.1).
UNORDERED_SETS = ("/snapshot/session/config/confirmation_policy/yolo_lanes",)


def _all_types() -> tuple:
    """Every Struct/Tagged/Untagged/Enum reachable from the payload and descriptor, once each."""
    seen: dict = {}
    stack = [PAYLOAD, DESCRIPTOR, TOOL_RESULT_TRANSFORM_BINDING, TOOL_RESULT_EVIDENCE]
    while stack:
        t = stack.pop()
        if isinstance(t, (Opt, Vec, Set)):
            stack.append(t.inner)
        elif isinstance(t, Map):
            stack += [t.key, t.value]
        elif isinstance(t, (Struct, Tagged, Untagged, Enum)) and id(t) not in seen:
            seen[id(t)] = t
            if isinstance(t, Struct):
                stack += [f.type for f in t.fields]
            elif isinstance(t, Tagged):
                stack += [st for _n, st in t.variants]
            elif isinstance(t, Untagged):
                stack += list(t.alternatives)
    return tuple(seen.values())


#: Every typed struct and enum (for tests parametrized over the schema).
ALL_TYPES = _all_types()
