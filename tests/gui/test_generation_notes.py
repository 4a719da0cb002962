"""The window shows what the payload says about its writer and how an input's role was
chosen (item 8): the report notes in a banner beside the pinned reference's verdict, and the root
cause's notes in the finding detail."""

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest

from inspector.checkpoint import encode
from tests.builders import golden, rebind, write_pair

from .conftest import GOLDEN_D, GOLDEN_P, open_and_wait

NEWER = ("written by a newer A3S Code: A3S Code 8.5 or later (8.5.x, read at 8.5.6, commit 0473774) writes "
         "LoopConvergenceState.mutations, which the pinned 8.3.0 (06c82e9) reference does not know and drops on read; "
         "the reference rejects the artifact for that alone (P-CANONICAL): a version difference, not corruption")


def _pair(tmp_path, name, edit, components=False):
    p, d = golden()
    edit(p)
    payload = encode(p)
    return write_pair(tmp_path, name, payload, rebind(payload, d, components=components))


def test_newer_release_is_named_in_the_banner_and_the_root_cause_detail(qtbot, window, tmp_path):
    paths = _pair(tmp_path, "newer", lambda p: p["logical_resume"]["convergence"].update(mutations={"count": 1}))
    report = open_and_wait(qtbot, window, paths)
    assert report.root_cause.rule.id == "P-CANONICAL"
    # the plain-language sentence leads; the reference's rule and message stay beside it
    assert window.header.title.text().startswith("NOT VERIFIED: The payload reads correctly but is not byte for byte")
    assert window.header.reference.text().startswith("Reference: P-CANONICAL failed")
    assert window.banner_text("notes") == NEWER[:1].upper() + NEWER[1:] + "."
    QTest.keyClick(window.findings_view, Qt.Key.Key_F8, Qt.KeyboardModifier.ControlModifier)  # root cause
    assert NEWER in window.detail.toPlainText()


def test_shadow_candidates_note_beside_a_verified_verdict(qtbot, window, tmp_path):
    def shadow(p):
        p["snapshot"]["session"].update(tenant_id="tenant-42", principal="user:alice", durable_memory_binding={
            "contextIdProfile": "a3s.code.memory.context.session-run-invocation-sequence-sha256.v2",
            "mode": "shadow_candidates", "namespace": {"principalId": "user:alice", "scopeId": "repo:parser",
                                                       "tenantId": "tenant-42"},
            "retrievalProfile": "a3s.memory.lexical.word-cjk-bigram.v1", "schemaVersion": 4})
    report = open_and_wait(qtbot, window, _pair(tmp_path, "shadow", shadow, components=True))
    assert report.verified
    assert window.header.title.text() == "VERIFIED: the reference accepts this checkpoint"
    assert window.banner_text("notes") == (
        "The durable memory binding is in shadow_candidates mode: valid for the pinned 8.3.0 (06c82e9) reference "
        "(and for the verdict here), but A3S Code 8.4.0 removed that mode, so 8.4.0 and later reject this artifact "
        "(P-PARSE: unknown variant `shadow_candidates`, expected `active_recall`).")
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])  # another checkpoint: the note goes
    assert window.banner_text("notes") is None


def test_role_chosen_by_the_other_file_is_said_in_the_hints(qtbot, window, tmp_path):
    p, d = golden()
    p["logical_resume"]["messages"][0]["content"][0]["text"] = "see the a3s.code.session-checkpoint-descriptor.v1 file"
    payload = encode(p)[:2000]
    pp, dp = write_pair(tmp_path, "cut", payload, rebind(payload, d))
    report = open_and_wait(qtbot, window, [dp, pp])  # descriptor first
    assert report.root_cause.rule.id == "P-PARSE"
    assert window.banner_text("hint") == (
        "payload cut.payload.json: taken as the payload, because cut.descriptor.json is the descriptor; its own "
        "content does not decide (it is not complete JSON and only text inside it mentions a descriptor).")
