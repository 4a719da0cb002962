"""The turn-2 typed layouts (FORMAT.md 4.7-4.16), as the reference's ``types.rs`` declares them.

Run events (``AgentEvent``, 51 variants internally tagged by ``type``) with their enums and
harness-evidence snapshots, the ``tool_end`` metadata structs, cognitive package, Run
capability and durable-memory bindings, trace events, verification reports, cost records,
planning tasks and the ``SessionConfig`` policy objects. Fields are in declaration order
(``missing field`` and ``expected one of`` depend on it); struct names are the Rust ones
(``expected struct X``); a tagged variant's struct is named ``Enum::RustVariant``
(``struct variant AgentEvent::Start with 1 element``). Data only: :mod:`.typed` interprets it.
"""

from __future__ import annotations

from inspector.checkpoint.schema.kinds import (
    BOOL, EMPTY, F32, F64, I32, I64, NONE, PATH, STR, TIMESTAMP, U16, U32, U64, USIZE, VALUE, Enum, Field, Map,
    Opt, Set, Struct, Tagged, Untagged, Vec, camel,
)

F = Field


def _camel(name: str, fields, deny: bool = False) -> Struct:
    """A ``rename_all = "camelCase"`` struct: ``fields`` given with their Rust names."""
    return Struct(name, tuple(Field(camel(f.key), f.type, f.default, f.aliases, f.skip_if, f.never_written)
                              for f in fields), deny=deny)


def _strs(*names):
    return tuple(F(n, STR) for n in names)


def _snake_enum(name: str, *variants) -> Enum:
    return Enum(name, variants)


# -- LLM types used by events (FORMAT.md 4.4) -------------------------------------------------------
TOKEN_USAGE = Struct("TokenUsage", (
    F("prompt_tokens", USIZE), F("completion_tokens", USIZE), F("total_tokens", USIZE),
    F("cache_read_tokens", Opt(USIZE)), F("cache_write_tokens", Opt(USIZE)),
))
LLM_RESPONSE_META = Struct("LlmResponseMeta", tuple(
    F(k, Opt(t), default=None, skip_if=NONE) for k, t in (
        ("provider", STR), ("request_model", STR), ("request_url", STR), ("response_id", STR),
        ("response_model", STR), ("response_object", STR), ("first_token_ms", U64), ("duration_ms", U64))))
TOOL_PRESENTATION_MODE = _snake_enum("ToolPresentationModeV1", "adaptive", "direct", "code", "disabled")
PRESENTATION = Struct("ToolPresentationProfileV1", (F("schema", STR), F("mode", TOOL_PRESENTATION_MODE)), deny=True)

# -- enums used by events (4.7.1) ----------------------------------------------------------------------
SESSION_LANE = Enum("SessionLane", ("Control", "Query", "Execute", "Generate"))
RUN_CONTROL_OPERATION = _snake_enum("RunControlOperation", "steer", "interrupt")
TOOL_ERROR_KIND = Tagged("ToolErrorKind", "type", tuple((wire, Struct("ToolErrorKind::" + rust, fields)) for wire, rust, fields in (
    ("version_conflict", "VersionConflict", (F("path", STR), F("expected", STR), F("actual", Opt(STR)))),
    ("remote_git_conflict", "RemoteGitConflict", _strs("code", "message")),
    ("not_found", "NotFound", _strs("path")),
    ("invalid_argument", "InvalidArgument", _strs("message")),
    ("hook_denied", "HookDenied", (F("reason", STR), F("retryable", BOOL), F("retry_after_ms", Opt(U64)))),
    ("unsupported", "Unsupported", _strs("message")),
    ("timeout", "Timeout", (F("op", STR), F("duration_ms", U64))),
    ("transport", "Transport", _strs("op")),
    ("cancelled", "Cancelled", _strs("op")),
    ("partial_failure", "PartialFailure", (F("failed", USIZE), F("total", USIZE))),
    ("rate_limited", "RateLimited", (F("retry_after_ms", Opt(U64)),)),
)))

# -- harness evidence snapshots (4.7.2): camelCase + deny, all required, Options written -----------------
TOOL_REQUEST_SNAPSHOT = _camel("ToolRequestSnapshotV1", (
    F("schema", STR),
    F("origin", _snake_enum("ToolRequestOriginV1", "agent", "nested", "host_direct_trusted", "host_direct_governed",
                            "host_direct_nested_trusted", "host_direct_nested_governed")),
    F("tool_id_digest", STR), F("tool_name_digest", STR), F("arguments_bytes", U64), F("arguments_digest", STR),
    F("snapshot_digest", STR),
), deny=True)
WORKSPACE_CAPABILITY = _camel("WorkspaceCapabilitySnapshotV1", tuple(
    F(k, BOOL) for k in ("read", "write", "exec", "search", "git", "code_intelligence")), deny=True)
RUN_POLICY_CEILING = _camel("RunPolicyCeilingSnapshotV1", (
    F("permission_checker_bound", BOOL), F("permission_policy_digest", Opt(STR)),
    F("confirmation_manager_bound", BOOL), F("confirmation_policy_digest", Opt(STR)),
    F("budget_guard_bound", BOOL), F("active_skill_tool_restrictions", BOOL),
    F("max_tool_rounds", USIZE), F("max_parallel_tasks", USIZE),
    F("tool_timeout_ms", Opt(U64)), F("llm_api_timeout_ms", Opt(U64)), F("max_execution_time_ms", Opt(U64)),
), deny=True)
WORKSPACE_RETRIEVAL = _camel("WorkspaceRetrievalCapabilitySnapshotV1", (
    F("enabled", BOOL),
    F("phase", _snake_enum("WorkspaceRetrievalPhase", "disabled", "building", "ready", "degraded", "closed")),
    F("catalog_revision", U64), F("source_revision", U64), F("vector_revision", U64),
    F("coverage_bps", U16), F("model_digest", Opt(STR)),
), deny=True)
RUN_CAPABILITY_SNAPSHOT = _camel("RunCapabilitySnapshotV1", (
    F("schema", STR), F("model_visible_tool_count", USIZE), F("model_visible_tools_digest", STR),
    F("workspace", WORKSPACE_CAPABILITY), F("policy", RUN_POLICY_CEILING), F("retrieval", WORKSPACE_RETRIEVAL),
    F("snapshot_digest", STR),
), deny=True)
MODEL_PRESENTATION_SNAPSHOT = _camel("ModelPresentationSnapshotV1", (
    F("schema", STR), F("call_sequence", U64), F("profile", PRESENTATION),
    F("application", _snake_enum("ModelPresentationApplicationV1", "profiled", "auxiliary")),
    F("source_tool_count", USIZE), F("source_tool_definitions_digest", STR), F("source_estimated_tokens", USIZE),
    F("presented_tool_count", USIZE), F("presented_tool_definitions_digest", STR),
    F("presented_estimated_tokens", USIZE), F("snapshot_digest", STR),
), deny=True)
MODEL_INPUT_SNAPSHOT = _camel("ModelInputSnapshotV1", (
    F("schema", STR), F("call_sequence", U64),
    F("kind", _snake_enum("ModelInputKindV1", "completion", "streaming", "structured", "streaming_structured")),
    F("message_count", USIZE), F("content_block_count", USIZE), F("image_block_count", USIZE),
    F("tool_result_count", USIZE), F("tool_count", USIZE), F("retrieval_result_count", USIZE),
    F("retrieval_result_bytes", U64), F("retrieval_results_digest", Opt(STR)),
    F("system_bytes", U64), F("message_payload_bytes", U64), F("tool_definition_bytes", U64),
    F("structured_output_bytes", U64), F("payload_bytes", U64), F("estimated_prompt_tokens", USIZE),
    F("messages_digest", STR), F("system_digest", Opt(STR)), F("tool_definitions_digest", STR),
    F("structured_output_digest", Opt(STR)), F("input_digest", STR), F("capability_snapshot_digest", STR),
    F("snapshot_digest", STR),
), deny=True)
TOOL_RESULT_CONTEXT_USAGE = _camel("ToolResultContextUsageV1", (
    F("total_count", USIZE), F("unique_count", USIZE), F("repeated_count", USIZE),
    F("content_bytes", U64), F("repeated_content_bytes", U64),
    F("estimated_tokens", USIZE), F("repeated_estimated_tokens", USIZE),
    F("contents_digest", Opt(STR)), F("repeated_contents_digest", Opt(STR)),
), deny=True)
MODEL_USAGE_SNAPSHOT = _camel("ModelUsageSnapshotV1", (
    F("schema", STR), F("call_sequence", U64), F("input_snapshot_digest", STR),
    F("estimated_prompt_tokens", USIZE), F("reported_prompt_tokens", USIZE),
    F("reported_completion_tokens", USIZE), F("reported_total_tokens", USIZE),
    F("reported_cache_read_tokens", Opt(USIZE)), F("reported_cache_write_tokens", Opt(USIZE)),
    F("tool_results", TOOL_RESULT_CONTEXT_USAGE), F("snapshot_digest", STR),
), deny=True)

# -- tool_end metadata objects (4.7.3): read by the S-TOOLEND rules with serde_json::from_value ---------
TOOL_RESULT_TRANSFORM_BINDING = Struct("ToolResultTransformBindingV1", _strs(
    "schema", "transform_algorithm", "policy_digest", "binding_digest"), deny=True)
TOOL_RESULT_EVIDENCE = Struct("ToolResultEvidenceV1", (
    F("schema", STR), F("original_bytes", USIZE), F("projected_bytes", USIZE),
    F("original_estimated_tokens", USIZE), F("projected_estimated_tokens", USIZE), F("token_estimator", STR),
    F("transform_algorithm", Opt(STR), default=None, skip_if=NONE), F("content_digest", STR),
    F("projected_digest", Opt(STR), default=None, skip_if=NONE), F("repeat_key", STR), F("content_ref", STR),
    F("loss_mode", _snake_enum("ToolResultLossModeV1", "none", "bounded_preview", "head_tail",
                               "deterministic_transform", "composite")),
    F("byte_delta", Opt(I64), default=None, skip_if=NONE),
    F("estimated_token_delta", Opt(I64), default=None, skip_if=NONE),
), deny=True)

# -- cognitive package binding (4.8) and Run capability binding (4.9) ---------------------------------------
COGNITIVE_KNOWLEDGE = _camel("CognitiveKnowledgeBindingV1", (
    *_strs("schema", "surface_id", "format_version", "content_digest", "search_schema", "read_schema",
           "citation_schema"),
    F("lifecycle_generation", U64), F("generation_digest", STR),
), deny=True)
COGNITIVE_LIMITS = _camel("CognitiveContextLimits", (
    F("max_results", USIZE), F("max_document_bytes", USIZE), F("max_total_bytes", USIZE)), deny=True)
COGNITIVE_BINDING = _camel("CognitivePackageBindingV1", (
    F("schema", STR), F("package_id", STR), F("package_version", STR), F("lifecycle_generation", U64),
    F("generation_digest", STR), F("capability_snapshot_digest", STR),
    F("knowledge", COGNITIVE_KNOWLEDGE), F("limits", COGNITIVE_LIMITS),
), deny=True)
RUN_USE_CAPABILITY_GENERATION = _camel("RunUseCapabilityGenerationV1", (
    F("schema", STR), F("generation", U64), F("revision", STR), F("registry_revision", STR)), deny=True)
RUN_CAPABILITY_BINDING = _camel("RunCapabilityBindingV1", (
    F("schema", STR), F("capability_set_schema", STR), F("code_catalog_generation", U64),
    F("catalog_digest", STR), F("capability_ceiling_schema", STR), F("capability_ceiling_digest", STR),
    F("use_generation", Opt(RUN_USE_CAPABILITY_GENERATION), default=None, skip_if=NONE),
), deny=True)

# -- durable-memory binding (4.10) ----------------------------------------------------------------------------
MEMORY_NAMESPACE = _camel("MemoryNamespace", _strs("tenant_id", "principal_id", "scope_id"))
DURABLE_RECALL_POLICY = _camel("DurableMemoryRecallPolicy", (
    F("max_results", USIZE), F("min_lexical_score", F32), F("max_related_lookups", USIZE)))
EMBEDDING_PROVIDER = _camel("EmbeddingProviderDescriptor", (
    F("provider", STR), F("model", STR), F("revision", Opt(STR)), F("dimension", USIZE),
    F("normalization", _snake_enum("EmbeddingNormalization", "none", "unit")),
))
VECTOR_INDEX = _camel("VectorIndexDescriptor", (
    F("dimension", USIZE), F("metric", _snake_enum("VectorMetric", "cosine", "dot_product")),
    F("normalization", _snake_enum("VectorNormalization", "none", "unit")),
    F("max_records", USIZE), F("max_bytes", USIZE),
))
SEMANTIC_RECALL_POLICY = _camel("DurableMemorySemanticRecallPolicy", (
    F("candidate_limit", USIZE), F("min_score", F32)), deny=True)
SEMANTIC_BINDING = _camel("DurableMemorySemanticBindingV1", (
    F("schema", STR), F("authority_digest", STR), F("embedding", EMBEDDING_PROVIDER),
    F("embedding_execution_digest", STR), F("vector_index", VECTOR_INDEX), F("policy", SEMANTIC_RECALL_POLICY),
    F("fusion_profile", STR),
), deny=True)
DURABLE_BINDING = _camel("DurableMemoryBindingV1", (
    F("schema_version", U32), F("namespace", MEMORY_NAMESPACE),
    F("mode", _snake_enum("DurableMemoryMode", "shadow_candidates", "active_recall")),
    F("recall_policy", Opt(DURABLE_RECALL_POLICY), default=None, skip_if=NONE),
    F("retrieval_profile", STR, default="a3s.memory.lexical.word.v1"),
    F("context_id_profile", STR, default="a3s.code.memory.context.host-id.v0"),
    F("semantic_recall", Opt(SEMANTIC_BINDING), default=None, skip_if=NONE),
))

# -- trace events (4.11), verification (4.12), cost records (4.13), planning (4.14) ------------------------------
VERIFICATION_STATUS = _snake_enum("VerificationStatus", "passed", "failed", "needs_review", "skipped")
STRINGS = Vec(STR)


def _omit_empty(key: str) -> Field:
    return F(key, STRINGS, default=[], skip_if=EMPTY)


TRACE_EVENT = Struct("TraceEvent", (
    F("schema", STR), F("kind", _snake_enum("TraceEventKind", "tool_execution", "program_execution")),
    F("name", STR), F("success", BOOL), F("exit_code", I32), F("duration_ms", U64), F("output_bytes", USIZE),
    _omit_empty("metadata_keys"), _omit_empty("artifact_uris"),
    F("details", Opt(VALUE), default=None, skip_if=NONE),
))
VERIFICATION_CHECK = Struct("VerificationCheck", (
    *_strs("id", "kind", "description"), F("status", VERIFICATION_STATUS), F("required", BOOL, default=False),
    _omit_empty("suggested_tools"), _omit_empty("evidence_uris"),
    F("residual_risk", Opt(STR), default=None, skip_if=NONE),
))
VERIFICATION_REPORT = Struct("VerificationReport", (
    F("schema", STR), F("subject", STR), F("status", VERIFICATION_STATUS), F("checks", Vec(VERIFICATION_CHECK)),
    _omit_empty("residual_risks"),
))
VERIFICATION_SUMMARY = Struct("VerificationSummary", (
    F("status", VERIFICATION_STATUS), F("report_count", USIZE), F("required_check_count", USIZE),
    F("pending_required_check_count", USIZE), F("failed_check_count", USIZE), F("residual_risk_count", USIZE),
    _omit_empty("pending_subjects"), _omit_empty("failed_subjects"),
))
COST_RECORD = Struct("LlmCostRecord", (
    F("model", STR), F("provider", STR), F("prompt_tokens", USIZE), F("completion_tokens", USIZE),
    F("total_tokens", USIZE), F("cost_usd", Opt(F64)), F("timestamp", TIMESTAMP), F("session_id", Opt(STR)),
))
TASK_STATUS = _snake_enum("TaskStatus", "pending", "in_progress", "completed", "failed", "skipped", "cancelled")
TASK = Struct("Task", (
    F("id", STR), F("content", STR, aliases=("description",)), F("status", TASK_STATUS),
    F("priority", _snake_enum("TaskPriority", "high", "medium", "low"), default="medium"),
    F("tool", Opt(STR), default=None, skip_if=NONE), _omit_empty("dependencies"),
    F("success_criteria", Opt(STR), default=None, skip_if=NONE),
))
EXECUTION_PLAN = Struct("ExecutionPlan", (
    F("goal", STR), F("steps", Vec(TASK)),
    F("complexity", Enum("Complexity", ("Simple", "Medium", "Complex", "VeryComplex"))),
    F("required_tools", STRINGS), F("estimated_steps", USIZE),
))
AGENT_GOAL = Struct("AgentGoal", (
    F("description", STR), F("success_criteria", STRINGS), F("progress", F32), F("achieved", BOOL),
    F("created_at", I64), F("achieved_at", Opt(I64)),
))

# -- run events (4.7) ---------------------------------------------------------------------------------------------
_OPT_STR = dict(default=None, skip_if=NONE)
AGENT_EVENT = Tagged("AgentEvent", "type", tuple((wire, Struct("AgentEvent::" + rust, fields)) for wire, rust, fields in (
    ("agent_start", "Start", _strs("prompt")),
    ("agent_mode_changed", "AgentModeChanged", _strs("mode", "agent", "description")),
    ("turn_start", "TurnStart", (F("turn", USIZE),)),
    ("text_delta", "TextDelta", _strs("text")),
    ("reasoning_delta", "ReasoningDelta", _strs("text")),
    ("tool_start", "ToolStart", _strs("id", "name")),
    ("tool_input_delta", "ToolInputDelta", (F("id", Opt(STR), **_OPT_STR), F("delta", STR))),
    ("tool_request_bound", "ToolRequestBound", (*_strs("tool_id", "tool_name"), F("snapshot", TOOL_REQUEST_SNAPSHOT))),
    ("tool_execution_start", "ToolExecutionStart", (*_strs("id", "name"), F("args", VALUE))),
    ("tool_end", "ToolEnd", (
        *_strs("id", "name"), F("args", Opt(VALUE), default=None, skip_if=NONE), F("output", STR),
        F("exit_code", I32), F("metadata", Opt(VALUE), skip_if=NONE),
        F("error_kind", Opt(TOOL_ERROR_KIND), skip_if=NONE))),
    ("tool_output_delta", "ToolOutputDelta", _strs("id", "name", "delta")),
    ("turn_end", "TurnEnd", (F("turn", USIZE), F("usage", TOKEN_USAGE))),
    ("agent_end", "End", (F("text", STR), F("usage", TOKEN_USAGE), F("verification_summary", VERIFICATION_SUMMARY),
                          F("meta", Opt(LLM_RESPONSE_META), skip_if=NONE))),
    ("error", "Error", _strs("message")),
    ("confirmation_required", "ConfirmationRequired", (
        *_strs("tool_id", "tool_name"), F("args", VALUE), F("timeout_ms", U64))),
    ("confirmation_received", "ConfirmationReceived", (F("tool_id", STR), F("approved", BOOL), F("reason", Opt(STR)))),
    ("confirmation_timeout", "ConfirmationTimeout", _strs("tool_id", "action_taken")),
    ("external_task_pending", "ExternalTaskPending", (
        *_strs("task_id", "session_id"), F("lane", SESSION_LANE), F("command_type", STR), F("payload", VALUE),
        F("timeout_ms", U64))),
    ("external_task_completed", "ExternalTaskCompleted", (*_strs("task_id", "session_id"), F("success", BOOL))),
    ("permission_denied", "PermissionDenied", (*_strs("tool_id", "tool_name"), F("args", VALUE), F("reason", STR))),
    ("context_resolving", "ContextResolving", (F("providers", STRINGS),)),
    ("context_resolved", "ContextResolved", (F("total_items", USIZE), F("total_tokens", USIZE))),
    ("run_capability_bound", "RunCapabilityBound", (
        F("call_sequence", U64), F("snapshot", RUN_CAPABILITY_SNAPSHOT))),
    ("model_presentation_bound", "ModelPresentationBound", (F("snapshot", MODEL_PRESENTATION_SNAPSHOT),)),
    ("model_input_bound", "ModelInputBound", (F("snapshot", MODEL_INPUT_SNAPSHOT),)),
    ("model_usage_bound", "ModelUsageBound", (F("snapshot", MODEL_USAGE_SNAPSHOT),)),
    ("cognitive_context_bound", "CognitiveContextBound", (F("binding", COGNITIVE_BINDING),)),
    ("command_dead_lettered", "CommandDeadLettered", (
        *_strs("command_id", "command_type", "lane", "error"), F("attempts", U32))),
    ("command_retry", "CommandRetry", (
        *_strs("command_id", "command_type", "lane"), F("attempt", U32), F("delay_ms", U64))),
    ("queue_alert", "QueueAlert", _strs("level", "alert_type", "message")),
    ("task_updated", "TaskUpdated", (F("session_id", STR), F("tasks", Vec(TASK)))),
    ("memory_stored", "MemoryStored", (
        *_strs("memory_id", "memory_type"), F("importance", F32), F("tags", STRINGS))),
    ("memory_recalled", "MemoryRecalled", (*_strs("memory_id", "content"), F("relevance", F32))),
    ("memories_searched", "MemoriesSearched", (
        F("query", Opt(STR)), F("tags", STRINGS), F("result_count", USIZE))),
    ("memory_cleared", "MemoryCleared", (F("tier", STR), F("count", U64))),
    ("subagent_start", "SubagentStart", (
        *_strs("task_id", "session_id", "parent_session_id", "agent", "description"),
        F("started_ms", U64, default=0))),
    ("subagent_progress", "SubagentProgress", (*_strs("task_id", "session_id", "status"), F("metadata", VALUE))),
    ("subagent_end", "SubagentEnd", (
        *_strs("task_id", "session_id", "agent", "output"), F("success", BOOL), F("finished_ms", U64, default=0))),
    ("planning_start", "PlanningStart", _strs("prompt")),
    ("planning_end", "PlanningEnd", (F("plan", EXECUTION_PLAN), F("estimated_steps", USIZE))),
    ("step_start", "StepStart", (*_strs("step_id", "description"), F("step_number", USIZE), F("total_steps", USIZE))),
    ("step_end", "StepEnd", (
        F("step_id", STR), F("status", TASK_STATUS), F("step_number", USIZE), F("total_steps", USIZE))),
    ("goal_extracted", "GoalExtracted", (F("goal", AGENT_GOAL),)),
    ("goal_progress", "GoalProgress", (
        F("goal", STR), F("progress", F32), F("completed_steps", USIZE), F("total_steps", USIZE))),
    ("goal_achieved", "GoalAchieved", (F("goal", STR), F("total_steps", USIZE), F("duration_ms", I64))),
    ("context_compacted", "ContextCompacted", (
        F("session_id", STR), F("before_messages", USIZE), F("after_messages", USIZE), F("percent_before", F32),
        F("summary", Opt(STR), **_OPT_STR))),
    ("run_control_applied", "RunControlApplied", (
        F("request_id", STR), F("operation", RUN_CONTROL_OPERATION), F("turn_id", Opt(STR)),
        F("turn_revision", U64), F("input", Opt(STR), **_OPT_STR), F("reason", Opt(STR), **_OPT_STR))),
    ("persistence_failed", "PersistenceFailed", _strs("session_id", "operation", "error")),
    ("budget_threshold_hit", "BudgetThresholdHit", (
        *_strs("resource", "kind"), F("consumed", F64), F("limit", F64), F("message", Opt(STR), **_OPT_STR))),
    ("passivation_requested", "PassivationRequested", (
        F("reason", STR), F("deadline_ms", Opt(U64), **_OPT_STR))),
    ("peer_invocation", "PeerInvocation", (
        F("from_session_id", STR), F("from_tenant_id", Opt(STR), **_OPT_STR),
        F("correlation_id", Opt(STR), **_OPT_STR))),
)))

# -- SessionConfig policy objects (4.15) -----------------------------------------------------------------------------
LANE_HANDLER = Struct("LaneHandlerConfig", (
    F("mode", Enum("TaskHandlerMode", ("Internal", "External", "Hybrid"))), F("timeout_ms", U64)))
RETRY_POLICY = _camel("RetryPolicyConfig", (
    F("strategy", STR), F("max_retries", U32, default=3), F("initial_delay_ms", U64, default=100),
    F("fixed_delay_ms", Opt(U64), default=None)))
RATE_LIMIT = _camel("RateLimitConfig", (F("limit_type", STR), F("max_operations", Opt(U64), default=None)))
PRIORITY_BOOST = _camel("PriorityBoostConfig", (F("strategy", STR), F("deadline_ms", Opt(U64), default=None)))
QUEUE_CONFIG = _camel("SessionQueueConfig", (
    F("control_max_concurrency", USIZE, default=4), F("query_max_concurrency", USIZE, default=12),
    F("execute_max_concurrency", USIZE, default=4), F("generate_max_concurrency", USIZE, default=2),
    F("lane_handlers", Map(SESSION_LANE, LANE_HANDLER), default={}),
    F("enable_dlq", BOOL, default=False), F("dlq_max_size", Opt(USIZE), default=None),
    F("enable_metrics", BOOL, default=False), F("enable_alerts", BOOL, default=False),
    F("default_timeout_ms", Opt(U64), default=None), F("storage_path", Opt(PATH), default=None),
    F("retry_policy", Opt(RETRY_POLICY), default=None), F("rate_limit", Opt(RATE_LIMIT), default=None),
    F("priority_boost", Opt(PRIORITY_BOOST), default=None), F("pressure_threshold", Opt(USIZE), default=None),
    F("lane_timeouts", Map(SESSION_LANE, U64), default={}),
))
CONFIRMATION_POLICY = Struct("ConfirmationPolicy", (
    F("enabled", BOOL), F("default_timeout_ms", U64),
    F("timeout_action", Enum("TimeoutAction", ("Reject", "AutoApprove"))), F("yolo_lanes", Set(SESSION_LANE)),
))
PERMISSION_RULE = Untagged("RuleRepr", (STR, Struct("RuleRepr::Struct", (F("rule", STR),))), as_object="rule")
PERMISSION_POLICY = Struct("PermissionPolicy", (
    F("deny", Vec(PERMISSION_RULE), default=[]), F("allow", Vec(PERMISSION_RULE), default=[]),
    F("ask", Vec(PERMISSION_RULE), default=[]),
    F("default_decision", _snake_enum("PermissionDecision", "allow", "deny", "ask"), default="ask"),
    F("enabled", BOOL, default=True),
))
SECURITY_CONFIG = Struct("SecurityConfig", (
    F("enabled", BOOL), F("classification_rules", Vec(VALUE)),
    F("redaction_strategy", Enum("RedactionStrategy", ("Mask", "Remove", "Hash"))),
    F("network_whitelist", STRINGS), F("dangerous_commands", STRINGS),
    F("features", Struct("FeatureToggles", tuple(F(k, BOOL) for k in (
        "output_sanitizer", "taint_tracking", "tool_interceptor", "injection_defense")))),
))
