"""Where a P-CANONICAL difference sits, in the payload's own terms (FORMAT.md 3.1, 3.4, 4.13-4.16, 7).

The canonical diagnosis (:mod:`.diagnose`) compares the file with the reference's re-encoding of
the typed payload. This module names the places by JSON Pointer pattern, so the names hold
whichever way the engine types a structure: the struct an object is (``DurableMemoryBindingV1``,
``LlmCostRecord``, ...), the f32 fields of FORMAT.md 4.16, the hash set
``ConfirmationPolicy.yolo_lanes``, plain-string permission rules, the ``Task.description`` alias,
cost-record timestamps, and the fields a later A3S Code release added (FORMAT.md 3.4).

Every function takes RFC 6901 pointers into the payload (``/snapshot/session/...``).
"""

from __future__ import annotations

import re

from inspector.checkpoint.slotted import fmt, join, ours, value as _fv

__all__ = ["struct_name", "f32_field", "newer_field", "is_yolo_lanes", "is_permission_rule", "is_task",
           "is_cost_timestamp", "timestamp_change", "unreproducible_order_notes", "RELEASES", "REFERENCE_RELEASE"]

#: The release the pinned reference is (FORMAT.md 0).
REFERENCE_RELEASE = "8.3.0 (06c82e9)"

_EVENT = r"^/snapshot/run_records/\d+/events/\d+/event"
_MESSAGES = r"^/(?:snapshot/session|logical_resume)/messages/\d+"
_REPORTS = r"^/(?:snapshot|logical_resume)/verification_reports/\d+"

#: Object pointer pattern -> struct name (FORMAT.md 4.1-4.15), first match wins.
_STRUCTS = tuple((re.compile(p), name) for p, name in (
    (r"^$", "SessionCheckpointPayloadV1"),
    (r"^/snapshot$", "SessionSnapshotV1"),
    (r"^/snapshot/session$", "SessionData"),
    (r"^/snapshot/session/config$", "SessionConfig"),
    (r"^/snapshot/session/config/confirmation_policy$", "ConfirmationPolicy"),
    (r"^/snapshot/session/config/permission_policy$", "PermissionPolicy"),
    (r"^/snapshot/session/config/permission_policy/(?:allow|deny|ask)/\d+$", "PermissionRule"),
    (r"^/snapshot/session/config/queue_config$", "SessionQueueConfig"),
    (r"^/snapshot/session/config/queue_config/laneHandlers/[^/]+$", "LaneHandlerConfig"),
    (r"^/snapshot/session/config/queue_config/retryPolicy$", "RetryPolicyConfig"),
    (r"^/snapshot/session/config/queue_config/rateLimit$", "RateLimitConfig"),
    (r"^/snapshot/session/config/queue_config/priorityBoost$", "PriorityBoostConfig"),
    (r"^/snapshot/session/config/security_config$", "SecurityConfig"),
    (r"^/snapshot/session/config/security_config/features$", "FeatureToggles"),
    (r"^/snapshot/session/config/auto_delegation$", "AutoDelegationConfig"),
    (r"^/snapshot/session/context_usage$", "ContextUsage"),
    (r"^/snapshot/session/llm_config$", "LlmConfigData"),
    (r"^/snapshot/session/durable_memory_binding$", "DurableMemoryBindingV1"),
    (r"^/snapshot/session/durable_memory_binding/recallPolicy$", "DurableMemoryRecallPolicy"),
    (r"^/snapshot/session/durable_memory_binding/semanticRecall$", "DurableMemorySemanticBindingV1"),
    (r"^/snapshot/session/durable_memory_binding/semanticRecall/policy$", "DurableMemorySemanticRecallPolicy"),
    (r"^/snapshot/session/durable_memory_binding/namespace$", "MemoryNamespace"),
    (r"^/snapshot/session/cognitive_package_binding$", "CognitivePackageBindingV1"),
    (r"^/snapshot/run_records/\d+/snapshot/cognitive_package_binding$", "CognitivePackageBindingV1"),
    (r"/cognitive_package_binding/knowledge$", "CognitiveKnowledgeBindingV1"),
    (r"/cognitive_package_binding/limits$", "CognitiveContextLimits"),
    (r"^/(?:logical_resume|snapshot/run_records/\d+/snapshot)/capability_binding$", "RunCapabilityBindingV1"),
    (r"^/snapshot/session/immutable_content_adapter_binding$", "ImmutableContentAdapterBindingV1"),
    (r"^/snapshot/session/config/tool_presentation_profile$", "ToolPresentationProfileV1"),
    (r"^/snapshot/session/config/tool_result_transform_policy$", "ToolResultTransformPolicyV1"),
    (r"^/snapshot/session/cost_records/\d+$", "LlmCostRecord"),
    (r"^/snapshot/session/tasks/\d+$", "Task"),
    (r"/plan/steps/\d+$", "Task"),
    (r"/goal$", "AgentGoal"),
    (r"/plan$", "ExecutionPlan"),
    (r"^/snapshot/trace_events/\d+$", "TraceEvent"),
    (r"^/snapshot/run_records/\d+/snapshot$", "RunSnapshot"),
    (r"^/snapshot/run_records/\d+$", "RunRecord"),
    (r"^/snapshot/subagent_tasks/\d+$", "SubagentTaskSnapshot"),
    (_MESSAGES + r"$", "Message"),
    (_REPORTS + r"$", "VerificationReport"),
    (_REPORTS + r"/checks/\d+$", "VerificationCheck"),
    (r"/verification_summary$", "VerificationSummary"),
    (r"^/logical_resume$", "LoopCheckpoint"),
    (r"^/logical_resume/convergence$", "LoopConvergenceState"),
    (r"/total_usage$", "TokenUsage"),
    (r"^/snapshot/artifacts/\d+$", "ToolArtifact"),
    (r"^/snapshot/run_records/\d+/events/\d+$", "RunEventRecord"),
    (r"^/snapshot/run_records/\d+/snapshot/workspace_change_set$", "RunWorkspaceChangeSet"),
    (r"/capability_binding/useGeneration$", "RunUseCapabilityGenerationV1"),
    (r"^/snapshot/subagent_tasks/\d+/progress/\d+$", "SubagentProgressEntry"),
    (_MESSAGES + r"/content/\d+(?:/content/\d+)?/source$", "ImageSource"),
    (r"^/snapshot/session/durable_memory_binding/semanticRecall/embedding$", "EmbeddingProviderDescriptor"),
    (r"^/snapshot/session/durable_memory_binding/semanticRecall/vectorIndex$", "VectorIndexDescriptor"),
    (_EVENT + r"/binding$", "CognitivePackageBindingV1"),
    (_EVENT + r"/binding/knowledge$", "CognitiveKnowledgeBindingV1"),
    (_EVENT + r"/binding/limits$", "CognitiveContextLimits"),
    (_EVENT + r"/meta$", "LlmResponseMeta"),
    (_EVENT + r"/usage$", "TokenUsage"),
    (_EVENT + r"/tasks/\d+$", "Task"),
    (_EVENT + r"/snapshot/policy$", "RunPolicyCeilingSnapshotV1"),
    (_EVENT + r"/snapshot/profile$", "ToolPresentationProfileV1"),
    (_EVENT + r"/snapshot/retrieval$", "WorkspaceRetrievalCapabilitySnapshotV1"),
    (_EVENT + r"/snapshot/toolResults$", "ToolResultContextUsageV1"),
    (_EVENT + r"/snapshot/workspace$", "WorkspaceCapabilitySnapshotV1"),
))

#: f32 fields (FORMAT.md 4.16): pointer pattern -> field name as a developer knows it.
_F32 = tuple((re.compile(p), name) for p, name in (
    (r"^/snapshot/session/config/auto_compact_threshold$", "SessionConfig.auto_compact_threshold"),
    (r"^/snapshot/session/context_usage/percent$", "ContextUsage.percent"),
    (r"^/snapshot/session/config/auto_delegation/minConfidence$", "AutoDelegationConfig.minConfidence"),
    (_EVENT + r"/importance$", "memory_stored.importance"),
    (_EVENT + r"/relevance$", "memory_recalled.relevance"),
    (_EVENT + r"/progress$", "goal_progress.progress"),
    (_EVENT + r"/percent_before$", "context_compacted.percent_before"),
    (_EVENT + r"/goal/progress$", "AgentGoal.progress"),
    (r"^/snapshot/session/durable_memory_binding/recallPolicy/minLexicalScore$",
     "DurableMemoryRecallPolicy.minLexicalScore"),
    (r"^/snapshot/session/durable_memory_binding/semanticRecall/policy/minScore$",
     "DurableMemorySemanticRecallPolicy.minScore"),
))

#: Releases named by FORMAT.md 3.4, by key.
RELEASES = {
    "8.4.0": "A3S Code 8.4.0 (2026-09-08, commit 01f421e)",
    "8.5": "A3S Code 8.5 or later (8.5.x, read at 8.5.6, commit 0473774)",
    "8.5.6": "A3S Code 8.5.6 or later (session review, commits 43e233a/2a23614)",
}

_CONVERGENCE_LATER = ("gate_continuation_count", "mutations", "open_observations", "verifier_spent",
                      "next_turn_is_verifier", "workspace_watch_bound", "workspace_porcelain", "workspace_head",
                      "workspace_stamps")

#: Fields a release after 8.3.0 added (FORMAT.md 3.4): key pointer pattern -> (struct, release key).
_NEWER = tuple((re.compile(p), struct, rel) for p, struct, rel in (
    (r"^/logical_resume/convergence/(%s)$" % "|".join(_CONVERGENCE_LATER), "LoopConvergenceState", "8.5"),
    (_REPORTS + r"/(effect_digest)$", "VerificationReport", "8.5"),
    (_MESSAGES + r"/(transcript_text|transcript_visibility)$", "Message", "8.5"),
    (r"^/snapshot/(session_review)$", "SessionSnapshotV1", "8.5.6"),
))

_YOLO = re.compile(r"^/snapshot/session/config/confirmation_policy/yolo_lanes$")
_PERMISSION_RULE = re.compile(r"^/snapshot/session/config/permission_policy/(?:allow|deny|ask)/\d+$")
_TASK = re.compile(r"^/snapshot/session/tasks/\d+$|/plan/steps/\d+$")
_COST_TIMESTAMP = re.compile(r"^/snapshot/session/cost_records/\d+/timestamp$")
_RFC3339 = re.compile(r"^\d{4}-\d\d-\d\d[Tt ]\d\d:\d\d:\d\d(\.\d+)?([Zz]|[+-]\d\d:\d\d)$")


def struct_name(pointer: str, typed: dict | None = None) -> str | None:
    """Name of the struct at object ``pointer`` (``"DurableMemoryBindingV1"``), or ``None``.

    A run event (``.../events/N/event``) is named by its ``type`` tag from ``typed`` (its
    serialized value): ``"tool_end event"``."""
    if re.match(_EVENT + "$", pointer):
        tag = typed.get("type") if isinstance(typed, dict) else None
        return f"{tag} event" if isinstance(tag, str) else "AgentEvent"
    return _lookup(_STRUCTS, pointer)


def f32_field(pointer: str) -> str | None:
    """The FORMAT.md 4.16 f32 field at ``pointer`` (``"memory_stored.importance"``), or ``None``."""
    return _lookup(_F32, pointer)


def _lookup(table, pointer: str) -> str | None:
    """The name of the first ``(pattern, name)`` row of ``table`` whose pattern is found in ``pointer``."""
    return next((name for pattern, name in table if pattern.search(pointer)), None)


def newer_field(pointer: str) -> tuple[str, str] | None:
    """``(field, release key)`` when the key at ``pointer`` is one a later release added
    (``("LoopConvergenceState.mutations", "8.5")``), else ``None``. FORMAT.md 3.4."""
    for pattern, struct, rel in _NEWER:
        m = pattern.search(pointer)
        if m:
            return f"{struct}.{m.group(1)}", rel
    return None


def is_yolo_lanes(pointer: str) -> bool:
    """True at ``ConfirmationPolicy.yolo_lanes`` (a hash set upstream, FORMAT.md 4.15)."""
    return bool(_YOLO.match(pointer))


def is_permission_rule(pointer: str) -> bool:
    """True at one ``PermissionRule`` of ``PermissionPolicy.allow``/``deny``/``ask``."""
    return bool(_PERMISSION_RULE.match(pointer))


def is_task(pointer: str) -> bool:
    """True at a ``Task`` object (session tasks, or a plan's steps)."""
    return bool(_TASK.search(pointer))


def is_cost_timestamp(pointer: str) -> bool:
    """True at ``LlmCostRecord.timestamp``."""
    return bool(_COST_TIMESTAMP.match(pointer))


def timestamp_change(text: str) -> str:
    """What the reference changes in an RFC 3339 ``text`` it writes differently (FORMAT.md 4.13):
    ``"the offset +02:00 (converted to UTC, written Z)"``, ``"the fraction .500 (written with 0, 3, 6
    or 9 digits)"``, both joined with "and", or ``"its spelling"``."""
    m = _RFC3339.match(text)
    if m is None:
        return "its spelling"
    frac, zone = m.group(1), m.group(2)
    parts = []
    if zone != "Z":
        parts.append(f"the offset {zone} (converted to UTC, written Z)")
    if (frac or "") != _chrono_fraction(frac[1:] if frac else ""):
        parts.append(f"the fraction {frac} (written with 0, 3, 6 or 9 digits: {_chrono_fraction(frac[1:]) or 'none'})")
    if text[10] != "T":
        parts.append("the date-time separator")
    return " and ".join(parts) or "its spelling"


def _chrono_fraction(digits: str) -> str:
    """chrono's ``SecondsFormat::AutoSi`` fraction for the given fraction digits (nanosecond precision)."""
    ns = int((digits + "000000000")[:9] or "0")
    if ns == 0:
        return ""
    if ns % 1_000_000 == 0:
        return f".{ns // 1_000_000:03d}"
    if ns % 1000 == 0:
        return f".{ns // 1000:06d}"
    return f".{ns:09d}"


def unreproducible_order_notes(pay: dict) -> list[str]:
    """One sentence per hash set of the decoded payload ``pay`` holding two or more elements
    (``ConfirmationPolicy.yolo_lanes``; FORMAT.md 3.1 "Order not reproducible", 7.8): the engine keeps
    the file's order, so such a set never counts as drift here, while the reference may reject even a
    genuine artifact for it. The same sentence is a P-CANONICAL note and a report note."""
    from inspector.checkpoint.schema.typed import unreproducible_sets

    notes = []
    for pointer, _n in unreproducible_sets(pay):
        node = pay
        for part in pointer.strip("/").split("/"):
            node = node[part]
        what = "(ConfirmationPolicy.yolo_lanes) holds {} lanes" if is_yolo_lanes(pointer) else "holds {} elements"
        notes.append(fmt(
            "order not reproducible: {} {} ({}): A3S Code writes this hash set in an order it cannot reproduce itself "
            "when it reads the artifact back, so the reference accepts or rejects these same bytes (P-CANONICAL) "
            "at random from one run to the next; this verdict keeps the order as written, and a rejection for "
            "this reason is not tampering", _fv(pointer, "payload", pointer, role="pointer"),
            ours(what.format(len(node))), join(", ", [_fv(x, "payload", f"{pointer}/{i}") for i, x in enumerate(node)])))
    return notes
