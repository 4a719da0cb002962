"""Typed bindings and events for mutation recipes (FORMAT.md 4.7.3, 4.8, 4.9, 4.10).

Every builder returns a *valid* value in serialized (canonical) form, with every always-written
field present and digests computed here, independently of the engine (hashlib + json), so a
recipe breaks exactly the one thing it names. Keyword arguments override fields.
"""

from __future__ import annotations

import hashlib
import json

SHA_A = "sha256:" + "a1" * 32
SHA_B = "sha256:" + "b2" * 32
SHA_C = "sha256:" + "c3" * 32
SHA_D = "sha256:" + "d4" * 32
SHA_E = "sha256:" + "e5" * 32

#: The golden session's tool_result_transform_policy (the defaults), in declared order.
GOLDEN_POLICY = {"schema": "a3s.code.tool-result-transform-policy.v1", "max_output_bytes": 102400,
                 "head_bytes": 102400, "tail_bytes": 0, "fold_repeated_lines": False,
                 "repeated_line_threshold": 3, "structured_sample_items": 0}
#: ``ToolResultTransformPolicyV1::context_efficient()``, declared order; its policy and binding
#: digests are the upstream pins of FORMAT.md 8 (``sha256:645f65e5...``, ``sha256:906e9931...``).
CONTEXT_EFFICIENT_POLICY = {"schema": "a3s.code.tool-result-transform-policy.v1", "max_output_bytes": 102400,
                            "head_bytes": 65536, "tail_bytes": 32768, "fold_repeated_lines": True,
                            "repeated_line_threshold": 3, "structured_sample_items": 32}


def _compact(value) -> bytes:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode()


def _sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


# -- cognitive package binding (4.8) -------------------------------------------------------------
def snapshot_digest(b: dict) -> str:
    """The capability snapshot digest: length-prefixed domain and identity array (FORMAT.md 4.8)."""
    k = b["knowledge"]
    j = _compact([b["packageId"], b["packageVersion"], b["lifecycleGeneration"], b["generationDigest"],
                  k["surfaceId"], k["formatVersion"], k["contentDigest"]])
    d = b"a3s.use.capability-snapshot.v1"
    return _sha(b"agentic-ontology-canonical-v1\x00" + len(d).to_bytes(8, "big") + d + len(j).to_bytes(8, "big") + j)


def cognitive(knowledge: dict | None = None, limits: dict | None = None, digest: str | None = None, **top) -> dict:
    """A valid ``CognitivePackageBindingV1``; ``digest`` replaces the recomputed snapshot digest."""
    b = {"schema": "a3s.code.cognitive-package-session-binding.v1", "packageId": "acme/research-kit",
         "packageVersion": "1.4.0", "lifecycleGeneration": 7, "generationDigest": SHA_A}
    b.update(top)
    k = {"schema": "agentic.ontology.r0-knowledge-lease-binding.v1", "surfaceId": "kb:acme/research@v1",
         "formatVersion": "okf-1", "contentDigest": SHA_B,
         "searchSchema": "a3s.use.okf-knowledge-search-request.v1",
         "readSchema": "a3s.use.okf-knowledge-read-request.v1",
         "citationSchema": "a3s.use.okf-knowledge-citation.v1",
         "lifecycleGeneration": b["lifecycleGeneration"], "generationDigest": b["generationDigest"]}
    k.update(knowledge or {})
    b["knowledge"] = k
    b["limits"] = {"maxResults": 4, "maxDocumentBytes": 6144, "maxTotalBytes": 6144, **(limits or {})}
    b["capabilitySnapshotDigest"] = digest or snapshot_digest(b)
    return b


# -- run capability binding (4.9) ----------------------------------------------------------------
def use_generation(**over) -> dict:
    return {"schema": "a3s.use.capability-snapshot-cursor.v1", "generation": 3, "revision": SHA_C,
            "registryRevision": SHA_D, **over}


def capability(use: dict | None = None, **over) -> dict:
    """A valid ``RunCapabilityBindingV1`` (``useGeneration`` only when ``use`` is given)."""
    b = {"schema": "a3s.code.run-capability-binding.v1", "capabilitySetSchema": "a3s.code.capability-set.v1",
         "codeCatalogGeneration": 12, "catalogDigest": SHA_A,
         "capabilityCeilingSchema": "a3s.code.capability-ceiling.v1", "capabilityCeilingDigest": SHA_B}
    b.update(over)
    if use is not None:
        b["useGeneration"] = use
    return b


# -- durable-memory binding (4.10) ---------------------------------------------------------------
RETRIEVAL = "a3s.memory.lexical.word-cjk-bigram.v1"
RETRIEVAL_LEGACY = "a3s.memory.lexical.word.v1"
CONTEXT_V2 = "a3s.code.memory.context.session-run-invocation-sequence-sha256.v2"
CONTEXT_V1 = "a3s.code.memory.context.session-run-sequence-sha256.v1"
CONTEXT_V0 = "a3s.code.memory.context.host-id.v0"
TENANT, PRINCIPAL = "tenant-7", "alice@example.test"


def semantic(embedding: dict | None = None, index: dict | None = None, policy: dict | None = None, **top) -> dict:
    """A valid ``DurableMemorySemanticBindingV1``."""
    b = {"schema": "a3s.code.memory.semantic-recall-binding.v1", "authorityDigest": SHA_C,
         "embedding": {"provider": "local", "model": "mini-embed", "revision": "r3", "dimension": 8,
                       "normalization": "unit", **(embedding or {})},
         "embeddingExecutionDigest": SHA_D,
         "vectorIndex": {"dimension": 8, "metric": "cosine", "normalization": "unit", "maxRecords": 1000,
                         "maxBytes": 65536, **(index or {})},
         "policy": {"candidateLimit": 20, "minScore": 0.25, **(policy or {})},
         "fusionProfile": "a3s.code.memory.hybrid.rrf-k60.v1"}
    b.update(top)
    return b


def recall_policy(**over) -> dict:
    return {"maxResults": 10, "minLexicalScore": 0.5, "maxRelatedLookups": 4, **over}


def durable(version: int = 4, namespace: dict | None = None, **over) -> dict:
    """A valid ``DurableMemoryBindingV1`` of ``version`` (profiles paired as FORMAT.md 4.10 requires;
    ``active_recall`` with a recall policy; version 5 with a semantic binding)."""
    profiles = {5: (RETRIEVAL, CONTEXT_V2), 4: (RETRIEVAL, CONTEXT_V2), 3: (RETRIEVAL, CONTEXT_V1),
                2: (RETRIEVAL, CONTEXT_V0), 1: (RETRIEVAL_LEGACY, CONTEXT_V0)}.get(version, (RETRIEVAL, CONTEXT_V2))
    b = {"schemaVersion": version,
         "namespace": {"tenantId": TENANT, "principalId": PRINCIPAL, "scopeId": "workspace-main",
                       **(namespace or {})},
         "mode": "active_recall", "recallPolicy": recall_policy(),
         "retrievalProfile": profiles[0], "contextIdProfile": profiles[1]}
    if version == 5:
        b["semanticRecall"] = semantic()
    b.update(over)
    return {k: v for k, v in b.items() if v is not None}


# -- tool_end transform binding and evidence (4.7.3) ---------------------------------------------
def policy_digest(policy: dict) -> str:
    return _sha(b"a3s.code.tool-result-transform-policy-digest.v1\x00" + _compact(policy))


def binding_digest(pdigest: str) -> str:
    schema = "a3s.code.tool-result-transform-binding.v1"
    return _sha(schema.encode() + b"\x00" + _compact(
        {"schema": schema, "transform_algorithm": "a3s.code.tool-result-transform.v1", "policy_digest": pdigest}))


def transform_binding(policy: dict = GOLDEN_POLICY, **over) -> dict:
    """A valid ``ToolResultTransformBindingV1`` for ``policy``."""
    pd = policy_digest(policy)
    return {"schema": "a3s.code.tool-result-transform-binding.v1",
            "transform_algorithm": "a3s.code.tool-result-transform.v1", "policy_digest": pd,
            "binding_digest": binding_digest(pd), **over}


def evidence(**over) -> dict:
    """A valid ``ToolResultEvidenceV1`` (``None`` values drop a field)."""
    e = {"schema": "a3s.code.tool-result-evidence.v1", "original_bytes": 2048, "projected_bytes": 2048,
         "original_estimated_tokens": 512, "projected_estimated_tokens": 512,
         "token_estimator": "utf8-bytes-ceil-div-4/v1", "transform_algorithm": "a3s.code.tool-result-transform.v1",
         "content_digest": SHA_E, "repeat_key": SHA_E, "content_ref": "artifact://tool/1", "loss_mode": "none"}
    e.update(over)
    return {k: v for k, v in e.items() if v is not None}


# -- run events (4.5, 4.7) -----------------------------------------------------------------------
def tool_end(sequence: int, metadata: dict | None) -> dict:
    event = {"type": "tool_end", "id": f"call-{sequence}", "name": "read", "output": "ok", "exit_code": 0}
    if metadata is not None:
        event["metadata"] = metadata
    return {"sequence": sequence, "timestamp_ms": 1700000000600 + sequence, "event": event}


def transformed(sequence: int, binding=None, ev=None, **extra) -> dict:
    """A ``tool_end`` whose metadata holds a transform binding and evidence (valid by default)."""
    meta = {"a3s_tool_result_transform_binding": transform_binding() if binding is None else binding,
            "a3s_tool_result_evidence": evidence() if ev is None else ev, **extra}
    return tool_end(sequence, meta)


def cognitive_event(sequence: int, binding: dict) -> dict:
    return {"sequence": sequence, "timestamp_ms": 1700000000600 + sequence,
            "event": {"type": "cognitive_context_bound", "binding": binding}}


def turn_start(sequence: int) -> dict:
    return {"sequence": sequence, "timestamp_ms": 1700000000600 + sequence,
            "event": {"type": "turn_start", "turn": 1}}
