"""Sessions, not files, in the window: a re-saved copy offers Restore Original (the button in its
notice, clicked), which writes the proven original to a new file and shows the restored pair VERIFIED; an SDK
export wrapper opens as the pair it holds and says which form it was in."""

from __future__ import annotations

import orjson
import pytest

pytest.importorskip("PySide6")
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402

from inspector.checkpoint.sdk_export import wrap  # noqa: E402
from inspector.gui import dialogs  # noqa: E402

from .conftest import GOLDEN_D, GOLDEN_P, open_and_wait  # noqa: E402

P = GOLDEN_P.read_bytes()


def test_a_crlf_copy_offers_restore_and_the_restored_pair_verifies(qtbot, window, tmp_path, monkeypatch):
    crlf = tmp_path / "received.payload.json"
    crlf.write_bytes(orjson.dumps(orjson.loads(P), option=orjson.OPT_INDENT_2).replace(b"\n", b"\r\n"))
    report = open_and_wait(qtbot, window, [crlf, GOLDEN_D])
    assert report.root_cause.rule.id == "X-BYTES" and report.restoration is not None
    # one story: the verdict leads with the proven restore, and nothing it disproves is said (FORMAT.md 3.1, 3.2)
    assert window.banner_text("restore") == (
        "Restorable: changed after export: CRLF line endings between tokens; whitespace between tokens (the "
        "reference writes compact JSON). Restore Original… writes the exported 2090 bytes to a new file.")
    assert window.header.title.text() == (
        "NOT VERIFIED: The payload file is the exported checkpoint, re-saved or converted after export: what it holds "
        "is unchanged, and the original can be restored exactly (its size and SHA-256 match the descriptor).")
    assert window.detail.toPlainText().count("different checkpoints") == 0
    shown = window.detail.toPlainText()
    assert ("Likely causes: CRLF line endings between tokens; whitespace between tokens (the reference writes compact "
            "JSON)\nNext step: Restore the original and use that file: in the window, File ▸ Restore Original… "
            "writes it to a new file") in shown
    assert "ask the customer" not in shown.lower()
    # the compared values in the digests table's words and order: the descriptor's size, then the file's
    assert "\nStated\n2090\nRecomputed\n3273\n" in shown and "Expected" not in shown
    assert window.act_restore.isEnabled()
    target = tmp_path / "received.payload.restored.json"
    asked = []
    monkeypatch.setattr(dialogs, "ask_new_file", lambda w, title, suggestion: asked.append(suggestion) or str(target))
    button = window._banners["restore"].buttons["Restore Original…"]
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        QTest.mouseClick(button, Qt.MouseButton.LeftButton)
    assert asked == [str(target)]  # suggested beside the received file
    assert target.read_bytes() == P and crlf.read_bytes() != P  # the input is untouched
    assert window.report.verified and window.doc.payload.path == str(target)
    assert window.banner_text("restore") is None and not window.act_restore.isEnabled()


def test_a_changed_value_offers_no_restore(qtbot, window, tmp_path):
    changed = tmp_path / "changed.payload.json"
    changed.write_bytes(P.replace(b'"prompt":"continue"', b'"prompt":"continuE"'))
    report = open_and_wait(qtbot, window, [changed, GOLDEN_D])
    assert report.root_cause.rule.id == "X-BYTES" and report.restoration is None
    assert window.banner_text("restore") is None and not window.act_restore.isEnabled()


def test_an_sdk_export_wrapper_opens_as_its_pair(qtbot, window, tmp_path):
    w = tmp_path / "export.json"
    w.write_bytes(wrap(P, GOLDEN_D.read_bytes()))
    report = open_and_wait(qtbot, window, [w])
    assert report.verified
    assert (window.doc.payload.data, window.doc.descriptor.data) == (P, GOLDEN_D.read_bytes())
    assert window.banner_text("hint") == (
        "export.json is an SDK export wrapper: the payload shown is its contentBase64, decoded (byte offsets count "
        "in it), and the descriptor is its descriptor object.")


def test_a_payload_opened_alone_opens_with_the_descriptor_beside_it(qtbot, window, tmp_path):
    import shutil

    shutil.copyfile(GOLDEN_P, tmp_path / "run-7.payload.json")
    shutil.copyfile(GOLDEN_D, tmp_path / "renamed-by-someone.json")  # found by digest, not by name
    report = open_and_wait(qtbot, window, [tmp_path / "run-7.payload.json"])
    assert report.verified and window.doc.paths == [str(tmp_path / "run-7.payload.json"),
                                                    str(tmp_path / "renamed-by-someone.json")]
    assert window.banner_text("hint") == (
        "Opened run-7.payload.json with the descriptor beside it, renamed-by-someone.json, which matches (its "
        "content_digest is this payload's SHA-256).")


def test_a_payload_opened_alone_with_no_match_beside_it_says_none_was_found(qtbot, window, tmp_path):
    import shutil

    shutil.copyfile(GOLDEN_P, tmp_path / "lonely.payload.json")
    report = open_and_wait(qtbot, window, [tmp_path / "lonely.payload.json"])
    assert not report.verified and report.ok  # consistent: the payload alone
    assert window.banner_text("hint").startswith("No descriptor that matches lonely.payload.json was found beside it. "
                                                 "Only a payload was given")


def test_a_wrapper_of_a_resaved_copy_is_not_offered_a_restore_it_cannot_do(qtbot, window, tmp_path):
    """One SDK export wrapper holding a pretty-printed payload: the window cannot write its original (Restore
    Original is off), so the verdict does not say to use it; the rule's own words stand."""
    from inspector.checkpoint import rule

    w = tmp_path / "export.json"
    w.write_bytes(wrap(orjson.dumps(orjson.loads(P), option=orjson.OPT_INDENT_2), GOLDEN_D.read_bytes()))
    report = open_and_wait(qtbot, window, [w])
    assert report.root_cause.rule.id == "X-BYTES" and report.restoration is not None
    assert not window.act_restore.isEnabled()
    assert window.header.title.text() == "NOT VERIFIED: " + rule("X-BYTES").plain.meaning
    assert "Restore Original" not in window.detail.toPlainText()
