"""Targeted mutations of rich session payload values (FORMAT.md 6.3 catalogs C, D, S, R, T and the
typed layout of 4.7-4.16).

:func:`mutate_rich` edits a decoded valid payload (from :mod:`richgen` through ``oracle2 export``)
and returns its bytes with a label and a *target*: the inner check the edit aims at (``C7``,
``D8b``, ``S11``, ``R6``, ``T5``, ``S-TOOLEND-EVIDENCE-PARSE``, ...) or the typed-layout hazard
(``typed:wrong-type``, ``typed:unknown-key``, ``typed:alias``, ``typed:struct-as-array``,
``typed:variant-index``, ``typed:f32``, ...). Each edit is applied to one binding or event the
payload really has, so the verdict is about that edit; the reference decides what is right.
"""

from __future__ import annotations

import json
import random
import re

import orjson

import richgen as rg
from diffkit import _SENTINEL, _dumps_dup_key, _dumps_formatted, _dumps_with_raw, _parent, _pointers, encode

BAD_DIGESTS = ["sha256:" + "A" * 64, "sha256:" + "0" * 63, "sha256:" + "g" * 64, "SHA256:" + "0" * 64,
               "sha256:" + "0" * 65, "", "sha256:", "0" * 64, "sha256: " + "0" * 63]
CONTROL = "\u0085"


def _digest(rng: random.Random) -> str:
    return "sha256:%064x" % rng.getrandbits(256)


def _locations(p: dict):
    """(session, runs, lr) of a payload value."""
    snap = p["snapshot"]
    return snap["session"], snap["run_records"], p.get("logical_resume")


def _cognitive_sites(p: dict) -> list[tuple[str, dict]]:
    sess, runs, _ = _locations(p)
    sites = []
    if sess.get("cognitive_package_binding"):
        sites.append(("session", sess["cognitive_package_binding"]))
    for run in runs:
        if run["snapshot"].get("cognitive_package_binding"):
            sites.append(("run", run["snapshot"]["cognitive_package_binding"]))
        for ev in run["events"]:
            if ev["event"]["type"] == "cognitive_context_bound":
                sites.append(("event", ev["event"]["binding"]))
    return sites


def _tool_end_sites(p: dict) -> list[dict]:
    return [ev["event"]["metadata"] for run in p["snapshot"]["run_records"] for ev in run["events"]
            if ev["event"]["type"] == "tool_end" and isinstance(ev["event"].get("metadata"), dict)
            and rg.BINDING_KEY in ev["event"]["metadata"]]


def _capability_sites(p: dict) -> list[tuple[str, dict]]:
    sess, runs, lr = _locations(p)
    sites = [("run", r["snapshot"]["capability_binding"]) for r in runs if r["snapshot"].get("capability_binding")]
    if lr and lr.get("capability_binding"):
        sites.append(("loop", lr["capability_binding"]))
    return sites


# -- catalog C --------------------------------------------------------------------------------------

def _mutate_cognitive(rng: random.Random, b: dict) -> str:
    """One catalog C check broken on binding ``b`` (in place). Returns the check id."""
    k = b["knowledge"]
    c = rng.choice(["C1", "C2", "C3", "C4", "C5", "C6", "C7", "C8", "C9", "C10", "C11", "C12", "C13", "C14",
                    "C15"])
    if c == "C1":
        b["schema"] = rng.choice(["", rg.COGNITIVE_SCHEMA + "x", rg.COGNITIVE_SCHEMA.upper()])
    elif c == "C2":
        b["packageId"] = rng.choice(["Acme/pkg", "acme", "acme/", "/pkg", "acme/pkg/x", "acme/pkg ", "ácme/pkg",
                                     "acme.pkg/x", ""])
    elif c == "C3":
        b["packageVersion"] = rng.choice(["", " 1.0", "1.0 ", "x" * 129, "1" + CONTROL, "1\u0000", "\u3000"])
    elif c == "C4":
        b["lifecycleGeneration"] = 0
    elif c == "C5":
        b[rng.choice(["generationDigest", "capabilitySnapshotDigest"])] = rng.choice(BAD_DIGESTS)
    elif c == "C6":
        f = rng.choice(["schema", "searchSchema", "readSchema", "citationSchema"])
        k[f] = rng.choice(["", k[f] + ".v2", k[f].replace("v1", "v0")])
    elif c == "C7":
        k["surfaceId"] = rng.choice(["", "s" * 257, "-okf", "okf space", "ökf", "okf#1", ".a", "a\u0000"])
    elif c == "C8":
        k["formatVersion"] = rng.choice(["", "f" * 65, " r0", "r0\t", "r0" + CONTROL])
    elif c == "C9":
        k["lifecycleGeneration"] = 0
    elif c == "C10":
        k[rng.choice(["contentDigest", "generationDigest"])] = rng.choice(BAD_DIGESTS)
    elif c in ("C11", "C12", "C13"):
        f = {"C11": "maxResults", "C12": "maxDocumentBytes", "C13": "maxTotalBytes"}[c]
        hi = 4 if c == "C11" else 6144
        b["limits"][f] = rng.choice([0, hi + 1, rg.U64_MAX])
    elif c == "C14":
        if rng.random() < 0.5:
            k["lifecycleGeneration"] = b["lifecycleGeneration"] % rg.U64_MAX + 1
        else:
            k["generationDigest"] = _digest(rng)
    else:  # C15: a field under the capability digest changes, the digest is stale
        f = rng.choice(["packageVersion", "generationDigest", "contentDigest", "surfaceId", "formatVersion"])
        if f == "generationDigest":
            b[f] = k[f] = _digest(rng)
        elif f == "contentDigest":
            k[f] = _digest(rng)
        elif f == "packageVersion":
            b[f] = b[f][:100] + "-next"
        else:
            k[f] = k[f][:50] + "x"
    return c


def m_cognitive(rng, p):
    sites = _cognitive_sites(p)
    if not sites:
        return None
    where, b = rng.choice(sites)
    return f"{_mutate_cognitive(rng, b)}:{where}", None


def m_cognitive_other(rng, p):
    """A valid binding that differs from its peers: S-EVENT-COGNITIVE-RUN/-LEGACY, L-COGNITIVE-MATCH."""
    sites = _cognitive_sites(p)
    if not sites:
        return None
    where, b = rng.choice(sites)
    if sites[0][0] == "session" and rng.random() < 0.3:
        where, b = sites[0]  # the session's: L-COGNITIVE-MATCH when the resume's source run carries it
    if rng.random() < 0.5:
        lim = b["limits"]
        lim["maxResults"] = lim["maxResults"] % 4 + 1  # not under the capability digest
    else:
        b.clear()
        b.update(rg.RichGen(rng).cognitive())
    return f"cognitive-other:{where}", None


# -- catalogs D and S -------------------------------------------------------------------------------

def _ensure_durable(rng, sess) -> dict:
    if not sess.get("durable_memory_binding"):
        b = rg.RichGen(rng).durable(rng.choice([5, 4, 3, 2, 1]))
        sess["durable_memory_binding"] = b
        sess["tenant_id"], sess["principal"] = b["namespace"]["tenantId"], b["namespace"]["principalId"]
    return sess["durable_memory_binding"]


def m_durable(rng, p):
    sess = p["snapshot"]["session"]
    b = _ensure_durable(rng, sess)
    v = b["schemaVersion"]
    c = rng.choice(["D1", "D2", "D3", "D4", "D5", "D6", "D7b", "D7c", "D7d", "D8a", "D8b", "D8c", "D8d", "D8e",
                    "TENANT", "PRINCIPAL"])
    if c == "D1":
        b["retrievalProfile"] = rng.choice(["", "a3s.memory.lexical.word.v2", rg.RETRIEVAL_CURRENT.upper()])
    elif c == "D2":
        b["contextIdProfile"] = rng.choice(["", "a3s.code.memory.context.host-id.v1", rg.CONTEXT_V2 + " "])
    elif c == "D3":
        b["schemaVersion"] = rng.choice([0, 6, 99, (1 << 32) - 1])
    elif c == "D4":
        b["retrievalProfile"] = rg.RETRIEVAL_LEGACY if b["retrievalProfile"] == rg.RETRIEVAL_CURRENT \
            else rg.RETRIEVAL_CURRENT
    elif c == "D5":
        b["contextIdProfile"] = rng.choice([x for x in (rg.CONTEXT_V0, rg.CONTEXT_V1, rg.CONTEXT_V2)
                                            if x != b["contextIdProfile"]])
    elif c == "D6":
        f = rng.choice(["tenantId", "principalId", "scopeId"])
        b["namespace"][f] = rng.choice(["", " ", "\u3000\t", "x" * 257, "é" * 129])
        sess["tenant_id"], sess["principal"] = b["namespace"]["tenantId"], b["namespace"]["principalId"]
    elif c == "D7b":
        if v != 5:
            b = sess["durable_memory_binding"] = rg.RichGen(rng).durable(5)
            sess["tenant_id"], sess["principal"] = b["namespace"]["tenantId"], b["namespace"]["principalId"]
        b["mode"] = "shadow_candidates"
    elif c == "D7c":
        b.update(schemaVersion=5, retrievalProfile=rg.RETRIEVAL_CURRENT, contextIdProfile=rg.CONTEXT_V2)
        b.pop("semanticRecall", None)
    elif c == "D7d":
        if v == 5:
            b["schemaVersion"] = 4
        else:
            b["semanticRecall"] = rg.RichGen(rng).durable(5)["semanticRecall"]
    elif c.startswith("D8"):
        pol = b.get("recallPolicy")
        if c == "D8d":
            b["mode"] = "shadow_candidates"
            b["recallPolicy"] = pol or {"maxResults": 8, "minLexicalScore": 0.5, "maxRelatedLookups": 4}
        elif c == "D8e":
            b["mode"] = "active_recall"
            b.pop("recallPolicy", None)
        else:
            if pol is None:
                return None
            if c == "D8a":
                pol["maxResults"] = rng.choice([0, 101, rg.U64_MAX])
            elif c == "D8b":
                pol["minLexicalScore"] = rng.choice([-0.5, 1.5, rg.f32(1.0000001), -1e-45, 3.4028234663852886e38])
            else:
                pol["maxRelatedLookups"] = rng.choice([101, rg.U64_MAX])
    elif c == "TENANT":
        if rng.random() < 0.5:
            sess.pop("tenant_id", None)
        else:
            sess["tenant_id"] = rng.choice([sess.get("tenant_id", "") + " ", sess.get("tenant_id", "x").upper() + "X"])
    else:
        if rng.random() < 0.5:
            sess.pop("principal", None)
        else:
            sess["principal"] = (sess.get("principal") or "") + "-other"
    return c, None


def m_semantic(rng, p):
    sess = p["snapshot"]["session"]
    b = sess.get("durable_memory_binding")
    if not b or b.get("schemaVersion") != 5 or not b.get("semanticRecall"):
        b = rg.RichGen(rng).durable(5)
        sess["durable_memory_binding"] = b
        sess["tenant_id"], sess["principal"] = b["namespace"]["tenantId"], b["namespace"]["principalId"]
    s = b["semanticRecall"]
    emb, idx, pol = s["embedding"], s["vectorIndex"], s["policy"]
    c = rng.choice(["S1", "S2", "S3", "S4", "S5", "S6", "S7", "S8", "S9", "S11", "S12", "S13", "S14"])
    if c == "S1":
        s["schema"] = rng.choice(["", rg.SEMANTIC_SCHEMA + "2"])
    elif c == "S2":
        s["authorityDigest"] = rng.choice(BAD_DIGESTS)
    elif c == "S3":
        emb[rng.choice(["provider", "model"])] = rng.choice(["", " x", "x ", "m" * 257, "a" + CONTROL, "\u3000"])
    elif c == "S4":
        emb["revision"] = rng.choice([None, "", " r", "r" * 257])
    elif c == "S5":
        dim = rng.choice([0, 65537])
        emb["dimension"] = idx["dimension"] = dim
        idx["maxBytes"] = max(idx["maxBytes"], dim * 4)
    elif c == "S6":
        s["embeddingExecutionDigest"] = rng.choice(BAD_DIGESTS)
    elif c == "S7":
        idx["dimension"] = emb["dimension"] + 1
    elif c == "S8":
        if rng.random() < 0.5:
            idx["metric"] = "dot_product"
        else:
            idx["normalization"] = "none"
    elif c == "S9":
        idx[rng.choice(["maxRecords", "maxBytes"])] = 0
    elif c == "S11":
        idx["maxBytes"] = emb["dimension"] * 4 - 1
    elif c == "S12":
        pol["candidateLimit"] = rng.choice([0, 101])
    elif c == "S13":
        pol["minScore"] = rng.choice([-0.25, 1.5, rg.f32(1.0000001)])
    else:
        s["fusionProfile"] = rng.choice(["", "a3s.code.memory.hybrid.rrf-k61.v1"])
    return c, None


# -- catalog R ----------------------------------------------------------------------------------------

def m_capability(rng, p):
    sites = _capability_sites(p)
    if not sites:
        runs = p["snapshot"]["run_records"]
        b = rg.RichGen(rng).capability()
        rng.choice(runs)["snapshot"]["capability_binding"] = b
        sites = [("run", b)]
    where, b = rng.choice(sites)
    c = rng.choice(["R1", "R2", "R3", "R4", "R5", "R6", "R7", "R8", "match", "match"])
    if c == "match" and sites[-1][0] == "loop" and rng.random() < 0.7:
        where, b = sites[-1]  # the loop checkpoint's: L-CAPABILITY-MATCH against its source run
    if c in ("R1", "R2", "R4"):
        f = {"R1": "schema", "R2": "capabilitySetSchema", "R4": "capabilityCeilingSchema"}[c]
        b[f] = rng.choice(["", b[f] + ".v2", b[f].upper()])
    elif c in ("R3", "R5"):
        b["catalogDigest" if c == "R3" else "capabilityCeilingDigest"] = rng.choice(BAD_DIGESTS)
    elif c in ("R6", "R7", "R8"):
        u = b.setdefault("useGeneration", {"schema": rg.USE_CURSOR_SCHEMA, "generation": 1, "revision": _digest(rng),
                                           "registryRevision": _digest(rng)})
        if c == "R6":
            u["schema"] = rng.choice(["", "a3s.use.capability-snapshot-cursor.v2"])
        else:
            u["revision" if c == "R7" else "registryRevision"] = rng.choice(BAD_DIGESTS)
    else:  # valid but different: L-CAPABILITY-MATCH when it is the source run's or the loop's
        if rng.random() < 0.5:
            b["codeCatalogGeneration"] = (b["codeCatalogGeneration"] + 1) % (1 << 64)
        elif "useGeneration" in b:
            del b["useGeneration"]
        else:
            b["catalogDigest"] = _digest(rng)
    return f"{c}:{where}", None


# -- catalog T and the S-TOOLEND rules ------------------------------------------------------------------

def m_toolend(rng, p):
    sites = _tool_end_sites(p)
    if not sites:
        return None
    meta = rng.choice(sites)
    b, raw = meta[rg.BINDING_KEY], None
    c = rng.choice(["T1", "T2", "T3", "T4", "T5", "T6", "BINDING-PARSE", "BINDING-PARSE", "EVIDENCE-MISSING",
                    "EVIDENCE-PARSE", "EVIDENCE-PARSE", "EVIDENCE-MISMATCH"])
    if c == "T1":
        b["schema"] = rng.choice(["", rg.BINDING_SCHEMA + "2", rg.BINDING_SCHEMA.upper()])
    elif c == "T2":
        b["transform_algorithm"] = rng.choice(["", "a3s.code.tool-result-transform.v2"])
    elif c == "T3":
        b["policy_digest"] = rng.choice(BAD_DIGESTS)
    elif c == "T4":
        b["binding_digest"] = rng.choice(BAD_DIGESTS)
    elif c == "T5":
        b["binding_digest"] = rng.choice([_digest(rng), rg.transform_binding(rg.CONSERVATIVE)["policy_digest"]])
    elif c == "T6":
        pol = p["snapshot"]["session"]["config"]["tool_result_transform_policy"]
        other = rg.CONSERVATIVE if pol != rg.CONSERVATIVE else rg.CONTEXT_EFFICIENT
        meta[rg.BINDING_KEY] = rg.transform_binding(other)
    elif c == "BINDING-PARSE":
        k = rng.randrange(7)
        if k == 0:
            meta[rg.BINDING_KEY] = rng.choice([None, "binding", [], 1, True, {}])
        elif k == 1:
            del b[rng.choice(sorted(b))]
        elif k == 2:
            b[rng.choice(["x", "Schema", "policyDigest", ""])] = "x"
        elif k == 3:
            b[rng.choice(sorted(b))] = rng.choice([None, 1, [], {}, True])
        elif k == 4:  # struct as array, declared order (accepted by from_value) or sorted order
            order = ["schema", "transform_algorithm", "policy_digest", "binding_digest"]
            if rng.random() < 0.5:
                order = sorted(order)
            meta[rg.BINDING_KEY] = [b[f] for f in order][: rng.choice([4, 4, 3, 5])]
        elif k == 5:  # duplicate key inside the metadata object
            raw = {"dup": json.dumps(b)}
        else:
            b["schema"] = _SENTINEL + "s"
            raw = {"s": rng.choice(['"\\u0061' + rg.BINDING_SCHEMA[1:] + '"', '"a3s\\/code"'])}
    elif c == "EVIDENCE-MISSING":
        meta.pop(rg.EVIDENCE_KEY, None)
        if rng.random() < 0.3:
            meta["a3s_tool_result_evidence_v1"] = {}
    elif c == "EVIDENCE-PARSE":
        ev = meta.get(rg.EVIDENCE_KEY)
        if not isinstance(ev, dict) or rng.random() < 0.2:
            meta[rg.EVIDENCE_KEY] = rng.choice([None, "e", [], 0, {}])
        else:
            k = rng.randrange(6)
            if k == 0:
                del ev[rng.choice(sorted(ev))]
            elif k == 1:
                ev[rng.choice(["x", "projectedDigest", "byteDelta"])] = 1
            elif k == 2:
                ev[rng.choice(["original_bytes", "projected_bytes", "original_estimated_tokens"])] = _SENTINEL + "n"
                raw = {"n": rng.choice(["-1", "1.5", '"1"', "null", str(rg.U64_MAX + 1), "1e2"])}
            elif k == 3:
                ev["loss_mode"] = rng.choice(["None", "lossless", 0, "", {"none": None}])
            elif k == 4:
                ev[rng.choice(["byte_delta", "estimated_token_delta"])] = _SENTINEL + "n"
                raw = {"n": rng.choice([str(rg.I64_MAX + 1), str(-(1 << 63) - 1), "0.5", '"0"', "null", "-0"])}
            else:
                ev[rng.choice(["transform_algorithm", "projected_digest"])] = rng.choice([1, [], None])
    else:  # EVIDENCE-MISMATCH
        ev = meta.get(rg.EVIDENCE_KEY)
        if not isinstance(ev, dict):
            return None
        k = rng.randrange(3)
        if k == 0:
            ev["schema"] = rng.choice(["", "a3s.code.tool-result-evidence.v2"])
        elif k == 1:
            ev.pop("transform_algorithm", None)
        else:
            ev["transform_algorithm"] = rng.choice(["", "a3s.code.tool-result-transform.v2"])
    return c, raw


def m_policy(rng, p):
    """S-TRANSFORM-POLICY, or a valid other policy (every transform binding then fails T6)."""
    pol = p["snapshot"]["session"]["config"]["tool_result_transform_policy"]
    c = rng.choice(["schema", "max", "head", "reserve", "threshold", "structured", "other"])
    if c == "schema":
        pol["schema"] = rng.choice(["", rg.POLICY_SCHEMA + "2"])
    elif c == "max":
        pol["max_output_bytes"] = rng.choice([0, 1023, 102401])
    elif c == "head":
        pol["head_bytes"] = 0
    elif c == "reserve":
        pol["tail_bytes"] = rng.choice([1, pol["max_output_bytes"] - pol["head_bytes"]]) or 1
    elif c == "threshold":
        pol["repeated_line_threshold"] = rng.choice([0, 1, 10001])
    elif c == "structured":
        pol["structured_sample_items"] = rng.choice([1025, rg.U64_MAX])
    else:
        pol.clear()
        pol.update(rg.CONTEXT_EFFICIENT if rng.random() < 0.5 else rg.RichGen(rng).policy())
    return f"policy-{c}", None


# -- typed layout hazards -----------------------------------------------------------------------------

TYPED_ROOTS = ("/snapshot/run_records", "/snapshot/session/config", "/snapshot/session/durable_memory_binding",
               "/snapshot/session/cognitive_package_binding", "/snapshot/session/cost_records",
               "/snapshot/session/tasks", "/snapshot/trace_events", "/snapshot/verification_reports",
               "/snapshot/subagent_tasks", "/logical_resume/capability_binding",
               "/snapshot/session/immutable_content_adapter_binding", "/logical_resume/verification_reports",
               "/snapshot/session/messages", "/logical_resume/messages", "/logical_resume/convergence")
#: Free-form JSON inside the typed payload (``serde_json::Value``): edits there are not typed hazards.
FREE = ("/args", "/payload", "/metadata", "/details", "/input", "/classification_rules")

WRONG_TYPES = ["null", "true", "0", "-1", "1.5", '""', '"x"', "[]", "{}", "[1]", '{"a":1}', str(rg.U64_MAX + 1),
               "4294967296", "65536", "2147483648", "-2147483649", "9223372036854775808", "1e3", "-0"]

ALIASES = {"tasks": "todos", "content": "description", "autoParallel": "auto_parallel",
           "allowManualDelegation": "allow_manual_delegation"}

#: Declared field order of structs (serde reads a JSON array into a struct in this order).
DECLARED = {
    "limits": ["maxResults", "maxDocumentBytes", "maxTotalBytes"],
    "usage": ["prompt_tokens", "completion_tokens", "total_tokens", "cache_read_tokens", "cache_write_tokens"],
    "total_usage": ["prompt_tokens", "completion_tokens", "total_tokens", "cache_read_tokens", "cache_write_tokens"],
    "context_usage": ["used_tokens", "max_tokens", "percent", "turns"],
    "recallPolicy": ["maxResults", "minLexicalScore", "maxRelatedLookups"],
    "namespace": ["tenantId", "principalId", "scopeId"],
    "policy": ["candidateLimit", "minScore"],
    "useGeneration": ["schema", "generation", "revision", "registryRevision"],
    "capability_binding": ["schema", "capabilitySetSchema", "codeCatalogGeneration", "catalogDigest",
                           "capabilityCeilingSchema", "capabilityCeilingDigest", "useGeneration"],
    "tool_result_transform_policy": list(rg.POLICY_FIELDS),
    "tool_presentation_profile": ["schema", "mode"],
    "features": ["output_sanitizer", "taint_tracking", "tool_interceptor", "injection_defense"],
    "workspace": ["read", "write", "exec", "search", "git", "codeIntelligence"],
    "goal": ["description", "success_criteria", "progress", "achieved", "created_at", "achieved_at"],
}

#: f32 fields (FORMAT.md 4.16) by key.
F32_KEYS = {"importance", "relevance", "progress", "percent_before", "percent", "auto_compact_threshold",
            "minConfidence", "minLexicalScore", "minScore"}
F32_TEXTS = ["0.7", "0.1", "0.699999988079071", "0.7000000000000001", "1e-46", "1e-45", "1.401298464324817e-45",
             "3.4028234663852886e38", "3.4028235e38", "3.5e38", "1e39", "1", "0", "-0.0", "0.5", "1.0", "2.5e-8",
             "0.333333333333333333333", "16777217", "1e-38", "1.1754942e-38"]


def _typed_pointers(p: dict, pred) -> list[tuple[str, object]]:
    return [(ptr, v) for ptr, v in _pointers(p) if ptr.startswith(TYPED_ROOTS)
            and not any(f + "/" in ptr + "/" for f in FREE) and pred(ptr, v)]


def m_typed(rng, p):
    kind = rng.choice(["wrong-type", "wrong-type", "unknown-key", "unknown-key", "alias", "struct-as-array",
                       "variant-index", "f32", "f32", "enum-form", "missing", "null", "event-tag", "timestamp",
                       "lanes", "permission-string", "dup-key", "dup-key"])
    if kind == "dup-key":  # a key written twice: serde derive says "duplicate field", a Value map keeps the last
        ptrs = _typed_pointers(p, lambda ptr, v: isinstance(v, dict) and v)
        ptr, obj = rng.choice(ptrs)
        key = rng.choice(sorted(obj))
        text = orjson.dumps(obj[key] if rng.random() < 0.5 else rng.choice([None, 0, "x", [], {}])).decode()
        return f"typed:{kind}", {"dupkey": (ptr, key, text, rng.random() < 0.5)}, ptr
    if kind == "wrong-type":
        ptrs = _typed_pointers(p, lambda ptr, v: ptr.count("/") > 2)
        ptr, _ = rng.choice(ptrs)
        parent, key = _parent(p, ptr)
        parent[key] = _SENTINEL + "t"
        return f"typed:{kind}", {"t": rng.choice(WRONG_TYPES)}, ptr
    if kind == "unknown-key":
        ptrs = _typed_pointers(p, lambda ptr, v: isinstance(v, dict))
        ptr, obj = rng.choice(ptrs)
        obj[rng.choice(["x", "extra", "Schema", "type_", "effect_digest", "todos", ""])] = rng.choice([None, 1, "v", {}])
        return f"typed:{kind}", None, ptr
    if kind == "alias":
        k = rng.choice(sorted(ALIASES))  # each alias equally often (``tasks`` is in few places)
        ptrs = _typed_pointers(p, lambda ptr, v: isinstance(v, dict) and k in v)
        if not ptrs:
            return None
        ptr, obj = rng.choice(ptrs)
        obj[ALIASES[k]] = obj.pop(k) if rng.random() < 0.8 else obj[k]
        return f"typed:{kind}:{k}", None, ptr
    if kind == "struct-as-array":
        ptrs = _typed_pointers(p, lambda ptr, v: isinstance(v, dict) and ptr.rsplit("/", 1)[-1] in DECLARED)
        if not ptrs:
            return None
        ptr, obj = rng.choice(ptrs)
        order = DECLARED[ptr.rsplit("/", 1)[-1]]
        if rng.random() < 0.3:
            order = sorted(order)
        vals = [obj.get(f) for f in order if f in obj or rng.random() < 0.5]
        if rng.random() < 0.2:
            vals = vals[:-1] if rng.random() < 0.5 else vals + [0]
        parent, key = _parent(p, ptr)
        parent[key] = vals
        return f"typed:{kind}", None, ptr
    if kind == "variant-index":
        ptrs = _typed_pointers(p, lambda ptr, v: isinstance(v, str) and ptr.rsplit("/", 1)[-1] in (
            "state", "status", "storage_type", "planning_mode", "lane", "operation", "loss_mode", "mode", "origin",
            "phase", "kind", "application", "metric", "normalization", "complexity", "priority", "timeout_action",
            "default_decision", "redaction_strategy", "trust", "type"))
        ptr, _ = rng.choice(ptrs)
        parent, key = _parent(p, ptr)
        parent[key] = _SENTINEL + "t"
        return f"typed:{kind}", {"t": rng.choice(["0", "1", "3", "7", "-1", "1.0", '{"0":null}', "[0]"])}, ptr
    if kind == "f32":
        ptrs = _typed_pointers(p, lambda ptr, v: ptr.rsplit("/", 1)[-1] in F32_KEYS and isinstance(v, (int, float)))
        ptrs += [(ptr, v) for ptr, v in _pointers(p) if ptr.endswith(("/context_usage/percent",
                                                                      "/auto_compact_threshold"))]
        ptr, _ = rng.choice(ptrs)
        parent, key = _parent(p, ptr)
        parent[key] = _SENTINEL + "t"
        return f"typed:{kind}", {"t": rng.choice(F32_TEXTS)}, ptr
    if kind == "enum-form":
        ptrs = _typed_pointers(p, lambda ptr, v: isinstance(v, str) and ptr.rsplit("/", 1)[-1] in (
            "state", "status", "lane", "operation", "loss_mode", "mode", "origin", "phase", "metric", "priority",
            "timeout_action", "complexity", "redaction_strategy", "trust", "role", "normalization"))
        ptr, v = rng.choice(ptrs)
        parent, key = _parent(p, ptr)
        parent[key] = _SENTINEL + "t"
        q = json.dumps(v)
        return f"typed:{kind}", {"t": rng.choice(["{%s:null}" % q, "{%s:{}}" % q, "{%s:1}" % q, "[%s]" % q,
                                                  json.dumps(v.upper()), json.dumps(v.capitalize()), '"bogus"',
                                                  json.dumps(v + " ")])}, ptr
    if kind in ("missing", "null"):
        ptrs = _typed_pointers(p, lambda ptr, v: ptr.count("/") > 3 and not ptr.rsplit("/", 1)[-1].isdigit())
        ptr, v = rng.choice(ptrs)
        parent, key = _parent(p, ptr)
        if kind == "missing":
            del parent[key]
        else:
            parent[key] = None
        return f"typed:{kind}", None, ptr
    if kind == "event-tag":
        run = rng.choice(p["snapshot"]["run_records"])
        if not run["events"]:
            return None
        ev = rng.choice(run["events"])["event"]
        k = rng.randrange(4)
        if k == 0:
            ev["type"] = rng.choice(["agent_begin", "Tool_end", "tool_end ", "", "ToolEnd"])
        elif k == 1:
            del ev["type"]
        elif k == 2:
            ev["type"] = rng.choice(rg.EVENT_KINDS)  # another variant's tag on these fields
        else:
            ev["type"] = _SENTINEL + "t"
            return "typed:event-tag", {"t": rng.choice(["0", "9", "null", "[]", '["tool_end"]'])}, "event"
        return "typed:event-tag", None, "event"
    if kind == "timestamp":
        recs = p["snapshot"]["session"].get("cost_records")
        if not recs:
            return None
        rec = rng.choice(recs)
        ts = rec["timestamp"]
        rec["timestamp"] = rng.choice([ts[:-1] + "+00:00", ts[:-1] + "+02:00", ts[:-1] + "-00:30", ts[:-1] + "z",
                                       ts.replace("T", " "), ts[:19] + ".000Z", ts[:19] + ".100000Z", ts[:19] + ".1Z",
                                       ts[:19], "2026-02-30T00:00:00Z", "2026-09-01T24:00:00Z", ""])
        return f"typed:{kind}", None, "cost"
    if kind == "lanes":
        cp = p["snapshot"]["session"]["config"].get("confirmation_policy")
        if not cp:
            return None
        # Not two distinct lanes: a HashSet upstream, written in per-process hash order (FORMAT.md 4.15).
        cp["yolo_lanes"] = rng.choice([["Query", "Query"], ["query"], [0], "Query", ["Control", None], {"Query": 1}])
        return f"typed:{kind}", None, "yolo_lanes"
    pp = p["snapshot"]["session"]["config"].get("permission_policy")
    if not pp:
        return None
    lst = pp[rng.choice(["deny", "allow", "ask"])]
    lst.append(rng.choice(["Bash(ls:*)", 1, None, {"rule": 1}, {"rule": "x", "y": 1}, {}]))
    return "typed:permission-string", None, "permission"


def m_immutable(rng, p):
    """S-IMMUTABLE: each check of ``ImmutableContentAdapterBindingV1::validate`` (FORMAT.md 6.3)."""
    sess = p["snapshot"]["session"]
    b = sess.get("immutable_content_adapter_binding")
    if not b:
        b = sess["immutable_content_adapter_binding"] = rg.RichGen(rng).immutable()
    c = rng.choice(["schema", "authority", "maximum", "format", "stale"])
    if c == "schema":
        b["schema"] = rng.choice(["", rg.IMMUTABLE_SCHEMA + "2"])
    elif c == "authority":
        b["authority_digest"] = rng.choice(BAD_DIGESTS)
    elif c == "maximum":
        b["maximum_bytes"] = 0
    elif c == "format":
        b["binding_digest"] = rng.choice(BAD_DIGESTS)
    else:
        b["maximum_bytes"] = b["maximum_bytes"] % rg.U64_MAX + 1
    return f"immutable-{c}", None


def m_flow(rng, p):
    """Run, event and resume invariants around the binding rules (S-EVENT-SEQ, S-EVENT-COUNT,
    S-RUN-DUP/-OWNER, S-SUBAGENT-OWNER, L-SCHEMA ... L-SOURCE-TERMINAL): stacked with a binding
    edit they test which rule the reference reports first."""
    sess, runs, lr = _locations(p)
    c = rng.choice(["seq", "count", "run-dup", "run-owner", "subagent", "lr-schema", "lr-owner", "lr-turn",
                    "lr-source", "lr-terminal"])
    if c in ("seq", "count"):
        run = rng.choice([r for r in runs if r["events"]] or runs)
        evs = run["events"]
        if not evs:
            return None
        if c == "seq":
            j = rng.randrange(len(evs))
            prev = evs[j - 1]["sequence"] if j else 0
            evs[j]["sequence"] = rng.choice([prev, max(prev - 1, 0)]) if j else evs[j]["sequence"]
            if j == 0 and len(evs) > 1:
                evs[1]["sequence"] = evs[0]["sequence"]
        else:
            run["snapshot"]["event_count"] = max(e["sequence"] for e in evs)
    elif c == "run-dup":
        if len(runs) < 2:
            return None
        a, b = rng.sample(range(len(runs)), 2)
        runs[b]["snapshot"]["id"] = runs[a]["snapshot"]["id"]
    elif c == "run-owner":
        rng.choice(runs)["snapshot"]["session_id"] = sess["id"] + "-other"
    elif c == "subagent":
        tasks = p["snapshot"]["subagent_tasks"]
        if not tasks:
            return None
        rng.choice(tasks)["parent_session_id"] = sess["id"] + "-other"
    else:
        if lr is None:
            return None
        if c == "lr-schema":
            lr["schema_version"] = rng.choice([0, 2])
        elif c == "lr-owner":
            lr["session_id"] = sess["id"] + "-other"
        elif c == "lr-turn":
            lr["turn"] = 0
        elif c == "lr-source":
            lr["run_id"] = lr["run_id"] + "-gone"
        else:
            src = [r for r in runs if r["snapshot"]["id"] == lr["run_id"]]
            if not src:
                return None
            src[0]["snapshot"]["status"] = rng.choice(rg.TERMINAL)
    return f"flow-{c}", None


MUTATORS = [(m_cognitive, 5), (m_cognitive_other, 2), (m_durable, 4), (m_semantic, 3), (m_capability, 4),
            (m_toolend, 5), (m_policy, 1), (m_typed, 8), (m_flow, 2), (m_immutable, 1)]


def mutate_rich(rng: random.Random, p: dict) -> tuple[bytes, str, str]:
    """Apply one targeted mutation to the payload value ``p`` (in place).

    Returns ``(payload_bytes, label, target)``: canonical bytes (or canonical bytes with raw text
    spliced in for wrong types and exact number spellings), a label naming the edit and where,
    and the target (the catalog check or typed hazard aimed at).
    """
    funcs, weights = zip(*MUTATORS)
    for _ in range(20):
        f = rng.choices(funcs, weights)[0]
        out = f(rng, p)
        if out is None:
            continue
        if f is m_typed:
            target, raw, where = out
            label = f"{target}@{where}"
        else:
            target, raw = out
            label = target
            target = target.split(":")[0]
            if f is m_cognitive_other:
                target = "cognitive-other"
            elif f is m_durable and not target.startswith(("D", "TENANT", "PRINCIPAL")):
                target = "D-" + target
        if raw and "dup" in raw:
            data = _dup_metadata_key(p, raw["dup"])
        elif raw and "dupkey" in raw:
            data = _dumps_dup_key(p, *raw["dupkey"])
        elif raw:
            data = _dumps_with_raw(p, raw)
        else:
            data = encode(p)
        return data, label, target.split("@")[0]
    return encode(p), "none", "none"


def _dup_metadata_key(p: dict, dup_text: str) -> bytes:
    """Canonical bytes with the first transform binding key written twice (serde: last wins)."""
    data = encode(p)
    key = orjson.dumps(rg.BINDING_KEY) + b":"
    i = data.find(key)
    return data[:i] + key + dup_text.encode() + b"," + data[i:] if i >= 0 else data


# -- spelling: the same JSON written differently (whitespace, key order, escapes) ------------------------

_KEY_RE = re.compile(rb'"([A-Za-z_][A-Za-z0-9_]*)":')
_VALUE_RE = re.compile(rb':"([a-z][a-z0-9_.\-]*)"')


def _spaced(rng: random.Random, data: bytes) -> bytes:
    """Whitespace after some ``,``/``:``/``[``/``{`` outside strings (number spellings kept)."""
    out, in_str, esc = bytearray(), False, False
    ws = [b" ", b"\n", b"\t", b"\r\n", b"  "]
    rate = rng.choice([0.01, 0.1, 1.0])
    for b in data:
        out.append(b)
        if in_str:
            if esc:
                esc = False
            elif b == 0x5C:
                esc = True
            elif b == 0x22:
                in_str = False
        elif b == 0x22:
            in_str = True
        elif b in b",:[{" and rng.random() < rate:
            out += rng.choice(ws)
    return bytes(out)


def respell(rng: random.Random, data: bytes) -> tuple[bytes, str]:
    """The payload bytes written differently but meaning the same JSON: whitespace, keys reordered or
    pretty-printed, or one key or enum/schema string with a character as a ``\\u`` escape. Serde
    decodes them all; the S-/L-rules then run on the decoded value before the canonical check
    (FORMAT.md 5), and P-PARSE positions count the new bytes. Returns ``(bytes, spelling)``."""
    k = rng.randrange(4)
    if k == 0:
        return _spaced(rng, data), "ws"
    if k == 3:  # keys in another order, or pretty-printed: serde reads it, the canonical check fails last
        try:
            value = orjson.loads(data)
        except orjson.JSONDecodeError:
            return _spaced(rng, data), "ws"
        mode = rng.choice(["shuffle", "reverse", "pretty"])
        return _dumps_formatted(value, rng, mode), "reorder" if mode != "pretty" else "pretty"
    matches = list((_KEY_RE if k == 1 else _VALUE_RE).finditer(data))
    if not matches:
        return _spaced(rng, data), "ws"
    m = rng.choice(matches)
    start, word = m.start(1), m.group(1)
    i = rng.randrange(len(word))
    esc = ("\\u%04x" if rng.random() < 0.5 else "\\u%04X") % word[i]
    return data[:start + i] + esc.encode() + data[start + i + 1:], "esc-key" if k == 1 else "esc-value"
