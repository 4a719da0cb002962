"""The typed layout of payloads and descriptors, as the reference's serde derives define it.

Data only: every struct of FORMAT.md sections 3.3 and 4 with its fields in declaration order
(the order decides which ``missing field`` serde reports first and the order of ``expected
one of`` lists), serialized key, type, read default, aliases and serialize-skip rule.
:mod:`.typed` interprets these descriptions exactly like serde derive + serde_json do.

Types whose layout FORMAT.md marks as not pinned (agent events, trace events, verification
reports, cost records, planning tasks, cognitive/capability bindings, policy objects,
durable-memory binding) are :data:`VALUE`: free-form JSON, passed through, not type-checked.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = [
    "Prim", "Opt", "Vec", "Enum", "Struct", "Field", "Tagged", "Untagged",
    "STR", "BOOL", "U32", "U64", "USIZE", "I64", "F32", "F64", "VALUE",
    "PAYLOAD", "DESCRIPTOR", "SNAPSHOT", "LOOP_CHECKPOINT", "NOT_TYPE_CHECKED",
]

REQUIRED = object()  # marker: no read default (serde: "missing field")


@dataclass(frozen=True)
class Prim:
    """A serde primitive: ``str``, ``bool``, an integer width, ``f32``/``f64`` or ``Value``."""

    name: str  # "str" | "bool" | "u32" | "u64" | "usize" | "i64" | "f32" | "f64" | "value"
    expecting: str


STR = Prim("str", "a string")
BOOL = Prim("bool", "a boolean")
U32 = Prim("u32", "u32")
U64 = Prim("u64", "u64")
USIZE = Prim("usize", "usize")
I64 = Prim("i64", "i64")
F32 = Prim("f32", "f32")
F64 = Prim("f64", "f64")
VALUE = Prim("value", "any valid JSON value")


@dataclass(frozen=True)
class Opt:
    """``Option<T>``: ``null`` reads as None."""

    inner: object


@dataclass(frozen=True)
class Vec:
    """``Vec<T>``."""

    inner: object


@dataclass(frozen=True)
class Enum:
    """A unit-variant enum written as its variant name (e.g. ``"Active"``)."""

    name: str
    variants: tuple


@dataclass(frozen=True)
class Field:
    """One struct field.

    ``key``: serialized/deserialized key. ``default``: serialized form used when the key is
    missing on read (``REQUIRED`` for none; ``Option`` fields read None without one).
    ``skip_if``: when the serialized value equals one of these, the key is omitted on write
    (``skip_serializing_if``). ``never_written``: ``skip_serializing`` (``api_key``).
    """

    key: str
    type: object
    default: object = REQUIRED
    aliases: tuple = ()
    skip_if: tuple = ()
    never_written: bool = False

    def omitted_when(self, value) -> bool:
        """True when ``skip_serializing_if`` drops this serialized ``value``."""
        return any(value is s or (type(value) is type(s) and value == s) for s in self.skip_if)


@dataclass(frozen=True)
class Struct:
    """A ``#[derive(Deserialize)]`` struct; ``deny`` = ``deny_unknown_fields``."""

    name: str
    fields: tuple
    deny: bool = False

    @property
    def keys(self) -> tuple:
        """Serialized keys in declaration order (serde's ``expected one of`` list)."""
        return tuple(f.key for f in self.fields)


@dataclass(frozen=True)
class Tagged:
    """An internally tagged enum (``#[serde(tag = "type")]``): variant name -> Struct."""

    name: str
    tag: str
    variants: tuple  # ((name, Struct), ...)


@dataclass(frozen=True)
class Untagged:
    """An untagged enum: the first alternative that deserializes wins."""

    name: str
    alternatives: tuple


NONE = (None,)

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
TOKEN_USAGE = Struct("TokenUsage", (
    Field("prompt_tokens", USIZE), Field("completion_tokens", USIZE), Field("total_tokens", USIZE),
    Field("cache_read_tokens", Opt(USIZE)), Field("cache_write_tokens", Opt(USIZE)),
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
PRESENTATION = Struct("ToolPresentationProfileV1", (
    Field("schema", STR), Field("mode", Enum("ToolPresentationModeV1", ("adaptive", "direct", "code", "disabled"))),
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
    Field("queue_config", Opt(VALUE), skip_if=NONE),
    Field("confirmation_policy", Opt(VALUE), skip_if=NONE),
    Field("permission_policy", Opt(VALUE), skip_if=NONE),
    Field("enforce_active_skill_tool_restrictions", BOOL, default=False, skip_if=(False,)),
    Field("max_parallel_tasks", Opt(USIZE), default=None, skip_if=NONE),
    Field("auto_delegation", Opt(AUTO_DELEGATION), default=None, skip_if=NONE),
    Field("parent_id", Opt(STR), skip_if=NONE),
    Field("security_config", Opt(VALUE), skip_if=NONE),
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
    Field("cost_records", Vec(VALUE), default=[]),
    Field("tool_names", Vec(STR)), Field("thinking_enabled", BOOL), Field("thinking_budget", Opt(USIZE)),
    Field("created_at", I64), Field("updated_at", I64),
    Field("llm_config", Opt(LLM_CONFIG), skip_if=NONE),
    Field("tasks", Vec(VALUE), default=[], aliases=("todos",)),
    Field("parent_id", Opt(STR), skip_if=NONE),
    Field("tenant_id", Opt(STR), default=None, skip_if=NONE),
    Field("principal", Opt(STR), default=None, skip_if=NONE),
    Field("agent_template_id", Opt(STR), default=None, skip_if=NONE),
    Field("correlation_id", Opt(STR), default=None, skip_if=NONE),
    Field("durable_memory_binding", Opt(VALUE), default=None, skip_if=NONE),
    Field("cognitive_package_binding", Opt(VALUE), default=None, skip_if=NONE),
    Field("immutable_content_adapter_binding", Opt(IMMUTABLE_BINDING), default=None, skip_if=NONE),
))

# -- snapshot, runs, subagents (FORMAT.md 4.1, 4.5) --------------------------------------------
TOOL_ARTIFACT = Struct("ToolArtifact", (
    Field("artifact_id", STR), Field("artifact_uri", STR), Field("tool_name", STR), Field("content", STR),
    Field("original_bytes", USIZE), Field("shown_bytes", USIZE),
))
RUN_STATUS = Enum("RunStatus", ("created", "planning", "executing", "verifying", "completed", "failed", "cancelled"))
RUN_EVENT = Struct("RunEventRecord", (Field("sequence", USIZE), Field("timestamp_ms", U64), Field("event", VALUE)))
WORKSPACE_CHANGE_SET = Struct("RunWorkspaceChangeSet", (
    Field("base_tree", STR), Field("result_tree", STR), Field("patch_digest", STR),
    Field("patch_bytes", U64), Field("patch_base64", STR), Field("observed_at_ms", U64),
))
RUN_SNAPSHOT = Struct("RunSnapshot", (
    Field("id", STR), Field("session_id", STR), Field("status", RUN_STATUS), Field("prompt", STR),
    Field("cognitive_package_binding", Opt(VALUE), default=None, skip_if=NONE),
    Field("capability_binding", Opt(VALUE), default=None, skip_if=NONE),
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
    Field("trace_events", Vec(VALUE), default=[]),
    Field("run_records", Vec(RUN_RECORD), default=[]),
    Field("verification_reports", Vec(VALUE), default=[]),
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
    Field("capability_binding", Opt(VALUE), default=None, skip_if=NONE),
    Field("turn", USIZE), Field("messages", Vec(MESSAGE)), Field("total_usage", TOKEN_USAGE),
    Field("tool_calls_count", USIZE), Field("verification_reports", Vec(VALUE), default=[]),
    Field("convergence", CONVERGENCE, default=CONVERGENCE_DEFAULT),
    Field("checkpoint_ms", U64),
))

PAYLOAD = Struct("SessionCheckpointPayloadV1", (
    Field("schema", STR), Field("snapshot", SNAPSHOT),
    Field("logical_resume", Opt(LOOP_CHECKPOINT), default=None, skip_if=NONE),
), deny=True)

#: Free-form (not type-checked) parts of a payload, as JSON Pointer patterns ("*" = any index).
NOT_TYPE_CHECKED = (
    "/snapshot/trace_events", "/snapshot/verification_reports", "/snapshot/session/cost_records",
    "/snapshot/session/tasks", "/snapshot/session/cognitive_package_binding",
    "/snapshot/session/durable_memory_binding", "/snapshot/session/config/queue_config",
    "/snapshot/session/config/confirmation_policy", "/snapshot/session/config/permission_policy",
    "/snapshot/session/config/security_config", "/snapshot/run_records/*/events/*/event",
    "/snapshot/run_records/*/snapshot/cognitive_package_binding",
    "/snapshot/run_records/*/snapshot/capability_binding",
    "/logical_resume/capability_binding", "/logical_resume/verification_reports",
)
