"""Attacks on the redaction gate through digests, sizes and ids (security review, round three).

A digest over redacted content is that content: SHA-256 of a 4-digit PIN is found again by trying
10,000 values. Each test plants what the review planted (PIN digests with their sizes at every digest
and size place ``allowlist.toml`` ``[[digest]]`` withholds, credential-shaped tokens in id places,
integers in free-form values), renders every output that claims redaction (each ticket format, the
redacted payload and its replacement list), and then searches them by text and by brute force:
every 64-hex run in the outputs is compared with SHA-256 of every 4-digit PIN.
"""

from __future__ import annotations

import hashlib
import json
import re

import pytest

from inspector.checkpoint import build_descriptor, decode, encode, verify
from inspector.checkpoint.schema import model as S
from inspector.checkpoint.schema.kinds import Enum, Map, Opt, Prim, Set, Struct, Tagged, Untagged, Vec
from inspector.ticket import gate_for, redact_payload
from inspector.ticket.allowlist import allowlist, compile_pattern
from inspector.ticket.gate import _EMBEDDED, _expand, _flat, child_types, types_at
from tests.ticket.outputs import shareable_outputs
from tests.conftest import CASES, GOLDEN

PIN = "4821"
#: a planted size: an integer from the customer's content (a 6-digit code) in a size field
SIZE = 918273
_PIN_DIGESTS = {hashlib.sha256(f"{i:04d}".encode()).hexdigest(): f"{i:04d}" for i in range(10_000)}
_HEX64 = re.compile(r"(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])")


def _golden() -> dict:
    return json.loads((GOLDEN / "payload-with-resume.json").read_bytes())


def _skeleton(types):
    """A value of ``types`` (a tuple or one type) with every field present: what the typed decode
    reads without a type error (strings ``"x"``, numbers 0, the first variant of each union)."""
    t = types[0] if isinstance(types, tuple) else types
    if isinstance(t, Opt):
        return None
    if isinstance(t, Untagged):
        return _skeleton(t.alternatives[0])
    if isinstance(t, Struct):
        return {f.key: _skeleton(f.type) for f in t.fields if not f.never_written}
    if isinstance(t, Tagged):
        name, v = t.variants[0]
        return {t.tag: name, **(_skeleton(v) if isinstance(v, Struct) else {})}
    if isinstance(t, (Vec, Set)):
        return []
    if isinstance(t, Map):
        return {}
    if isinstance(t, Enum):
        return t.variants[0]
    if isinstance(t, Prim):
        return {"str": "x", "bool": False, "f32": 0.0, "f64": 0.0, "value": {},
                "timestamp": "2024-01-01T00:00:00Z"}.get(t.name, 0)
    raise AssertionError(f"no skeleton for {t!r}")


def _plant(doc: dict, pointer: str, value) -> None:
    """Set ``pointer`` (``*`` read as index 0) of the payload ``doc`` to ``value``, making every
    container on the way with :func:`_skeleton` and choosing, at a tagged union, the variant that
    declares the next key (so the typed layout narrows to it)."""
    segs = pointer.split("/")[1:]
    node, types = doc, (S.PAYLOAD,)
    for i, seg in enumerate(segs):
        key = "0" if seg == "*" else seg
        last = i == len(segs) - 1
        child_t = ()
        for t in _flat(types):
            if isinstance(t, Struct) and key in t.by_key:
                child_t = (t.by_key[key].type,)
            elif isinstance(t, Tagged):
                for name, v in t.variants:
                    if isinstance(v, Struct) and key in v.by_key and _resolves((v.by_key[key].type,), segs[i + 1:]):
                        if node.get(t.tag) != name:
                            node.clear()
                            node.update({t.tag: name, **_skeleton(v)})
                        child_t = (v.by_key[key].type,)
                        break
            elif isinstance(t, (Vec, Set)):
                child_t = (t.inner,)
            elif isinstance(t, Prim) and t.name == "value" and key in _EMBEDDED:
                child_t = (_EMBEDDED[key],)
            if child_t:
                break
        assert child_t, f"{pointer}: no type for {key!r}"
        if isinstance(node, list):
            while len(node) <= int(key):
                node.append(_skeleton(child_t))
            if last:
                node[int(key)] = value
            else:
                if not isinstance(node[int(key)], (dict, list)):
                    node[int(key)] = _skeleton(child_t)
                node = node[int(key)]
        else:
            if last:
                node[key] = value
            else:
                if not isinstance(node.get(key), (dict, list)):
                    node[key] = _skeleton(child_t) if _skeleton(child_t) is not None else {}
                    if not isinstance(node[key], (dict, list)):
                        node[key] = {}
                node = node[key]
        types = child_t


def _resolves(types: tuple, segs: list[str]) -> bool:
    for seg in segs:
        types = child_types(types, "0" if seg == "*" else seg)
        if not types:
            return False
    return True


def _withheld_places() -> list[str]:
    return [place for d in allowlist().digests if d.treatment == "tag" for p in d.paths for place in _expand(p)]


def _planted_value(pointer: str):
    types = types_at("payload", pointer.replace("*", "0"))
    if any(isinstance(t, Prim) and t.name == "str" for t in _flat(types)):
        digest = hashlib.sha256(PIN.encode()).hexdigest()
        return digest if pointer.endswith("_tree") else "sha256:" + digest
    return SIZE




def _brute_forced(text: str) -> list[str]:
    """Every PIN whose SHA-256 appears in ``text`` (as 64 hex digits, with or without ``sha256:``)."""
    return [_PIN_DIGESTS[h] for h in _HEX64.findall(text) if h in _PIN_DIGESTS]


def test_every_withheld_place_is_a_real_place_of_the_typed_layout():
    places = _withheld_places()
    assert len(places) == 69
    for place in places:
        assert types_at("payload", place.replace("*", "0")), place


@pytest.mark.parametrize("place", _withheld_places())
def test_a_pin_under_a_digest_or_size_is_not_recoverable(place):
    doc = _golden()
    _plant(doc, place, _planted_value(place))
    payload = encode(doc)
    assert (PIN and hashlib.sha256(PIN.encode()).hexdigest().encode() in payload) or str(SIZE).encode() in payload
    for name, text in shareable_outputs(payload).items():
        assert _brute_forced(text) == [], (place, name)
        assert not re.search(rf"(?<![0-9]){SIZE}(?![0-9])", text), (place, name)
    red = json.loads(shareable_outputs(payload)["redacted-payload"])
    node = red
    for seg in place.replace("*", "0").split("/")[1:]:
        node = node[int(seg)] if isinstance(node, list) else node[seg]
    kind = "size" if isinstance(_planted_value(place), int) else "digest"
    assert re.fullmatch(rf"\[redacted: {kind} of redacted content, \d+ bytes?, tag [0-9a-f]{{8}}\]", node), (place, node)


def test_equal_withheld_digests_get_equal_tags_in_one_report():
    doc = _golden()
    digest = "sha256:" + hashlib.sha256(PIN.encode()).hexdigest()
    _plant(doc, "/snapshot/session/immutable_content_adapter_binding/authority_digest", digest)
    _plant(doc, "/snapshot/session/durable_memory_binding/semanticRecall/authorityDigest", digest)
    red = json.loads(shareable_outputs(encode(doc))["redacted-payload"])
    a = red["snapshot"]["session"]["immutable_content_adapter_binding"]["authority_digest"]
    b = red["snapshot"]["session"]["durable_memory_binding"]["semanticRecall"]["authorityDigest"]
    assert a == b and a.startswith("[redacted: digest of redacted content, 71 bytes, tag ")


def _file_digests(payload: bytes, descriptor: bytes) -> list[str]:
    """Every digest of the files themselves, as 64 hex digits: the two files' SHA-256 and each digest
    the descriptor states (content, evidence, descriptor digest)."""
    d = json.loads(descriptor)
    stated = [d["content_digest"], d["descriptor_digest"]] + [
        d[c][k] for c in ("snapshot", "logical_resume") if d.get(c) for k in ("content_digest", "evidence_digest")]
    return sorted({hashlib.sha256(payload).hexdigest(), hashlib.sha256(descriptor).hexdigest()}
                  | {s.split(":", 1)[1] for s in stated})


def test_no_digest_of_the_files_is_an_oracle_beside_the_redacted_payload():
    """The review's attack on the component digests: the redacted payload shows every byte but the redacted
    values (with their byte counts), so the payload's SHA-256 or the snapshot's content digest tests each
    guess at a short redacted value. None of them (nor an 8-digit prefix of one) is in any output that
    claims redaction; each stands as a tagged marker, equal values with equal tags."""
    doc = _golden()
    doc["snapshot"]["session"]["messages"][0]["content"].append(
        {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"pin": PIN}})
    payload = encode(doc)
    descriptor = encode(build_descriptor(decode(payload), payload))
    digests = _file_digests(payload, descriptor)
    assert len(digests) == 7
    outputs = shareable_outputs(payload, descriptor)
    for name, text in outputs.items():
        for h in digests:
            assert h[:8] not in text, (name, h)
    text = outputs["text"]
    assert re.search(r"payload: p\.json \(\d+ bytes, \[redacted: digest of the files, 71 bytes, tag [0-9a-f]{8}\]\)",
                     text), text
    # the stated and recomputed payload digest are equal, and read as equal
    js = json.loads(outputs["json"])
    row = next(r for r in js["digests"] if r["label"] == "payload content_digest")
    assert row["matches"] is True and row["stated"] == row["recomputed"] == js["files"][0]["sha256"]
    assert js["redaction"]["file_digests_withheld"] >= 7 and js["redaction"]["file_digests"] is False


def test_a_broken_pairs_digests_are_tagged_in_every_rule_text():
    """X-BYTES computes the payload's SHA-256 for its expected value and its note; X-DESCRIPTOR and the evidence
    rules rebuild the descriptor's digests: each stands for the place it is compared with, so none of them (nor
    any stated one) is in any output that claims redaction."""
    payload = (CASES / "25-p-flip-byte.payload.json").read_bytes()
    descriptor = (CASES / "25-p-flip-byte.descriptor.json").read_bytes()
    report = verify(payload, descriptor)
    assert report.root_cause.rule.id == "X-BYTES"
    computed = {hashlib.sha256(payload).hexdigest()} | {
        h for h in _HEX64.findall(str(report.root_cause.expected) + " ".join(map(str, report.root_cause.notes)))}
    digests = set(_file_digests(payload, descriptor)) | computed
    assert hashlib.sha256(payload).hexdigest() in str(report.root_cause.expected)  # verify says it in clear
    for name, text in shareable_outputs(payload, descriptor).items():
        for h in digests:
            assert h[:8] not in text, (name, h)


def test_the_files_digests_are_in_clear_only_when_asked(tmp_path, capsys):
    from inspector.cli.main import main
    payload = (GOLDEN / "payload-with-resume.json").read_bytes()
    descriptor = (GOLDEN / "descriptor-with-resume.json").read_bytes()
    d = json.loads(descriptor)
    assert d["content_digest"] == "sha256:" + hashlib.sha256(payload).hexdigest()
    (tmp_path / "p.json").write_bytes(payload)
    (tmp_path / "d.json").write_bytes(descriptor)
    args = ["report", str(tmp_path / "p.json"), str(tmp_path / "d.json")]
    assert main(args) == 0
    plain = capsys.readouterr().out
    assert main(args + ["--file-digests"]) == 0
    asked = capsys.readouterr().out
    for h in _file_digests(payload, descriptor):
        assert h[:8] not in plain, h
    # a verified pair's text report lists the two files' SHA-256 only (no digests table)
    assert hashlib.sha256(payload).hexdigest() in asked and hashlib.sha256(descriptor).hexdigest() in asked
    assert f"payload: p.json ({len(payload)} bytes, {d['content_digest']})" in asked
    assert "the files' digests are shown in clear, as asked (--file-digests)" in asked
    # the descriptor's own digests as the redacted walk sees them: tagged, in clear only when asked
    red, reps = redact_payload(descriptor, source="descriptor", gate=gate_for(payload, descriptor))
    assert {r.pointer for r in reps} == {"/content_digest", "/descriptor_digest", "/snapshot/content_digest",
                                         "/snapshot/evidence_digest", "/logical_resume/content_digest",
                                         "/logical_resume/evidence_digest"}
    red, reps = redact_payload(descriptor, source="descriptor", gate=gate_for(payload, descriptor, file_digests=True))
    assert json.loads(red) == d and reps == []


def test_transform_binding_digests_over_shown_values_stay_in_clear():
    """policy_digest and binding_digest are computed over values every output shows (FORMAT.md 4.7.3):
    shown, so a reader can check S-TOOLEND-BINDING-INVALID."""
    doc = _golden()
    place = "/snapshot/run_records/*/events/*/event/metadata/a3s_tool_result_transform_binding/policy_digest"
    digest = "sha256:" + "ab" * 32
    _plant(doc, place, digest)
    assert digest in shareable_outputs(encode(doc))["redacted-payload"]


def test_free_form_integers_are_not_shown():
    doc = _golden()
    doc["snapshot"]["session"]["messages"][0]["content"].append(
        {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"pin": SIZE, "n": [SIZE]}})
    _plant(doc, "/snapshot/run_records/*/events/*/event/metadata", {"code": SIZE})
    for name, text in shareable_outputs(encode(doc)).items():
        assert not re.search(rf"(?<![0-9]){SIZE}(?![0-9])", text), name


_DIGESTISH = re.compile(r"digest|bytes|tokens|_delta|_tree|hash|signature", re.IGNORECASE)


def _layout_leaves():
    """Every leaf place of the typed layout (payload and descriptor) as ``(source, pattern)``, ``*``
    for an index; embedded tool_end metadata types included. An explicit stack, once per place."""
    out, seen = [], set()
    stack = [("payload", "", S.PAYLOAD), ("descriptor", "", S.DESCRIPTOR)]
    while stack:
        src, ptr, t = stack.pop()
        if isinstance(t, Opt):
            stack.append((src, ptr, t.inner))
        elif isinstance(t, Untagged):
            stack.extend((src, ptr, a) for a in t.alternatives)
        elif isinstance(t, Struct):
            stack.extend((src, f"{ptr}/{f.key}", f.type) for f in t.fields)
        elif isinstance(t, Tagged):
            stack.extend((src, f"{ptr}/{f.key}", f.type) for _n, v in t.variants if isinstance(v, Struct) for f in v.fields)
        elif isinstance(t, (Vec, Set)):
            stack.append((src, ptr + "/*", t.inner))
        elif isinstance(t, Map):
            stack.extend((src, f"{ptr}/{k}", t.value) for k in t.key.variants)
        else:
            if isinstance(t, Prim) and t.name == "value" and ptr.endswith("/metadata"):
                stack.extend((src, f"{ptr}/{k}", e) for k, e in _EMBEDDED.items())
            if (src, ptr) not in seen:
                seen.add((src, ptr))
                out.append((src, ptr))
    return out


def test_every_digest_and_size_place_the_allow_list_shows_is_classified():
    """No digest, size or token-estimate place is left unclassified: each one the allow-list names
    is in a ``[[digest]]`` table (clear or tag), and a place in two tables is a defect."""
    allow = allowlist()
    tables = [(d.source, re.compile("(?:" + "|".join(compile_pattern(p) for p in d.paths) + ")"), d.treatment)
              for d in allow.digests]
    digestish = [(src, p) for src, p in _layout_leaves() if _DIGESTISH.search(p.rsplit("/", 1)[-1])]
    assert len(digestish) > 100
    unclassified, twice = [], []
    for src, place in digestish:
        concrete = place.replace("*", "0")
        listed = allow.allows(src, concrete) or allow.withheld(src, concrete)
        hits = [t for s, pat, t in tables if s == src and pat.fullmatch(concrete)]
        if listed and not hits:
            unclassified.append((src, place))
        if len(hits) > 1:
            twice.append((src, place))
    assert unclassified == [] and twice == []
    clear = sum(1 for src, p in digestish if allow.allows(src, p.replace("*", "0")))
    withheld = sum(1 for src, p in digestish if allow.withheld(src, p.replace("*", "0")))
    assert (clear, withheld) == (48, 69)
