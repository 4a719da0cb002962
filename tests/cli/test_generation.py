""""Written by a newer A3S Code": the release FORMAT.md 3.4 names, next to the pinned reference's verdict. Payloads are the golden one with a later release's fields added (canonical encoder,
descriptor re-pointed); the verdicts were produced by ``oracle2 verify`` and are re-checked when it
is built here."""

import json

import pytest

from inspector.checkpoint import encode, verify
from inspector.cli import main
from tests.builders import HAVE_ORACLE, golden, oracle_verify, rebind, write_pair

DRIFT = {"ok": False, "rule": "P-CANONICAL", "code": "a3s.code.session_checkpoint.content_drift",
         "message": "session checkpoint content drift: payload is not the exact canonical JSON encoding"}
OK = {"ok": True, "rule": None, "code": None, "message": None}
R85 = "A3S Code 8.5 or later (8.5.x, read at 8.5.6, commit 0473774)"
R856 = "A3S Code 8.5.6 or later (session review, commits 43e233a/2a23614)"
REF = "8.3.0 (06c82e9)"
SHADOW = {"contextIdProfile": "a3s.code.memory.context.session-run-invocation-sequence-sha256.v2",
          "mode": "shadow_candidates", "namespace": {"principalId": "user:alice", "scopeId": "repo:parser",
                                                     "tenantId": "tenant-42"},
          "retrievalProfile": "a3s.memory.lexical.word-cjk-bigram.v1", "schemaVersion": 4}


def _shadow(p):
    p["snapshot"]["session"].update(tenant_id="tenant-42", principal="user:alice", durable_memory_binding=SHADOW)


#: name -> (payload edit, trailing bytes, rebind the components too, reference verdict)
CASES = {
    "convergence": (lambda p: p["logical_resume"]["convergence"].update(
        gate_continuation_count=2, mutations={"count": 3, "digest": "sha256:" + "ab" * 32}), b"", False, DRIFT),
    "effect-digest": (lambda p: p["logical_resume"]["verification_reports"].append({
        "schema": "a3s.verification_report.v1", "subject": "build", "status": "passed", "checks": [],
        "effect_digest": "sha256:" + "cd" * 32}), b"", False, DRIFT),
    "transcript": (lambda p: p["logical_resume"]["messages"][0].update(
        transcript_text="retain exact state", transcript_visibility="wire"), b"", False, DRIFT),
    "session-review": (lambda p: p["snapshot"].update(session_review={"status": "approved"}), b"", False, DRIFT),
    "newer-and-edited": (lambda p: p["logical_resume"]["convergence"].update(workspace_head="abc123"), b"\n", False,
                         DRIFT),
    "shadow": (_shadow, b"", True, OK),
}


def _build(tmp_path, name):
    edit, tail, components, _ = CASES[name]
    p, d = golden()
    edit(p)
    payload = encode(p) + tail
    return write_pair(tmp_path, name, payload, rebind(payload, d, components=components))


def _verify_json(capsysbinary, p, d):
    code = main(["verify", str(p), str(d), "--format", "json"])
    out, _ = capsysbinary.readouterr()
    return code, json.loads(out)


def _sign(field, pointer, release, change="added"):
    return {"field": field, "pointer": pointer, "release": release, "change": change,
            "effect": f"unknown to {REF}: dropped on read, so the re-encoding differs (P-CANONICAL)"}


def test_newer_convergence_fields_name_the_release_in_json_and_notes(capsysbinary, tmp_path):
    code, report = _verify_json(capsysbinary, *_build(tmp_path, "convergence"))
    assert code == 1 and report["root_cause"]["rule"] == "P-CANONICAL"
    summary = (f"written by a newer A3S Code: {R85} writes LoopConvergenceState.gate_continuation_count, "
               f"LoopConvergenceState.mutations, which the pinned {REF} reference does not know and drops on read; "
               "the reference rejects the artifact for that alone (P-CANONICAL): a version difference, not corruption")
    assert report["generation"] == {
        "detected": "newer", "written_by": R85, "reference": REF, "explains": "P-CANONICAL", "explains_all": True,
        "summary": summary,
        "signs": [_sign("LoopConvergenceState.gate_continuation_count",
                        "/logical_resume/convergence/gate_continuation_count", R85),
                  _sign("LoopConvergenceState.mutations", "/logical_resume/convergence/mutations", R85)]}
    assert report["notes"] == [summary]
    assert report["root_cause"]["notes"][-1] == summary
    assert report["root_cause"]["location"]["pointer"] == "/logical_resume/convergence/gate_continuation_count"


@pytest.mark.parametrize("name, field, pointer, release", [
    ("effect-digest", "VerificationReport.effect_digest", "/logical_resume/verification_reports/0/effect_digest", R85),
    ("transcript", "Message.transcript_text", "/logical_resume/messages/0/transcript_text", R85),
    ("session-review", "SessionSnapshotV1.session_review", "/snapshot/session_review", R856),
])
def test_each_later_field_is_dated(capsysbinary, tmp_path, name, field, pointer, release):
    code, report = _verify_json(capsysbinary, *_build(tmp_path, name))
    g = report["generation"]
    assert code == 1 and report["root_cause"]["rule"] == "P-CANONICAL"
    assert (g["detected"], g["written_by"], g["explains_all"]) == ("newer", release, True)
    assert g["signs"][0] == _sign(field, pointer, release)
    assert report["root_cause"]["location"]["pointer"] == pointer


def test_transcript_lists_both_message_fields(tmp_path):
    p, d = _build(tmp_path, "transcript")
    g = verify(p.read_bytes(), d.read_bytes()).generation
    assert [s.field for s in g.signs] == ["Message.transcript_text", "Message.transcript_visibility"]


def test_newer_fields_with_other_changes_do_not_excuse_them(capsysbinary, tmp_path):
    code, report = _verify_json(capsysbinary, *_build(tmp_path, "newer-and-edited"))
    g = report["generation"]
    assert code == 1 and (g["detected"], g["explains_all"]) == ("newer", False)
    assert g["summary"] == (f"written by a newer A3S Code: {R85} writes LoopConvergenceState.workspace_head, which "
                            f"the pinned {REF} reference does not know and drops on read; other differences remain "
                            "(trailing newline)")


def test_shadow_candidates_verifies_here_and_says_newer_releases_reject_it(capsysbinary, tmp_path):
    p, d = _build(tmp_path, "shadow")
    code = main(["verify", str(p), str(d)])
    text = capsysbinary.readouterr()[0].decode()
    assert code == 0
    summary = (f"the durable memory binding is in shadow_candidates mode: valid for the pinned {REF} reference (and "
               "for the verdict here), but A3S Code 8.4.0 removed that mode, so 8.4.0 and later reject this artifact "
               "(P-PARSE: unknown variant `shadow_candidates`, expected `active_recall`)")
    assert (f"VERIFIED: the reference accepts this checkpoint.\n\n"
            f"Written by: A3S Code 8.3.0 or earlier; the verdict above is the pinned {REF} reference's\n"
            "  - DurableMemoryBindingV1.mode = shadow_candidates at payload /snapshot/session/durable_memory_binding/"
            "mode: removed in A3S Code 8.4.0 (2026-09-08, commit 01f421e)\n"
            f"Note: {summary}\n") in text
    code, report = _verify_json(capsysbinary, p, d)
    assert code == 0 and report["verified"] is True
    assert report["generation"]["detected"] == "rejected-by-newer" and report["generation"]["explains"] is None
    assert report["notes"] == [summary]


def test_text_output_of_a_newer_artifact(capsysbinary, tmp_path):
    p, d = _build(tmp_path, "session-review")
    assert main(["verify", str(p), str(d)]) == 1
    text = capsysbinary.readouterr()[0].decode()
    assert (f"Written by: {R856}; the verdict above is the pinned {REF} reference's\n"
            f"  - SessionSnapshotV1.session_review at payload /snapshot/session_review: added in {R856}\n") in text
    assert text.count("written by a newer A3S Code:") == 1  # in the root cause's notes, not repeated


def test_sarif_carries_the_generation(capsysbinary, tmp_path):
    p, d = _build(tmp_path, "convergence")
    main(["verify", str(p), str(d), "--format", "sarif"])
    run = json.loads(capsysbinary.readouterr()[0])["runs"][0]
    assert run["properties"]["generation"]["written_by"] == R85


def test_golden_has_no_generation():
    p, d = golden()
    payload = encode(p)
    report = verify(payload, rebind(payload, d))
    assert report.verified and report.generation is None and report.notes == []


@pytest.mark.parametrize("name", sorted(CASES))
def test_engine_root_cause_is_the_reference_verdict(tmp_path, name):
    p, d = _build(tmp_path, name)
    rc = verify(p.read_bytes(), d.read_bytes()).root_cause
    got = OK if rc is None else {"ok": False, "rule": rc.rule.id, "code": rc.rule.code, "message": rc.message}
    assert got == CASES[name][3]


@pytest.mark.skipif(not HAVE_ORACLE, reason="oracle2 (Rust reference) not built here; set ORACLE2")
@pytest.mark.parametrize("name", sorted(CASES))
def test_pins_match_reference(tmp_path, name):
    assert oracle_verify(*_build(tmp_path, name)) == CASES[name][3]
