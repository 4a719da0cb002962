"""The 15 binding rules, inner check by inner check, pinned against the Rust reference.

FORMAT.md 6.3 catalogs C (cognitive), R (capability), D and S (durable memory, semantic recall),
T (tool_end transform binding) and the S-TOOLEND evidence rules, plus L-CAPABILITY-VALID (6.4).
Each recipe starts from the golden ``with-resume`` pair, adds valid typed bindings/events
(:mod:`tests.checkpoint.rules.binding_recipes`) with exactly the defect its name says, and re-points
the whole descriptor at the new bytes, so a recipe whose rule did not fire would verify.
``order-`` recipes break two checks at once: their pin shows which one the reference reports
first (inner-check order within a catalog, rule order, event and run order).

The pins in ``data/binding_mutations.json`` are ``oracle2 verify`` verdicts. Re-record with::

    .venv/bin/python tests/checkpoint/rules/test_bindings_mutations.py --record
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import pytest

import tests.checkpoint.rules.test_rule_mutations as base
from inspector.checkpoint import Verdict, encode, verify
from tests.checkpoint.rules.binding_recipes import (
    CONTEXT_EFFICIENT_POLICY, CONTEXT_V1, CONTEXT_V2, GOLDEN_POLICY, PRINCIPAL, RETRIEVAL, RETRIEVAL_LEGACY, SHA_A,
    SHA_B, SHA_E, TENANT, binding_digest, capability, cognitive, cognitive_event, durable, evidence, policy_digest,
    recall_policy, semantic, snapshot_digest, tool_end, transform_binding, transformed, turn_start, use_generation,
)

PINS_FILE = base.HERE / "data" / "binding_mutations.json"
BAD_SHA_UPPER = "sha256:" + "AB" * 32
BAD_SHA_SHORT = "sha256:" + "ab" * 31
B = cognitive()
#: A cognitive binding at the accepted limits of catalog C.
BOUNDARY = dict(packageId="a/b", packageVersion="v" * 128, knowledge={"surfaceId": "K" + "@" * 255, "formatVersion": "f" * 64},
                limits={"maxResults": 1, "maxDocumentBytes": 1, "maxTotalBytes": 6144})


def repointed(edit) -> tuple[bytes, bytes]:
    """The golden pair with ``edit`` applied to the payload and every descriptor digest re-pointed."""
    p, d = base._golden("with-resume")
    edit(p)
    payload = encode(p)
    for name in ("snapshot", "logical_resume"):
        part = encode(p[name])
        d[name]["size_bytes"] = len(part)
        d[name]["content_digest"] = base.content_digest(part)
    d["snapshot"]["snapshot_schema_version"] = p["snapshot"]["schema_version"]
    base._redigest_evidence(d)
    d["size_bytes"] = len(payload)
    d["content_digest"] = base.content_digest(payload)
    base._redigest_descriptor(d)
    return payload, encode(d)


def _sess(p):
    return p["snapshot"]["session"]


def session(key: str, value, **more):
    """Set session fields (e.g. a binding plus ``tenant_id``/``principal``)."""
    def edit(p):
        _sess(p)[key] = value
        _sess(p).update(more)
    return edit


def durable_session(binding: dict, tenant=TENANT, principal=PRINCIPAL):
    """A session with a durable-memory binding and the identities that match it (``None``: absent)."""
    ids = {k: v for k, v in (("tenant_id", tenant), ("principal", principal)) if v is not None}
    return session("durable_memory_binding", binding, **ids)


def run(index: int = 0, events=None, cognitive_binding=None, capability_binding=None, **fields):
    """Edit run record ``index`` (a copy of run 0 named ``run-{index}`` when missing): set its events
    (``event_count`` then covers them), bindings and other snapshot ``fields``."""
    def edit(p):
        records = p["snapshot"]["run_records"]
        if index == len(records):
            records.append({"events": [], "snapshot": dict(records[0]["snapshot"], id=f"run-{index}")})
        rec = records[index]
        if events is not None:
            rec["events"] = list(events)
            rec["snapshot"]["event_count"] = events[-1]["sequence"] + 1 if events else 0
        for key, value in (("cognitive_package_binding", cognitive_binding), ("capability_binding", capability_binding)):
            if value is not None:
                rec["snapshot"][key] = value
        rec["snapshot"].update(fields)
    return edit


def loop(capability_binding):
    def edit(p):
        p["logical_resume"]["capability_binding"] = capability_binding
    return edit


def both(*edits):
    def edit(p):
        for e in edits:
            e(p)
    return edit


def _policy(policy: dict):
    def edit(p):
        _sess(p)["config"]["tool_result_transform_policy"] = dict(policy)
    return edit


def meta(sequence, metadata):
    return tool_end(sequence, metadata)


BK, EK = "a3s_tool_result_transform_binding", "a3s_tool_result_evidence"


def cog(**kw):
    return session("cognitive_package_binding", cognitive(**kw))


def runcap(**kw):
    return run(capability_binding=capability(**kw))


def sem(**kw):
    return durable_session(durable(5, semanticRecall=semantic(**kw)))


def toolend(*events, **kw):
    return run(events=list(events), **kw)


#: name -> (rule the reference reports, edit of the golden payload)
RECIPES = {
    # -- valid: every binding type present and valid (the descriptor is re-pointed, so: verified)
    "valid-all-bindings": (None, both(
        session("cognitive_package_binding", B), durable_session(durable(5)),
        run(events=[cognitive_event(0, B), transformed(1), turn_start(2), cognitive_event(3, B)],
            cognitive_binding=B, capability_binding=capability(use=use_generation())),
        loop(capability(use=use_generation())))),
    "valid-legacy-run-repeats-binding": (None, run(events=[cognitive_event(0, B), cognitive_event(1, B)])),
    "valid-durable-v4-shadow-no-policy": (None, durable_session(durable(4, mode="shadow_candidates", recallPolicy=None))),
    "valid-durable-v1-legacy": (None, durable_session(durable(1))),
    "valid-durable-v2": (None, durable_session(durable(2))),
    "valid-durable-boundaries": (None, durable_session(durable(
        5, recallPolicy=recall_policy(maxResults=100, minLexicalScore=1.0, maxRelatedLookups=100),
        semanticRecall=semantic(embedding={"dimension": 1}, index={"dimension": 1, "maxBytes": 4, "maxRecords": 1},
                                policy={"candidateLimit": 100, "minScore": 0.0})))),
    "valid-cognitive-boundaries": (None, both(cog(**BOUNDARY), run(cognitive_binding=cognitive(**BOUNDARY)))),
    "valid-capability-unchecked-generations": (None, both(
        run(capability_binding=capability(use=use_generation(generation=0), codeCatalogGeneration=0)),
        loop(capability(use=use_generation(generation=0), codeCatalogGeneration=0)))),
    "valid-metadata-without-binding-key": (None, run(events=[meta(0, {EK: None, "other": 1})])),
    "valid-metadata-not-an-object": (None, run(events=[meta(0, [transform_binding()])])),
    "valid-binding-as-sequence": (None, run(events=[meta(0, {
        BK: list(transform_binding().values()), EK: evidence()})])),
    "valid-evidence-other-estimator": (None, toolend(transformed(0, ev=evidence(token_estimator="words/v0")))),

    # -- catalog C on the session (S-COGNITIVE)
    "C1-schema": ("S-COGNITIVE", cog(schema="a3s.code.cognitive-package-session-binding.v2")),
    "C2-package-id-two-slashes": ("S-COGNITIVE", cog(packageId="acme/kit/extra")),
    "C2-package-id-uppercase": ("S-COGNITIVE", cog(packageId="Acme/kit")),
    "C2-package-id-no-slash": ("S-COGNITIVE", cog(packageId="acme")),
    "C3-version-trailing-space": ("S-COGNITIVE", cog(packageVersion="1.4.0 ")),
    "C3-version-129-bytes": ("S-COGNITIVE", cog(packageVersion="v" * 129)),
    "C4-generation-zero": ("S-COGNITIVE", cog(lifecycleGeneration=0)),
    "C5-snapshot-digest-uppercase": ("S-COGNITIVE", cog(digest=BAD_SHA_UPPER)),
    "C5-generation-digest-short": ("S-COGNITIVE", cog(generationDigest=BAD_SHA_SHORT)),
    "C6-citation-schema": ("S-COGNITIVE", cog(knowledge={"citationSchema": "a3s.use.okf-knowledge-citation.v2"})),
    "C6-knowledge-schema": ("S-COGNITIVE", cog(knowledge={"schema": "agentic.ontology.r1-knowledge-lease-binding.v1"})),
    "C7-surface-leading-dash": ("S-COGNITIVE", cog(knowledge={"surfaceId": "-kb"})),
    "C7-surface-non-ascii": ("S-COGNITIVE", cog(knowledge={"surfaceId": "kb:caf\u00e9"})),
    "C8-format-control-char": ("S-COGNITIVE", cog(knowledge={"formatVersion": "okf\u00851"})),
    "C8-format-65-bytes": ("S-COGNITIVE", cog(knowledge={"formatVersion": "f" * 65})),
    "C9-knowledge-generation-zero": ("S-COGNITIVE", cog(knowledge={"lifecycleGeneration": 0})),
    "C10-content-digest-bad-hex": ("S-COGNITIVE", cog(knowledge={"contentDigest": "sha256:" + "g" * 64})),
    "C11-max-results-5": ("S-COGNITIVE", cog(limits={"maxResults": 5})),
    "C11-max-results-0": ("S-COGNITIVE", cog(limits={"maxResults": 0})),
    "C12-max-document-bytes-6145": ("S-COGNITIVE", cog(limits={"maxDocumentBytes": 6145})),
    "C13-max-total-bytes-0": ("S-COGNITIVE", cog(limits={"maxTotalBytes": 0})),
    "C14-knowledge-generation-differs": ("S-COGNITIVE", cog(knowledge={"lifecycleGeneration": 8})),
    "C14-knowledge-digest-differs": ("S-COGNITIVE", cog(knowledge={"generationDigest": SHA_E})),
    "C15-stale-snapshot-digest": ("S-COGNITIVE", cog(digest=snapshot_digest(cognitive(packageVersion="1.3.9")))),
    "order-C2-before-C11": ("S-COGNITIVE", cog(packageId="ACME/kit", limits={"maxResults": 0})),
    "order-C5-before-C6": ("S-COGNITIVE", cog(digest=BAD_SHA_UPPER, knowledge={"readSchema": "x"})),
    "order-C11-before-C14": ("S-COGNITIVE", cog(limits={"maxResults": 0}, knowledge={"lifecycleGeneration": 8})),
    "order-C13-before-C15": ("S-COGNITIVE", cog(limits={"maxTotalBytes": 6145}, digest=SHA_E)),
    "order-C14-before-C15": ("S-COGNITIVE", cog(knowledge={"generationDigest": SHA_E}, digest=SHA_B)),

    # -- catalog C on a run (S-RUN-COGNITIVE)
    "run-C1-schema": ("S-RUN-COGNITIVE", run(cognitive_binding=cognitive(schema="x"))),
    "run-C12-limits": ("S-RUN-COGNITIVE", run(cognitive_binding=cognitive(limits={"maxDocumentBytes": 0}))),
    "run-C15-digest": ("S-RUN-COGNITIVE", run(cognitive_binding=cognitive(digest=SHA_A))),

    # -- catalog R on a run (S-RUN-CAPABILITY) and on the loop checkpoint (L-CAPABILITY-VALID)
    "R1-schema": ("S-RUN-CAPABILITY", runcap(schema="a3s.code.run-capability-binding.v2")),
    "R2-set-schema": ("S-RUN-CAPABILITY", runcap(capabilitySetSchema="a3s.code.capability-set.v0")),
    "R3-catalog-digest-uppercase": ("S-RUN-CAPABILITY", runcap(catalogDigest=BAD_SHA_UPPER)),
    "R4-ceiling-schema": ("S-RUN-CAPABILITY", runcap(capabilityCeilingSchema="a3s.code.capability-ceiling.v2")),
    "R5-ceiling-digest-short": ("S-RUN-CAPABILITY", runcap(capabilityCeilingDigest=BAD_SHA_SHORT)),
    "R6-use-schema": ("S-RUN-CAPABILITY", runcap(use=use_generation(schema="a3s.use.capability-snapshot-cursor.v2"))),
    "R7-use-revision": ("S-RUN-CAPABILITY", runcap(use=use_generation(revision="sha256:"))),
    "R8-use-registry-revision": ("S-RUN-CAPABILITY", runcap(use=use_generation(registryRevision=BAD_SHA_UPPER))),
    "order-R3-before-R4": ("S-RUN-CAPABILITY", runcap(catalogDigest="x", capabilityCeilingSchema="y")),
    "order-R5-before-R6": ("S-RUN-CAPABILITY", runcap(capabilityCeilingDigest="x", use=use_generation(schema="y"))),
    "order-R6-before-R7": ("S-RUN-CAPABILITY", runcap(use=use_generation(schema="y", revision="x"))),
    "L-R1-schema": ("L-CAPABILITY-VALID", loop(capability(schema="a3s.code.run-capability-binding.v0"))),
    "L-R3-catalog-digest": ("L-CAPABILITY-VALID", loop(capability(catalogDigest=BAD_SHA_SHORT))),
    "L-R8-use-registry-revision": ("L-CAPABILITY-VALID", loop(capability(use=use_generation(registryRevision="x")))),
    "order-run-capability-before-loop": ("S-RUN-CAPABILITY", both(
        runcap(capabilitySetSchema="x"), loop(capability(schema="y")))),
    "order-loop-capability-before-match": ("L-CAPABILITY-VALID", both(
        runcap(), loop(capability(catalogDigest="x")))),

    # -- catalogs D and S (S-DURABLE-VALID)
    "D1-retrieval-unknown": ("S-DURABLE-VALID", durable_session(durable(4, retrievalProfile="a3s.memory.bm25.v1"))),
    "D2-context-unknown": ("S-DURABLE-VALID", durable_session(durable(4, contextIdProfile="a3s.code.memory.ctx.v9"))),
    "D3-version-0": ("S-DURABLE-VALID", durable_session(durable(0))),
    "D3-version-6": ("S-DURABLE-VALID", durable_session(durable(6))),
    "D4-v1-current-retrieval": ("S-DURABLE-VALID", durable_session(durable(1, retrievalProfile=RETRIEVAL))),
    "D4-v4-legacy-retrieval": ("S-DURABLE-VALID", durable_session(durable(4, retrievalProfile=RETRIEVAL_LEGACY))),
    "D5-v3-context-v2": ("S-DURABLE-VALID", durable_session(durable(3, contextIdProfile=CONTEXT_V2))),
    "D5-v4-context-v1": ("S-DURABLE-VALID", durable_session(durable(4, contextIdProfile=CONTEXT_V1))),
    "D6-tenant-blank": ("S-DURABLE-VALID", durable_session(durable(4, {"tenantId": " \u3000"}), tenant=" \u3000")),
    "D6-principal-257-bytes": ("S-DURABLE-VALID", durable_session(durable(4, {"principalId": "p" * 257}),
                                                                  principal="p" * 257)),
    "D6-scope-258-utf8-bytes": ("S-DURABLE-VALID", durable_session(durable(4, {"scopeId": "\u00e9" * 129}))),
    "D6-scope-empty": ("S-DURABLE-VALID", durable_session(durable(4, {"scopeId": ""}))),
    "D7a-S1-schema": ("S-DURABLE-VALID", sem(schema="a3s.code.memory.semantic-recall-binding.v2")),
    "D7a-S2-authority-digest": ("S-DURABLE-VALID", sem(authorityDigest=BAD_SHA_UPPER)),
    "D7a-S3-provider-trailing-space": ("S-DURABLE-VALID", sem(embedding={"provider": "local "})),
    "D7a-S3-model-empty": ("S-DURABLE-VALID", sem(embedding={"model": ""})),
    "D7a-S4-revision-null": ("S-DURABLE-VALID", sem(embedding={"revision": None})),
    "D7a-S4-revision-control": ("S-DURABLE-VALID", sem(embedding={"revision": "r\n3"})),
    "D7a-S5-dimension-0": ("S-DURABLE-VALID", sem(embedding={"dimension": 0}, index={"dimension": 0})),
    "D7a-S5-dimension-65537": ("S-DURABLE-VALID", sem(embedding={"dimension": 65537}, index={"dimension": 65537})),
    "D7a-S6-execution-digest": ("S-DURABLE-VALID", sem(embeddingExecutionDigest="sha256:abc")),
    "D7a-S7-index-dimension": ("S-DURABLE-VALID", sem(index={"dimension": 16})),
    "D7a-S8-dot-product": ("S-DURABLE-VALID", sem(index={"metric": "dot_product"})),
    "D7a-S8-not-normalized": ("S-DURABLE-VALID", sem(index={"normalization": "none"})),
    "D7a-S9-max-records-0": ("S-DURABLE-VALID", sem(index={"maxRecords": 0})),
    "D7a-S11-max-bytes-below-one-vector": ("S-DURABLE-VALID", sem(index={"maxBytes": 31})),
    "D7a-S12-candidate-limit-101": ("S-DURABLE-VALID", sem(policy={"candidateLimit": 101})),
    "D7a-S13-min-score-1.5": ("S-DURABLE-VALID", sem(policy={"minScore": 1.5})),
    "D7a-S13-min-score-negative": ("S-DURABLE-VALID", sem(policy={"minScore": -0.25})),
    "D7a-S14-fusion": ("S-DURABLE-VALID", sem(fusionProfile="a3s.code.memory.hybrid.rrf-k30.v1")),
    "D7b-v5-shadow": ("S-DURABLE-VALID", durable_session(durable(5, mode="shadow_candidates", recallPolicy=None))),
    "D7c-v5-without-semantic": ("S-DURABLE-VALID", durable_session(durable(5, semanticRecall=None))),
    "D7d-v4-with-semantic": ("S-DURABLE-VALID", durable_session(durable(4, semanticRecall=semantic()))),
    "D8a-max-results-0": ("S-DURABLE-VALID", durable_session(durable(4, recallPolicy=recall_policy(maxResults=0)))),
    "D8a-max-results-101": ("S-DURABLE-VALID", durable_session(durable(4, recallPolicy=recall_policy(maxResults=101)))),
    "D8b-min-score-negative": ("S-DURABLE-VALID", durable_session(durable(
        4, recallPolicy=recall_policy(minLexicalScore=-0.5)))),
    "D8b-min-score-above-1": ("S-DURABLE-VALID", durable_session(durable(
        4, recallPolicy=recall_policy(minLexicalScore=1.0000001192092896)))),
    "D8c-related-lookups-101": ("S-DURABLE-VALID", durable_session(durable(
        4, recallPolicy=recall_policy(maxRelatedLookups=101)))),
    "D8d-shadow-with-policy": ("S-DURABLE-VALID", durable_session(durable(4, mode="shadow_candidates"))),
    "D8e-active-without-policy": ("S-DURABLE-VALID", durable_session(durable(4, recallPolicy=None))),
    "order-D1-before-D3": ("S-DURABLE-VALID", durable_session(durable(6, retrievalProfile="x"))),
    "order-D3-before-D6": ("S-DURABLE-VALID", durable_session(durable(7, {"tenantId": ""}))),
    "order-D6-tenant-before-scope": ("S-DURABLE-VALID", durable_session(durable(4, {"tenantId": "", "scopeId": ""}))),
    "order-D6-before-D7c": ("S-DURABLE-VALID", durable_session(durable(5, {"scopeId": " "}, semanticRecall=None))),
    "order-S-before-mode": ("S-DURABLE-VALID", durable_session(durable(
        5, mode="shadow_candidates", recallPolicy=None, semanticRecall=semantic(policy={"candidateLimit": 0})))),
    "order-S3-before-S13": ("S-DURABLE-VALID", sem(embedding={"model": " m"}, policy={"minScore": 2.0})),
    "order-D7d-before-D8": ("S-DURABLE-VALID", durable_session(durable(
        4, semanticRecall=semantic(), recallPolicy=recall_policy(maxResults=0)))),
    "order-durable-before-cognitive": ("S-DURABLE-VALID", both(
        durable_session(durable(3, contextIdProfile=CONTEXT_V2)), cog(schema="x"))),

    # -- S-DURABLE-TENANT / -PRINCIPAL
    "tenant-absent": ("S-DURABLE-TENANT", durable_session(durable(4), tenant=None)),
    "tenant-case-differs": ("S-DURABLE-TENANT", durable_session(durable(4), tenant=TENANT.upper())),
    "principal-absent": ("S-DURABLE-PRINCIPAL", durable_session(durable(4), principal=None)),
    "principal-trailing-space": ("S-DURABLE-PRINCIPAL", durable_session(durable(4), principal=PRINCIPAL + " ")),
    "order-tenant-before-principal": ("S-DURABLE-TENANT", durable_session(durable(4), tenant="t", principal="p")),
    "order-durable-valid-before-tenant": ("S-DURABLE-VALID", durable_session(durable(4, recallPolicy=None), tenant=None)),
    "order-principal-before-cognitive": ("S-DURABLE-PRINCIPAL", both(
        durable_session(durable(4), principal="p"), cog(limits={"maxResults": 9}))),

    # -- cognitive_context_bound events
    "event-C1-in-bound-run": ("S-EVENT-COGNITIVE-VALID", run(
        events=[turn_start(0), cognitive_event(1, cognitive(schema="x"))], cognitive_binding=B)),
    "event-C7-in-legacy-run": ("S-EVENT-COGNITIVE-VALID", run(
        events=[cognitive_event(0, cognitive(knowledge={"surfaceId": "kb with space"}))])),
    "event-C15-after-valid-legacy": ("S-EVENT-COGNITIVE-VALID", run(
        events=[cognitive_event(0, B), cognitive_event(1, cognitive(digest=SHA_B))])),
    "event-differs-from-run-version": ("S-EVENT-COGNITIVE-RUN", run(
        events=[cognitive_event(0, cognitive(packageVersion="1.4.1"))], cognitive_binding=B)),
    "event-differs-from-run-limits": ("S-EVENT-COGNITIVE-RUN", run(
        events=[cognitive_event(0, B), turn_start(1), cognitive_event(2, cognitive(limits={"maxResults": 3}))],
        cognitive_binding=B)),
    "legacy-second-event-differs": ("S-EVENT-COGNITIVE-LEGACY", run(
        events=[cognitive_event(0, B), cognitive_event(1, cognitive(lifecycleGeneration=8))])),
    "legacy-third-event-differs": ("S-EVENT-COGNITIVE-LEGACY", run(
        events=[cognitive_event(0, B), cognitive_event(1, B), cognitive_event(2, cognitive(limits={"maxTotalBytes": 1}))])),
    "order-event-seq-before-event-binding": ("S-EVENT-SEQ", run(
        events=[turn_start(5), cognitive_event(5, cognitive(schema="x"))])),
    "order-event-binding-before-later-seq": ("S-EVENT-COGNITIVE-VALID", run(
        events=[cognitive_event(0, cognitive(schema="x")), turn_start(4), turn_start(4)])),
    "order-event-binding-before-event-count": ("S-EVENT-COGNITIVE-VALID", both(
        run(events=[cognitive_event(0, cognitive(schema="x"))]), run(event_count=0))),
    "order-run-binding-before-event": ("S-RUN-COGNITIVE", run(
        events=[cognitive_event(0, B)], cognitive_binding=cognitive(limits={"maxResults": 0}))),
    "order-run-capability-before-run-dup": ("S-RUN-CAPABILITY", run(
        1, capability_binding=capability(schema="x"), id="source-run")),
    "order-run-dup-before-event": ("S-RUN-DUP", run(
        1, events=[cognitive_event(0, cognitive(schema="x"))], id="source-run")),
    "order-earlier-run-count-before-later-run-binding": ("S-EVENT-COUNT", both(
        run(0, events=[turn_start(0)]), run(0, events=[turn_start(0)], event_count=0),
        run(1, cognitive_binding=cognitive(schema="x")))),
    "order-later-event-count-after-earlier-run-toolend": ("S-TOOLEND-EVIDENCE-MISMATCH", both(
        run(0, events=[transformed(0, ev=evidence(schema="x"))]),
        run(1, events=[turn_start(3)], event_count=1))),

    # -- tool_end transform binding: parse (S-TOOLEND-BINDING-PARSE) and catalog T (-INVALID)
    "toolend-binding-null": ("S-TOOLEND-BINDING-PARSE", toolend(meta(0, {BK: None, EK: evidence()}))),
    "toolend-binding-string": ("S-TOOLEND-BINDING-PARSE", toolend(meta(0, {BK: "binding", EK: evidence()}))),
    "toolend-binding-missing-policy-digest": ("S-TOOLEND-BINDING-PARSE", toolend(meta(0, {
        BK: {k: v for k, v in transform_binding().items() if k != "policy_digest"}}))),
    "toolend-binding-unknown-fields": ("S-TOOLEND-BINDING-PARSE", toolend(meta(0, {
        BK: dict(transform_binding(), zeta=1, alpha=2), EK: evidence()}))),
    "toolend-binding-integer-schema": ("S-TOOLEND-BINDING-PARSE", toolend(meta(0, {
        BK: transform_binding(schema=5), EK: evidence()}))),
    "toolend-binding-short-sequence": ("S-TOOLEND-BINDING-PARSE", toolend(meta(0, {
        BK: list(transform_binding().values())[:3], EK: evidence()}))),
    "T1-schema": ("S-TOOLEND-BINDING-INVALID", toolend(transformed(0, transform_binding(
        schema="a3s.code.tool-result-transform-binding.v2")))),
    "T2-algorithm": ("S-TOOLEND-BINDING-INVALID", toolend(transformed(0, transform_binding(
        transform_algorithm="a3s.code.tool-result-transform.v0")))),
    "T3-policy-digest-uppercase": ("S-TOOLEND-BINDING-INVALID", toolend(transformed(0, transform_binding(
        policy_digest=BAD_SHA_UPPER)))),
    "T4-binding-digest-short": ("S-TOOLEND-BINDING-INVALID", toolend(transformed(0, transform_binding(
        binding_digest=BAD_SHA_SHORT)))),
    "T5-binding-digest-stale": ("S-TOOLEND-BINDING-INVALID", toolend(transformed(0, transform_binding(
        binding_digest=binding_digest(policy_digest(CONTEXT_EFFICIENT_POLICY)))))),
    "T6-other-policy": ("S-TOOLEND-BINDING-INVALID", toolend(transformed(0, transform_binding(
        CONTEXT_EFFICIENT_POLICY)))),
    "T6-matches-its-own-session-policy": (None, both(
        _policy(CONTEXT_EFFICIENT_POLICY), toolend(transformed(0, transform_binding(CONTEXT_EFFICIENT_POLICY))))),
    "order-T1-before-T3": ("S-TOOLEND-BINDING-INVALID", toolend(transformed(0, transform_binding(
        schema="x", policy_digest="y")))),
    "order-T2-before-T4": ("S-TOOLEND-BINDING-INVALID", toolend(transformed(0, transform_binding(
        transform_algorithm="x", binding_digest="y")))),
    "order-T5-before-T6": ("S-TOOLEND-BINDING-INVALID", toolend(transformed(0, transform_binding(
        CONTEXT_EFFICIENT_POLICY, binding_digest=SHA_A)))),
    "order-binding-parse-before-later-invalid": ("S-TOOLEND-BINDING-PARSE", toolend(
        meta(0, {BK: None}), transformed(1, transform_binding(schema="x")))),
    "order-binding-invalid-before-later-parse": ("S-TOOLEND-BINDING-INVALID", toolend(
        transformed(0, transform_binding(schema="x")), meta(1, {BK: None}))),
    "order-binding-invalid-before-evidence": ("S-TOOLEND-BINDING-INVALID", toolend(meta(0, {
        BK: transform_binding(binding_digest=SHA_A)}))),

    # -- Tool result evidence (S-TOOLEND-EVIDENCE-MISSING / -PARSE / -MISMATCH)
    "evidence-absent": ("S-TOOLEND-EVIDENCE-MISSING", toolend(meta(0, {BK: transform_binding()}))),
    "evidence-under-other-key": ("S-TOOLEND-EVIDENCE-MISSING", toolend(meta(0, {
        BK: transform_binding(), "a3s_tool_result_evidence_v2": evidence()}))),
    "evidence-null": ("S-TOOLEND-EVIDENCE-PARSE", toolend(meta(0, {BK: transform_binding(), EK: None}))),
    "evidence-unknown-field": ("S-TOOLEND-EVIDENCE-PARSE", toolend(transformed(0, ev=dict(evidence(), truncated=True)))),
    "evidence-missing-repeat-key": ("S-TOOLEND-EVIDENCE-PARSE", toolend(transformed(0, ev=evidence(repeat_key=None)))),
    "evidence-loss-mode-unknown": ("S-TOOLEND-EVIDENCE-PARSE", toolend(transformed(0, ev=evidence(loss_mode="lossy")))),
    "evidence-byte-delta-float": ("S-TOOLEND-EVIDENCE-PARSE", toolend(transformed(0, ev=evidence(byte_delta=1.5)))),
    "evidence-original-bytes-negative": ("S-TOOLEND-EVIDENCE-PARSE", toolend(transformed(
        0, ev=evidence(original_bytes=-1)))),
    "evidence-array": ("S-TOOLEND-EVIDENCE-PARSE", toolend(meta(0, {BK: transform_binding(), EK: [1, 2]}))),
    "evidence-schema": ("S-TOOLEND-EVIDENCE-MISMATCH", toolend(transformed(0, ev=evidence(
        schema="a3s.code.tool-result-evidence.v2")))),
    "evidence-algorithm-absent": ("S-TOOLEND-EVIDENCE-MISMATCH", toolend(transformed(
        0, ev=evidence(transform_algorithm=None)))),
    "evidence-algorithm-differs": ("S-TOOLEND-EVIDENCE-MISMATCH", toolend(transformed(
        0, ev=evidence(transform_algorithm="a3s.code.tool-result-transform.v2")))),
    "order-evidence-before-event-count": ("S-TOOLEND-EVIDENCE-MISMATCH", both(
        toolend(transformed(0, ev=evidence(schema="x"))), run(event_count=0))),
    "order-evidence-parse-before-mismatch-later": ("S-TOOLEND-EVIDENCE-PARSE", toolend(
        transformed(0, ev=evidence(loss_mode="x")), transformed(1, ev=evidence(schema="x")))),
}


def _pins() -> dict:
    return json.loads(PINS_FILE.read_text(encoding="utf-8"))


def _build(name: str) -> tuple[bytes, bytes]:
    return repointed(RECIPES[name][1])


def test_every_recipe_is_pinned():
    assert sorted(_pins()) == sorted(RECIPES)


@pytest.mark.parametrize("name", sorted(RECIPES))
def test_root_cause_matches_reference_pin(name):
    pin = _pins()[name]
    assert pin["rule"] == RECIPES[name][0]
    assert base._root(verify(*_build(name))) == pin


def test_every_binding_rule_and_inner_check_is_covered():
    rules = {rule for rule, _ in RECIPES.values()}
    assert rules >= {
        "S-DURABLE-VALID", "S-DURABLE-TENANT", "S-DURABLE-PRINCIPAL", "S-COGNITIVE", "S-RUN-COGNITIVE",
        "S-RUN-CAPABILITY", "S-EVENT-COGNITIVE-VALID", "S-EVENT-COGNITIVE-RUN", "S-EVENT-COGNITIVE-LEGACY",
        "S-TOOLEND-BINDING-PARSE", "S-TOOLEND-BINDING-INVALID", "S-TOOLEND-EVIDENCE-MISSING",
        "S-TOOLEND-EVIDENCE-PARSE", "S-TOOLEND-EVIDENCE-MISMATCH", "L-CAPABILITY-VALID"}
    checks = {name.split("-")[0] for name in RECIPES}
    assert {f"C{n}" for n in range(1, 16)} <= checks
    assert {f"R{n}" for n in range(1, 9)} <= checks
    assert {f"T{n}" for n in range(1, 7)} <= checks
    assert {"D1", "D2", "D3", "D4", "D5", "D6", "D7a", "D7b", "D7c", "D7d", "D8a", "D8b", "D8c", "D8d", "D8e"} <= checks
    assert {f"S{n}" for n in (1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 14)} <= {
        name.split("-")[1] for name in RECIPES if name.startswith("D7a-")}


P = "invalid session checkpoint payload: "
SID = '"session-checkpoint-1"'


# Inner-check order, spelled out: which of two defects the reference names (FORMAT.md 6.3 catalogs).
@pytest.mark.parametrize("name, message", [
    ("order-C2-before-C11", f"session snapshot {SID} has an invalid cognitive package binding: invalid cognitive "
                            "package binding: package id must be a canonical publisher/name identity"),
    ("order-C11-before-C14", f"session snapshot {SID} has an invalid cognitive package binding: invalid cognitive "
                             "context limits: max_results must be between 1 and 4"),
    ("order-C14-before-C15", f"session snapshot {SID} has an invalid cognitive package binding: invalid cognitive "
                             "package binding: Knowledge surface belongs to a different lifecycle generation"),
    ("order-R6-before-R7", 'run "source-run" at record 0 has an invalid capability binding: invalid Run capability '
                           "binding field 'useGeneration.schema': the schema is unsupported"),
    ("order-D1-before-D3", f"session snapshot {SID} has an invalid durable-memory binding: invalid "
                           "durableMemoryBinding.retrievalProfile: unrecognized durable-memory retrieval profile `x`"),
    ("order-S-before-mode", f"session snapshot {SID} has an invalid durable-memory binding: invalid "
                            "durableMemoryBinding.semanticRecall: invalid durable-memory semantic configuration for "
                            "policy.candidateLimit: must be between 1 and 100"),
    ("D6-scope-258-utf8-bytes", f"session snapshot {SID} has an invalid durable-memory binding: "
                                "namespace.scopeId exceeds its limit of 256 (actual: 258)"),
    ("order-T5-before-T6", f'run "source-run" event 0 in session {SID} has invalid Tool result transform binding: '
                           "Tool result transform binding_digest does not bind the exact algorithm and policy"),
    ("toolend-binding-unknown-fields", f'run "source-run" event 0 in session {SID} has malformed Tool result '
                                       "transform binding: unknown field `alpha`, expected one of `schema`, "
                                       "`transform_algorithm`, `policy_digest`, `binding_digest`"),
])
def test_inner_check_order_literal(name, message):
    assert _pins()[name]["message"] == P + message
    rc = verify(*_build(name)).root_cause
    assert rc.message == P + message


def _span_text(payload: bytes, finding) -> bytes:
    start, end = finding.locations[0].span
    return payload[start:end]


# Each failure points at the offending field; the byte span is that value in the payload file.
@pytest.mark.parametrize("name, pointer, value", [
    ("C7-surface-leading-dash", "/snapshot/session/cognitive_package_binding/knowledge/surfaceId", "-kb"),
    ("C12-max-document-bytes-6145", "/snapshot/session/cognitive_package_binding/limits/maxDocumentBytes", 6145),
    ("R5-ceiling-digest-short", "/snapshot/run_records/0/snapshot/capability_binding/capabilityCeilingDigest",
     BAD_SHA_SHORT),
    ("L-R8-use-registry-revision", "/logical_resume/capability_binding/useGeneration/registryRevision", "x"),
    ("D7a-S11-max-bytes-below-one-vector",
     "/snapshot/session/durable_memory_binding/semanticRecall/vectorIndex/maxBytes", 31),
    ("D8c-related-lookups-101", "/snapshot/session/durable_memory_binding/recallPolicy/maxRelatedLookups", 101),
    ("principal-trailing-space", "/snapshot/session/principal", PRINCIPAL + " "),
    ("event-differs-from-run-version", "/snapshot/run_records/0/events/0/event/binding/packageVersion", "1.4.1"),
    ("T3-policy-digest-uppercase",
     "/snapshot/run_records/0/events/0/event/metadata/a3s_tool_result_transform_binding/policy_digest", BAD_SHA_UPPER),
    ("evidence-algorithm-differs",
     "/snapshot/run_records/0/events/0/event/metadata/a3s_tool_result_evidence/transform_algorithm",
     "a3s.code.tool-result-transform.v2"),
    ("evidence-unknown-field", "/snapshot/run_records/0/events/0/event/metadata/a3s_tool_result_evidence/truncated",
     True),
])
def test_failure_points_at_the_field(name, pointer, value):
    payload, descriptor = _build(name)
    rc = verify(payload, descriptor).root_cause
    assert rc.locations[0].pointer == pointer
    assert _span_text(payload, rc) == encode(value)


def test_expected_and_actual_name_the_values():
    rc = verify(*_build("C15-stale-snapshot-digest")).root_cause
    assert rc.expected == snapshot_digest(B) and rc.actual == snapshot_digest(cognitive(packageVersion="1.3.9"))
    rc = verify(*_build("tenant-absent")).root_cause
    assert (rc.locations[0].pointer, rc.expected, rc.actual) == (
        "/snapshot/session/durable_memory_binding/namespace/tenantId", '"tenant-7"', "absent")
    rc = verify(*_build("T6-other-policy")).root_cause
    assert (rc.expected, rc.actual) == (policy_digest(GOLDEN_POLICY), policy_digest(CONTEXT_EFFICIENT_POLICY))
    assert [loc.pointer for loc in rc.locations][1] == "/snapshot/session/config/tool_result_transform_policy"


def test_engine_transform_digests_reproduce_the_upstream_pins():
    """FORMAT.md 8: ``context_efficient()`` policy and binding digests (declared-order JSON)."""
    from inspector.checkpoint.rules.bindings import transform_binding_digest, transform_policy_digest

    pd = transform_policy_digest(CONTEXT_EFFICIENT_POLICY)
    assert pd == "sha256:645f65e5d39e3f7aa77fade21ae2daa1e8ccbbc7a0775c94a7f2c38ec5f5b32d"
    assert transform_binding_digest(pd) == "sha256:906e9931692fa7860b7acb5fc0bb5c329f19aeb04976c913750893ad99cd5a27"
    # key order of the decoded dict does not matter: the digest uses the declared order
    assert transform_policy_digest(dict(sorted(CONTEXT_EFFICIENT_POLICY.items()))) == pd


def test_every_failure_is_reported_not_only_the_first():
    """The reference stops at its first error; the report shows every failing binding rule."""
    r = verify(*_build("order-principal-before-cognitive"))
    assert r.root_cause.rule.id == "S-DURABLE-PRINCIPAL"
    assert r.for_rule("S-COGNITIVE").failed and r.for_rule("S-DURABLE-TENANT").verdict is Verdict.PASS
    r = verify(*_build("order-durable-valid-before-tenant"))
    assert r.for_rule("S-DURABLE-TENANT").verdict is Verdict.NOT_REACHED
    r = verify(*_build("valid-all-bindings"))
    assert r.verified and all(r.for_rule(rid).verdict is Verdict.PASS for rid in (
        "S-DURABLE-VALID", "S-COGNITIVE", "S-RUN-CAPABILITY", "S-EVENT-COGNITIVE-RUN", "S-TOOLEND-EVIDENCE-MISMATCH",
        "L-CAPABILITY-VALID"))
    r = verify(*_build("C1-schema"))
    assert r.for_rule("S-DURABLE-VALID").verdict is Verdict.NOT_APPLICABLE


@pytest.mark.skipif(not base.os.path.isfile(base.ORACLE), reason="oracle2 not built here")
def test_pins_match_reference(tmp_path):
    pins = _pins()
    for name in sorted(RECIPES):
        assert base._oracle_verify(*_build(name), tmp_path) == pins[name], name


def _record() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        pins = {name: base._oracle_verify(*_build(name), Path(tmp)) for name in sorted(RECIPES)}
    PINS_FILE.write_text(json.dumps(pins, ensure_ascii=False, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    for name, pin in sorted(pins.items()):
        print(f"{name:48} {pin['rule']!s:28} {(pin['message'] or '')[36:150]}")


if __name__ == "__main__":
    if sys.argv[1:] == ["--record"]:
        _record()
    else:
        print(__doc__)
