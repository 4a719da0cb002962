"""The binding validators of FORMAT.md 6.3: catalogs C, R, D, S and T, as pure functions.

Each validator takes a binding in serialized form (the decoded dict, FORMAT.md 4.7.3, 4.8-4.10)
and returns the reference's first failing inner check as a :class:`Problem`, or ``None`` when
the binding is valid. The checks run in the reference's order (``codec.rs``); the ``Problem``
also says which field failed (a JSON Pointer relative to the binding) and what was expected,
so a front-end can point at it.
"""

from __future__ import annotations

import hashlib
import math
import re
from dataclasses import dataclass

import orjson

from inspector.checkpoint.digest import is_sha256, rust_trim
from inspector.checkpoint.jsontext.canonical import encode
from inspector.checkpoint.schema.typed import rust_debug_str as _q
from inspector.checkpoint.slotted import RELATIVE, Text, fmt, ours, rebased
from inspector.checkpoint.slotted import value as _fv

__all__ = [
    "Problem", "cognitive_binding_problem", "capability_binding_problem", "durable_binding_problem",
    "semantic_binding_problem", "transform_binding_problem", "transform_policy_digest",
    "transform_binding_digest", "cognitive_capability_snapshot_digest",
    "TRANSFORM_BINDING_KEY", "EVIDENCE_KEY", "EVIDENCE_SCHEMA", "TRANSFORM_ALGORITHM",
]

SHA_EXPECTED = "sha256: + 64 lowercase hex digits"


@dataclass(frozen=True)
class Problem:
    """One failed inner check.

    ``error``: the inner error's Display text (what the rule message interpolates as
    ``{error}``). ``pointer``: the failing field, a JSON Pointer relative to the binding (``""``
    for the binding as a whole). ``expected``/``actual``: for display.
    """

    error: str
    pointer: str = ""
    expected: object = None
    actual: object = None

    def __post_init__(self):
        # the validators' texts are our words, and the few that quote a value of the binding build
        # it as a slot (:func:`_rv`); a plain str here is therefore ours
        if not isinstance(self.error, Text):
            object.__setattr__(self, "error", ours(self.error))

    def under(self, prefix: str, error: str | None = None) -> "Problem":
        """The same problem seen from an enclosing value: pointer prefixed, error re-wrapped."""
        def out(t):
            return rebased(t, RELATIVE, prefix, keep_relative=True)

        return Problem(out(self.error) if error is None else error, prefix + self.pointer, out(self.expected),
                       out(self.actual))


def _rv(v, pointer: str, form=None):
    """A value of the binding at ``pointer`` (relative to the binding: :data:`~.slotted.RELATIVE`),
    as a slot of an error text; the rule rebases it (:func:`~.slotted.rebased`)."""
    return _fv(v, RELATIVE, pointer, form=form)


def _utf8_len(s: str) -> int:
    return len(s.encode("utf-8"))


_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f]")


def _has_control(s: str) -> bool:
    """Rust ``char::is_control``: Unicode category Cc (U+0000-U+001F, U+007F-U+009F)."""
    return _CONTROL.search(s) is not None


# ---------------------------------------------------------------------------------- catalog C
COGNITIVE_SCHEMA = "a3s.code.cognitive-package-session-binding.v1"
KNOWLEDGE_SCHEMAS = (
    ("schema", "agentic.ontology.r0-knowledge-lease-binding.v1"),
    ("searchSchema", "a3s.use.okf-knowledge-search-request.v1"),
    ("readSchema", "a3s.use.okf-knowledge-read-request.v1"),
    ("citationSchema", "a3s.use.okf-knowledge-citation.v1"),
)
_CANONICAL_PREFIX = b"agentic-ontology-canonical-v1\x00"
_SNAPSHOT_DIGEST_DOMAIN = b"a3s.use.capability-snapshot.v1"


#: ``publisher/name``, both non-empty, of ``a-z``, ``0-9``, ``-`` and ``_``.
_PACKAGE_ID = re.compile("[a-z0-9_-]+/[a-z0-9_-]+")


def _package_id_ok(v: str) -> bool:
    return _PACKAGE_ID.fullmatch(v) is not None


def _plain_value_ok(v: str, limit: int) -> bool:
    return bool(v) and _utf8_len(v) <= limit and rust_trim(v) == v and not _has_control(v)


#: ASCII: alphanumeric first, then alphanumeric or ``- . _ : / @``.
_MACHINE_ID = re.compile("[A-Za-z0-9][A-Za-z0-9._:/@-]*")


def _machine_id_ok(v: str, limit: int) -> bool:
    return bool(v) and _utf8_len(v) <= limit and _MACHINE_ID.fullmatch(v) is not None


def cognitive_capability_snapshot_digest(b: dict) -> str:
    """FORMAT.md 4.8 capability snapshot digest of a ``CognitivePackageBindingV1`` dict."""
    k = b["knowledge"]
    j = encode([b["packageId"], b["packageVersion"], b["lifecycleGeneration"], b["generationDigest"],
                k["surfaceId"], k["formatVersion"], k["contentDigest"]])
    h = hashlib.sha256(_CANONICAL_PREFIX)
    h.update(len(_SNAPSHOT_DIGEST_DOMAIN).to_bytes(8, "big") + _SNAPSHOT_DIGEST_DOMAIN)
    h.update(len(j).to_bytes(8, "big") + j)
    return "sha256:" + h.hexdigest()


def _first_bad_sha(b: dict, keys, prefix="") -> str | None:
    for key in keys:
        if not is_sha256(b[key]):
            return f"{prefix}/{key}"
    return None


def cognitive_binding_problem(b: dict) -> Problem | None:
    """``CognitivePackageBindingV1::validate``, catalog C (FORMAT.md 6.3, 4.8)."""
    def binding(m, pointer, expected, actual):
        return Problem("invalid cognitive package binding: " + m, pointer, expected, actual)

    def limits(m, pointer, expected, actual):
        return Problem("invalid cognitive context limits: " + m, pointer, expected, actual)

    if b["schema"] != COGNITIVE_SCHEMA:
        return binding("session binding schema is unsupported", "/schema", COGNITIVE_SCHEMA, b["schema"])
    if not _package_id_ok(b["packageId"]):
        return binding("package id must be a canonical publisher/name identity", "/packageId",
                       "publisher/name of a-z, 0-9, - and _", b["packageId"])
    if not _plain_value_ok(b["packageVersion"], 128):
        return binding("package version is invalid", "/packageVersion",
                       "1-128 bytes, trimmed, no control characters", b["packageVersion"])
    if b["lifecycleGeneration"] == 0:
        return binding("lifecycle generation must be an exact non-zero generation", "/lifecycleGeneration", ">= 1", 0)
    bad = _first_bad_sha(b, ("generationDigest", "capabilitySnapshotDigest"))
    if bad:
        return binding("generation and capability snapshot identities must be SHA-256 digests", bad,
                       SHA_EXPECTED, b[bad[1:]])
    k = b["knowledge"]
    for key, want in KNOWLEDGE_SCHEMAS:
        if k[key] != want:
            return binding("Knowledge schema negotiation is not the exact R0 typed search/read/citation contract",
                           f"/knowledge/{key}", want, k[key])
    if not _machine_id_ok(k["surfaceId"], 256):
        return binding("Knowledge surface id is invalid", "/knowledge/surfaceId",
                       "1-256 ASCII bytes: alphanumeric first, then alphanumeric or - . _ : / @", k["surfaceId"])
    if not _plain_value_ok(k["formatVersion"], 64):
        return binding("Knowledge format version is invalid", "/knowledge/formatVersion",
                       "1-64 bytes, trimmed, no control characters", k["formatVersion"])
    if k["lifecycleGeneration"] == 0:
        return binding("lifecycle generation must be an exact non-zero generation", "/knowledge/lifecycleGeneration",
                       ">= 1", 0)
    bad = _first_bad_sha(k, ("contentDigest", "generationDigest"), "/knowledge")
    if bad:
        return binding("Knowledge content and generation identities must be SHA-256 digests", bad,
                       SHA_EXPECTED, k[bad.rsplit("/", 1)[1]])
    lim = b["limits"]
    for key, name, hi in (("maxResults", "max_results", 4), ("maxDocumentBytes", "max_document_bytes", 6144),
                          ("maxTotalBytes", "max_total_bytes", 6144)):
        if not 1 <= lim[key] <= hi:
            return limits(f"{name} must be between 1 and {hi}", f"/limits/{key}", f"1..{hi}", lim[key])
    if k["lifecycleGeneration"] != b["lifecycleGeneration"]:
        return binding("Knowledge surface belongs to a different lifecycle generation", "/knowledge/lifecycleGeneration",
                       b["lifecycleGeneration"], k["lifecycleGeneration"])
    if k["generationDigest"] != b["generationDigest"]:
        return binding("Knowledge surface belongs to a different lifecycle generation", "/knowledge/generationDigest",
                       b["generationDigest"], k["generationDigest"])
    want = cognitive_capability_snapshot_digest(b)
    if b["capabilitySnapshotDigest"] != want:
        return binding("capability snapshot digest does not bind this package, generation, and Knowledge surface",
                       # the digest the engine computed stands where the stated one does: judged by that place
                       "/capabilitySnapshotDigest", _rv(want, "/capabilitySnapshotDigest"), b["capabilitySnapshotDigest"])
    return None


# ---------------------------------------------------------------------------------- catalog R
_R_SCHEMA = "the schema is unsupported"
_R_DIGEST = "the value is not a canonical lowercase SHA-256 digest"


def capability_binding_problem(b: dict) -> Problem | None:
    """``RunCapabilityBindingV1::validate``, catalog R (FORMAT.md 6.3, 4.9)."""
    def field(name, message, expected, actual):
        return Problem(f"invalid Run capability binding field '{name}': {message}", "/" + name.replace(".", "/"),
                       expected, actual)

    checks = [("schema", "a3s.code.run-capability-binding.v1"), ("capabilitySetSchema", "a3s.code.capability-set.v1"),
              ("catalogDigest", None), ("capabilityCeilingSchema", "a3s.code.capability-ceiling.v1"),
              ("capabilityCeilingDigest", None)]
    use = b.get("useGeneration")
    values = dict(b)
    if use is not None:
        checks += [("useGeneration.schema", "a3s.use.capability-snapshot-cursor.v1"),
                   ("useGeneration.revision", None), ("useGeneration.registryRevision", None)]
        values.update({"useGeneration." + k: v for k, v in use.items()})
    for name, want in checks:
        v = values[name]
        if want is None and not is_sha256(v):
            return field(name, _R_DIGEST, SHA_EXPECTED, v)
        if want is not None and v != want:
            return field(name, _R_SCHEMA, want, v)
    return None


# ---------------------------------------------------------------------------------- catalog S
SEMANTIC_SCHEMA = "a3s.code.memory.semantic-recall-binding.v1"
FUSION_PROFILE = "a3s.code.memory.hybrid.rrf-k60.v1"
MAX_QUERY_LIMIT = 100
_TEXT_RULE = "must be bounded, trimmed, non-empty text without control characters"


def semantic_binding_problem(b: dict) -> Problem | None:
    """``DurableMemorySemanticBindingV1::validate``, catalog S (FORMAT.md 6.3, 4.10)."""
    def bad(field, reason, expected, actual):
        pointer = "/" + field.split(".", 1)[1].replace(".", "/") if field.startswith("binding.") else \
            "/" + field.replace(".", "/")
        return Problem(f"invalid durable-memory semantic configuration for {field}: {reason}", pointer, expected, actual)

    def text_ok(v):
        return bool(v) and _utf8_len(v) <= 256 and rust_trim(v) == v and not _has_control(v)

    if b["schema"] != SEMANTIC_SCHEMA:
        return bad("binding.schema", "is unsupported", SEMANTIC_SCHEMA, b["schema"])
    if not is_sha256(b["authorityDigest"]):
        return bad("binding.authorityDigest", "must be canonical lowercase SHA-256", SHA_EXPECTED, b["authorityDigest"])
    e = b["embedding"]
    for key in ("provider", "model"):
        if not text_ok(e[key]):
            return bad(f"binding.embedding.{key}", _TEXT_RULE, "1-256 bytes, trimmed, no control characters", e[key])
    if e["revision"] is None:
        return bad("binding.embedding.revision", "is required for durable semantic serving", "a revision", None)
    if not text_ok(e["revision"]):
        return bad("binding.embedding.revision", _TEXT_RULE, "1-256 bytes, trimmed, no control characters",
                   e["revision"])
    if not 1 <= e["dimension"] <= 65536:
        return bad("binding.embedding.dimension", "must be between 1 and 65536", "1..65536", e["dimension"])
    if not is_sha256(b["embeddingExecutionDigest"]):
        return bad("binding.embeddingExecutionDigest", "must be canonical lowercase SHA-256", SHA_EXPECTED,
                   b["embeddingExecutionDigest"])
    ix = b["vectorIndex"]
    if ix["dimension"] != e["dimension"]:
        return bad("binding.vectorIndex.dimension", "must match the embedding generation", e["dimension"],
                   ix["dimension"])
    if ix["metric"] != "cosine" or ix["normalization"] != "unit":
        return bad("binding.vectorIndex", "semantic recall v1 requires unit-normalized cosine search",
                   "metric cosine, normalization unit",
                   fmt("metric {}, normalization {}", _rv(ix["metric"], "/vectorIndex/metric"),
                       _rv(ix["normalization"], "/vectorIndex/normalization")))
    if ix["maxRecords"] == 0 or ix["maxBytes"] == 0:
        return bad("binding.vectorIndex", "record and byte budgets must be greater than zero",
                   "maxRecords >= 1 and maxBytes >= 1",
                   fmt("maxRecords {}, maxBytes {}", _rv(ix["maxRecords"], "/vectorIndex/maxRecords"),
                       _rv(ix["maxBytes"], "/vectorIndex/maxBytes")))
    if ix["dimension"] * 4 > (1 << 64) - 1:  # usize checked_mul on a 64-bit host
        return bad("binding.vectorIndex.dimension", "size overflow", "dimension * 4 <= 2^64 - 1", ix["dimension"])
    if ix["dimension"] * 4 > ix["maxBytes"]:
        return bad("binding.vectorIndex.maxBytes", "must admit at least one vector", f">= {ix['dimension'] * 4}",
                   ix["maxBytes"])
    p = b["policy"]
    if not 1 <= p["candidateLimit"] <= MAX_QUERY_LIMIT:
        return bad("policy.candidateLimit", "must be between 1 and 100", "1..100", p["candidateLimit"])
    if not _unit_interval(p["minScore"]):
        return bad("policy.minScore", "must be finite and between 0 and 1", "0..1", p["minScore"])
    if b["fusionProfile"] != FUSION_PROFILE:
        return bad("binding.fusionProfile", "is unsupported", FUSION_PROFILE, b["fusionProfile"])
    return None


def _unit_interval(x) -> bool:
    return isinstance(x, (int, float)) and math.isfinite(x) and 0.0 <= x <= 1.0


# ---------------------------------------------------------------------------------- catalog D
RETRIEVAL_CURRENT = "a3s.memory.lexical.word-cjk-bigram.v1"
RETRIEVAL_LEGACY = "a3s.memory.lexical.word.v1"
CONTEXT_V2 = "a3s.code.memory.context.session-run-invocation-sequence-sha256.v2"
CONTEXT_V1 = "a3s.code.memory.context.session-run-sequence-sha256.v1"
CONTEXT_V0 = "a3s.code.memory.context.host-id.v0"
#: schemaVersion -> (retrievalProfile, contextIdProfile, semanticRecall required)
_PAIRING = {5: (RETRIEVAL_CURRENT, CONTEXT_V2, True), 4: (RETRIEVAL_CURRENT, CONTEXT_V2, False),
            3: (RETRIEVAL_CURRENT, CONTEXT_V1, False), 2: (RETRIEVAL_CURRENT, CONTEXT_V0, False),
            1: (RETRIEVAL_LEGACY, CONTEXT_V0, False)}


def durable_binding_problem(b: dict) -> Problem | None:
    """``DurableMemoryBindingV1::validate``, catalog D (FORMAT.md 6.3, 4.10)."""
    def invalid(field, message, pointer, expected, actual):
        return Problem(fmt("invalid {}: {}", ours(field), ours(message)), pointer, expected, actual)

    rp, cp, v = b["retrievalProfile"], b["contextIdProfile"], b["schemaVersion"]
    if rp not in (RETRIEVAL_CURRENT, RETRIEVAL_LEGACY):
        return invalid("durableMemoryBinding.retrievalProfile",
                       fmt("unrecognized durable-memory retrieval profile `{}`", _rv(rp, "/retrievalProfile")),
                       "/retrievalProfile", f"{RETRIEVAL_CURRENT} or {RETRIEVAL_LEGACY}", rp)
    if cp not in (CONTEXT_V2, CONTEXT_V1, CONTEXT_V0):
        return invalid("durableMemoryBinding.contextIdProfile",
                       fmt("unrecognized durable-memory context identity profile `{}`", _rv(cp, "/contextIdProfile")),
                       "/contextIdProfile",
                       "a v2, v1 or v0 context identity profile", cp)
    if v not in _PAIRING:
        return invalid("durableMemoryBinding.schemaVersion",
                       fmt("unsupported schema version {}; expected 5 or 4, legacy 3, legacy 2, or legacy 1",
                           _rv(v, "/schemaVersion")),
                       "/schemaVersion", "1..5", v)
    want_rp, want_cp, semantic = _PAIRING[v]
    if rp != want_rp:
        return invalid("durableMemoryBinding.retrievalProfile",
                       fmt("retrieval profile `{}` is incompatible with schema version {}", _rv(rp, "/retrievalProfile"),
                           _rv(v, "/schemaVersion")), "/retrievalProfile",
                       want_rp, rp)
    if cp != want_cp:
        return invalid("durableMemoryBinding.contextIdProfile",
                       fmt("context identity profile `{}` is incompatible with schema version {}",
                           _rv(cp, "/contextIdProfile"), _rv(v, "/schemaVersion")), "/contextIdProfile",
                       want_cp, cp)
    ns = b["namespace"]
    for key in ("tenantId", "principalId", "scopeId"):
        text = ns[key]
        if not rust_trim(text):
            return invalid(f"namespace.{key}", "must not be empty", f"/namespace/{key}", "non-blank text", text)
        if _utf8_len(text) > 256:
            return Problem(f"namespace.{key} exceeds its limit of 256 (actual: {_utf8_len(text)})",
                           f"/namespace/{key}", "<= 256 bytes", ours(f"{_utf8_len(text)} bytes"))
    sr = b.get("semanticRecall")
    if semantic and sr is not None:
        inner = semantic_binding_problem(sr)
        if inner is not None:
            return inner.under("/semanticRecall", "invalid durableMemoryBinding.semanticRecall: "
                               + rebased(inner.error, RELATIVE, "/semanticRecall", keep_relative=True))
        if b["mode"] != "active_recall":
            return invalid("durableMemoryBinding.mode", "semantic recall requires active recall mode", "/mode",
                           "active_recall", b["mode"])
    elif semantic:
        return invalid("durableMemoryBinding.semanticRecall", "hybrid schema requires an exact semantic recall binding",
                       "", "a semanticRecall binding (schemaVersion 5)", ours("absent"))
    elif sr is not None:
        return invalid("durableMemoryBinding.semanticRecall", "semantic recall is incompatible with this schema version",
                       "/semanticRecall", f"no semanticRecall with schemaVersion {v}", ours("present"))
    policy = b.get("recallPolicy")
    mode = b["mode"]
    if mode == "active_recall" and policy is not None:
        if not 1 <= policy["maxResults"] <= MAX_QUERY_LIMIT:
            return invalid("recallPolicy.maxResults", "must be between 1 and 100", "/recallPolicy/maxResults",
                           "1..100", policy["maxResults"])
        if not _unit_interval(policy["minLexicalScore"]):
            return invalid("recallPolicy.minLexicalScore", "must be finite and between 0 and 1",
                           "/recallPolicy/minLexicalScore", "0..1", policy["minLexicalScore"])
        if policy["maxRelatedLookups"] > MAX_QUERY_LIMIT:
            return invalid("recallPolicy.maxRelatedLookups", "must not exceed 100", "/recallPolicy/maxRelatedLookups",
                           "<= 100", policy["maxRelatedLookups"])
    elif mode == "shadow_candidates" and policy is not None:
        return invalid("durableMemoryBinding.recallPolicy", "shadow candidate mode must not carry a recall policy",
                       "/recallPolicy", "absent", ours("present"))
    elif mode == "active_recall":
        return invalid("durableMemoryBinding.recallPolicy", "active recall mode requires a recall policy", "",
                       "a recallPolicy (mode active_recall)", ours("absent"))
    return None


# ---------------------------------------------------------------------------------- catalog T
TRANSFORM_BINDING_KEY = "a3s_tool_result_transform_binding"
EVIDENCE_KEY = "a3s_tool_result_evidence"
TRANSFORM_BINDING_SCHEMA = "a3s.code.tool-result-transform-binding.v1"
TRANSFORM_ALGORITHM = "a3s.code.tool-result-transform.v1"
EVIDENCE_SCHEMA = "a3s.code.tool-result-evidence.v1"
POLICY_DIGEST_DOMAIN = b"a3s.code.tool-result-transform-policy-digest.v1"
_POLICY_KEYS = ("schema", "max_output_bytes", "head_bytes", "tail_bytes", "fold_repeated_lines",
                "repeated_line_threshold", "structured_sample_items")


def _declared(keys, values: dict) -> bytes:
    """Compact ``serde_json::to_vec`` of a struct: keys in declared order, not sorted."""
    return orjson.dumps({k: values[k] for k in keys})


def transform_policy_digest(policy: dict) -> str:
    """``ToolResultTransformPolicyV1::digest`` (FORMAT.md 4.7.3): declared-order JSON, domain-separated."""
    return "sha256:" + hashlib.sha256(POLICY_DIGEST_DOMAIN + b"\x00" + _declared(_POLICY_KEYS, policy)).hexdigest()


def transform_binding_digest(policy_digest: str) -> str:
    """The binding digest a valid binding carries for ``policy_digest`` (FORMAT.md 4.7.3)."""
    body = _declared(("schema", "transform_algorithm", "policy_digest"), {
        "schema": TRANSFORM_BINDING_SCHEMA, "transform_algorithm": TRANSFORM_ALGORITHM, "policy_digest": policy_digest})
    return "sha256:" + hashlib.sha256(TRANSFORM_BINDING_SCHEMA.encode() + b"\x00" + body).hexdigest()


def transform_binding_problem(b: dict, policy: dict, policy_digest: str | None = None) -> Problem | None:
    """``ToolResultTransformBindingV1::validate_for_policy``, catalog T (FORMAT.md 6.3).

    ``policy_digest``: ``transform_policy_digest(policy)`` when the caller has it already."""
    if b["schema"] != TRANSFORM_BINDING_SCHEMA:
        return Problem(fmt("unsupported Tool result transform binding schema {}", _rv(b["schema"], "/schema", _q)),
                       "/schema",
                       TRANSFORM_BINDING_SCHEMA, b["schema"])
    if b["transform_algorithm"] != TRANSFORM_ALGORITHM:
        return Problem(fmt("unsupported Tool result transform algorithm {}",
                           _rv(b["transform_algorithm"], "/transform_algorithm", _q)),
                       "/transform_algorithm", TRANSFORM_ALGORITHM, b["transform_algorithm"])
    for key in ("policy_digest", "binding_digest"):
        if not is_sha256(b[key]):
            return Problem(f"Tool result transform {key} must be canonical lowercase SHA-256", f"/{key}",
                           SHA_EXPECTED, b[key])
    want = transform_binding_digest(b["policy_digest"])
    if b["binding_digest"] != want:
        return Problem("Tool result transform binding_digest does not bind the exact algorithm and policy",
                       "/binding_digest", want, b["binding_digest"])
    want = transform_policy_digest(policy) if policy_digest is None else policy_digest
    if b["policy_digest"] != want:
        return Problem("Tool result transform binding does not match the exact policy", "/policy_digest",
                       want, b["policy_digest"])
    return None
