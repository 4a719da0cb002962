"""The main window on real checkpoints: verdicts, digests, the selection relay, drops, edits, saving."""

import os
import subprocess
import sys
import orjson

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QMimeData, QPoint, Qt, QUrl  # noqa: E402
from PySide6.QtGui import QDropEvent  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from inspector.checkpoint import Verdict  # noqa: E402
from inspector.gui.roles import ObjectRole, PointerRole, VerdictRole  # noqa: E402

from .conftest import CASES, GOLDEN_D, GOLDEN_P, SAMPLES, open_and_wait, stale_now  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from .conftest import open_f2_editor  # noqa: E402

GOLDEN_DIGESTS = {
    "payload size_bytes": 2090,
    "payload content_digest": "sha256:122347d3f89487c21d788c9dda54b5883f4e79459aae7b6e4bfd5728049312e0",
    "snapshot size_bytes": 1449,
    "snapshot content_digest": "sha256:8e08a5afbc93ae80421ee0a6d366b5b435fcb908a2698a2f4d00c63e862b7b10",
    "snapshot evidence_digest": "sha256:bcf4108a8ebc5c94c2722d25c513e58a2926e8bd6def80ddae8d6a2aff77363d",
    "logical resume size_bytes": 560,
    "logical resume content_digest": "sha256:d114b0ee11cd2e9e855ef04929f9f3683310ff0d45ddd4179dd5eb8411dc595d",
    "logical resume evidence_digest": "sha256:76b51a55eecc62343df274dba53d051bfff4961541d36214458d6b1c5f9ad5ee",
    "descriptor_digest": "sha256:8492af9da1760810869d7e0e25e8b3f7850e31152056596fed3c74872efa1b44",
}


def _digests(window):
    m = window.digests_model
    return {m.row_object(r).label: m.row_object(r) for r in range(m.rowCount())}


def test_golden_pair_verifies_and_every_digest_matches(qtbot, window):
    report = open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    assert report.verified
    rows = _digests(window)
    assert {k: r.recomputed for k, r in rows.items()} == GOLDEN_DIGESTS
    assert {k: r.stated for k, r in rows.items()} == GOLDEN_DIGESTS
    m = window.digests_model
    assert [m.data(m.index(r, 1)) for r in range(m.rowCount())] == ["match"] * 9
    assert window.status_label.text() == "VERIFIED: the reference accepts this checkpoint"
    assert window.header.title.text() == "VERIFIED: the reference accepts this checkpoint"
    fm = window.findings_model
    assert fm.data(fm.index(0, 0)) == "Descriptor self-validation (D) — 28 PASS"  # no root-cause section
    assert not fm.failure_indexes()
    assert window.snap_model.is_loaded and window.resume_model.is_loaded and window.desc_model.is_loaded
    assert window.windowTitle() == "payload-with-resume.json + descriptor-with-resume.json — Checkpoint Inspector"


def test_one_byte_changed_payload_shows_x_bytes_first_and_selects_descriptor_field(qtbot, window):
    report = open_and_wait(qtbot, window, [CASES / "25-p-flip-byte.payload.json", CASES / "25-p-flip-byte.descriptor.json"])
    assert report.root_cause.rule.id == "X-BYTES"
    fm = window.findings_model
    section = fm.index(0, 0)
    assert fm.data(section) == "Root cause"
    first = fm.index(0, 0, section)
    assert fm.data(first.siblingAtColumn(1)) == "X-BYTES"
    assert window.status_label.text().startswith("NOT VERIFIED: X-BYTES failed")
    # Selecting the root cause selects its descriptor field and highlights its bytes.
    window.findings_view.setCurrentIndex(fm.index(0, 0, fm.index(1, 0)))  # move away first
    window.goto_root_cause()
    f = fm.data(window.findings_view.currentIndex(), ObjectRole)
    assert f.rule.id == "X-BYTES"
    loc = f.locations[0]
    assert (loc.source, loc.pointer) == ("descriptor", "/size_bytes") or loc.source == "descriptor"
    view = window.desc_pane.view
    assert view.model().data(view.currentIndex(), PointerRole) == loc.pointer
    desc = (CASES / "25-p-flip-byte.descriptor.json").read_bytes()
    assert window.hex_descriptor.highlighted == loc.span
    s, e = loc.span
    assert desc[s - len(loc.pointer.split("/")[-1]) - 3:s].startswith(b'"')  # a value after its key
    assert window.hex_tabs.currentWidget() is window.hex_descriptor
    # the compared values in the digests table's words and order: the descriptor's digest, then the payload's
    shown = window.detail.toPlainText()
    stated = orjson.loads(desc)["content_digest"]
    assert f"\nStated\n{stated}\nRecomputed\nsha256:" in shown and "Expected" not in shown


def test_broken_sample_root_cause_span_is_the_content_digest_value(qtbot, window):
    report = open_and_wait(qtbot, window, [SAMPLES / "broken.payload.json", SAMPLES / "broken.descriptor.json"])
    assert report.root_cause.rule.id == "X-BYTES"
    window.goto_root_cause()
    assert window.hex_descriptor.highlighted == (18, 91)
    view = window.desc_pane.view
    assert view.model().data(view.currentIndex(), PointerRole) == "/content_digest"
    # consequences are labelled as such, and F8 walks the failures, root cause first
    labels = [window.findings_model.data(i) for i in window.findings_model.failure_indexes()]
    assert labels == ["FAIL · root cause", "FAIL · consequence", "FAIL · consequence"]
    window.goto_failure(+1)
    f = window.findings_model.data(window.findings_view.currentIndex(), ObjectRole)
    assert f.rule.id == "X-DESCRIPTOR"


def _drop(window, paths):
    md = QMimeData()
    md.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    ev = QDropEvent(QPoint(20, 20).toPointF(), Qt.DropAction.CopyAction, md, Qt.MouseButton.LeftButton,
                    Qt.KeyboardModifier.NoModifier)
    window.dropEvent(ev)


@pytest.mark.parametrize("order", ["payload-first", "descriptor-first"])
def test_drop_two_files_in_either_order(qtbot, window, order):
    paths = [GOLDEN_P, GOLDEN_D] if order == "payload-first" else [GOLDEN_D, GOLDEN_P]
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        _drop(window, paths)
    assert window.report.verified
    assert window.payload.path == str(GOLDEN_P) and window.descriptor.path == str(GOLDEN_D)


def test_drop_of_three_files_is_refused_with_a_message(qtbot, window):
    with qtbot.waitSignal(window.loadFailed, timeout=5000):
        _drop(window, [GOLDEN_P, GOLDEN_D, SAMPLES / "broken.payload.json"])
    assert "3 files were given" in window.banner_text("error")


def test_tree_to_bytes_and_bytes_to_tree_on_a_nested_field(qtbot, window):
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    data = GOLDEN_P.read_bytes()
    ptr = "/snapshot/session/config/tool_result_transform_policy/head_bytes"
    at = data.index(b'"head_bytes":102400') + len(b'"head_bytes":')
    span = (at, at + 6)
    view = window.snap_pane.view
    idx = window.snap_model.index_for_pointer(ptr)
    view.setCurrentIndex(idx)
    assert window.hex_payload.highlighted == span
    assert data[span[0]:span[1]] == b"102400"
    # click a byte in the middle of another nested value: the tree selects that node
    target = "/snapshot/session/config/tool_result_transform_policy/max_output_bytes"
    at2 = data.index(b'"max_output_bytes":102400') + len(b'"max_output_bytes":')
    window.hex_tabs.setCurrentWidget(window.hex_payload)
    QApplication.processEvents()
    QTest.mouseClick(window.hex_payload.viewport(), Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier,
                     window.hex_payload.offset_position(at2 + 2))
    assert view.model().data(view.currentIndex(), PointerRole) == target
    assert window.hex_payload.highlighted == (at2, at2 + 6)
    # a byte in the resume boundary selects in that tree
    turn = data.index(b'"turn":3') + 7
    window.selection.hex_clicked("payload", turn)
    rv = window.resume_pane.view
    assert rv.model().data(rv.currentIndex(), PointerRole) == "/logical_resume/turn"
    assert window.hex_payload.highlighted == (turn, turn + 1)


def test_edit_changes_digest_then_save_as_new_files_that_verify(qtbot, window, tmp_path, copies):
    p, d = copies(GOLDEN_P, GOLDEN_D)
    before = (p.read_bytes(), d.read_bytes())
    open_and_wait(qtbot, window, [p, d])
    idx = window.snap_model.index_for_pointer("/snapshot/session/config/name").siblingAtColumn(1)
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        assert window.snap_model.setData(idx, "edited fixture")
    assert window.edited
    assert "EDITED" in window.banner_text("edited")
    assert window.windowTitle().startswith("*")
    rows = _digests(window)
    assert rows["payload content_digest"].matches is False
    assert rows["payload size_bytes"].recomputed == 2090 + len("edited fixture") - len("checkpoint fixture")
    assert rows["snapshot content_digest"].matches is False
    assert window.report.root_cause.rule.id == "X-BYTES"
    assert b'"name":"edited fixture"' in window.payload.data
    # input files untouched
    assert (p.read_bytes(), d.read_bytes()) == before
    out_p, out_d = tmp_path / "new.payload.json", tmp_path / "new.descriptor.json"
    assert window.save_payload_as(str(out_p), str(out_d)) == [str(out_p), str(out_d)]
    assert (p.read_bytes(), d.read_bytes()) == before
    r = subprocess.run([sys.executable, "-m", "inspector", "verify", str(out_p), str(out_d)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "VERIFIED" in r.stdout


def test_save_as_never_overwrites(qtbot, window, tmp_path, copies):
    from inspector.session.engine import UserError

    p, d = copies(GOLDEN_P, GOLDEN_D)
    open_and_wait(qtbot, window, [p, d])
    before = p.read_bytes()
    with pytest.raises(UserError, match="input file"):
        window.save_payload_as(str(p))
    existing = tmp_path / "exists.json"
    existing.write_bytes(b"keep")
    with pytest.raises(UserError, match="already exists"):
        window.save_payload_as(str(existing))
    assert p.read_bytes() == before and existing.read_bytes() == b"keep"


def test_no_descriptor_for_an_undecodable_payload_explains_why(qtbot, window, tmp_path):
    from inspector.session.engine import UserError

    open_and_wait(qtbot, window, [CASES / "54-p-truncated.payload.json", CASES / "54-p-truncated.descriptor.json"])
    with pytest.raises(UserError, match="No descriptor can be produced.*P-PARSE"):
        window.save_payload_as(str(tmp_path / "a.json"), str(tmp_path / "b.json"))
    assert not (tmp_path / "a.json").exists()


def test_truncated_payload_shows_what_could_be_read(qtbot, window):
    report = open_and_wait(qtbot, window, [CASES / "54-p-truncated.payload.json", CASES / "54-p-truncated.descriptor.json"])
    assert report.root_cause.rule.id == "P-PARSE"
    pane = window.snap_pane
    assert pane.stack.currentIndex() == 1
    assert "not valid JSON" in pane.placeholder.text() and "EOF while parsing a string" in pane.placeholder.text()
    data = (CASES / "54-p-truncated.payload.json").read_bytes()
    assert window.hex_payload.data == data
    assert window.hex_payload._mark == len(data) - 1
    assert window.desc_model.is_loaded  # the descriptor still shows


def test_unreadable_and_unrecognised_inputs_give_messages_not_tracebacks(qtbot, window, tmp_path):
    with qtbot.waitSignal(window.loadFailed, timeout=10000):
        window.open_paths([str(tmp_path / "missing.json")])
    assert window.banner_text("error") == f"{tmp_path / 'missing.json'}: no such file"
    gz = tmp_path / "x.json.gz"
    gz.write_bytes(b"\x1f\x8b\x08\x00junk")
    # alone, a gzip file is not a checkpoint file: said so, not verified as a failed one
    with qtbot.waitSignal(window.loadFailed, timeout=10000):
        window.open_paths([str(gz)])
    assert window.banner_text("error").startswith(
        "x.json.gz: this is not a checkpoint file (the file is gzip-compressed; decompress it first")
    # two payloads are compared, not refused
    with qtbot.waitSignal(window.comparer.opened, timeout=10000) as opened:
        window.open_paths([str(GOLDEN_P), str(SAMPLES / "broken.payload.json")])
    with qtbot.waitSignal(opened.args[0].ready, timeout=20000):
        pass
    opened.args[0].close()


def test_stale_input_is_detected_and_reload_offered(qtbot, window, copies):
    p, d = copies(GOLDEN_P, GOLDEN_D)
    open_and_wait(qtbot, window, [p, d])
    assert not stale_now(qtbot, window)
    st = os.stat(p)
    p.write_bytes(p.read_bytes().replace(b"retain", b"Retain", 1))
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    assert stale_now(qtbot, window)
    assert "changed on disk" in window.banner_text("stale")
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        window.reload()
    assert window.report.root_cause.rule.id == "X-BYTES"
    assert window.banner_text("stale") is None


def test_folder_lists_every_checkpoint_with_its_verdict(qtbot, window, tmp_path, copies):
    from .conftest import open_mixed_folder

    assert open_mixed_folder(qtbot, window, tmp_path / "many") == 3
    m = window.folder_model
    rows = [m.data(m.index(r, 0), ObjectRole) for r in range(m.rowCount())]
    # notes.txt is listed last, as not a checkpoint (not as a failing payload)
    assert [os.path.basename(r.other) for r in rows if not r.checkpoint] == ["notes.txt"]
    last = m.rowCount() - 1
    assert [m.data(m.index(last, c)) for c in range(3)] == [
        "notes.txt", "—", "not a checkpoint: neither a checkpoint payload nor a descriptor was recognised"]
    assert m.data(m.index(last, 0), VerdictRole) is Verdict.NOT_APPLICABLE
    assert "1 other file is not a checkpoint (notes.txt)" in window.banner_text("info")
    rows = rows[:-1]
    by_payload = {os.path.basename(r.payload) if r.payload else None: r for r in rows}
    assert by_payload["payload-with-resume.json"].verified
    assert os.path.basename(by_payload["payload-with-resume.json"].descriptor) == "descriptor-with-resume.json"
    assert by_payload["broken.payload.json"].root_rule == "X-BYTES"
    assert os.path.basename(by_payload["broken.payload.json"].descriptor) == "broken.descriptor.json"
    assert os.path.basename(by_payload[None].descriptor) == "44-p-f32-08.descriptor.json"
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        window._folder_activated(m.index(rows.index(by_payload["broken.payload.json"]), 0))
    assert window.report.root_cause.rule.id == "X-BYTES"


def test_recent_files_and_layout_are_remembered(qtbot, window, settings):
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    assert window.recent()[0] == [str(GOLDEN_P), str(GOLDEN_D)]
    window.save_settings()
    from inspector.gui.window import MainWindow

    w2 = MainWindow(settings=settings)
    qtbot.addWidget(w2)
    assert w2.recent()[0] == [str(GOLDEN_P), str(GOLDEN_D)]
    assert w2.recent_menu.actions()[0].text().endswith("payload-with-resume.json + descriptor-with-resume.json")
    assert settings.value("window/state") is not None


def test_the_bundled_sample_is_not_a_recent_file(qtbot, window):
    """The window opens the bundled sample at every start without files: it became the first
    recent entry each time (pushing the user's files down; in a moved or re-mounted installation
    it pointed at a sample that was no longer there). File ▸ Open Sample opens it."""
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        window.open_sample()  # what a start without files does
    assert window.is_sample()
    assert window.recent() == [[str(GOLDEN_P), str(GOLDEN_D)]]
    assert [a.text() for a in window.recent_menu.actions()][0].endswith(
        "payload-with-resume.json + descriptor-with-resume.json")


def test_raw_text_edit_recomputes_and_marks_the_window_edited(qtbot, window):
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    ed = window.raw_editor
    assert ed.text("payload").encode() == GOLDEN_P.read_bytes()
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        window.request_raw_edit("payload", ed.text("payload").replace('"turn":3', '"turn":0'))
    assert window.edited
    assert window.report.root_cause.rule.id == "X-BYTES"
    assert window.report.for_rule("L-BOUNDARY").verdict is Verdict.FAIL


def test_no_arguments_opens_the_bundled_sample(qtbot, window):
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        window.open_sample()
    assert window.report.verified
    assert os.path.basename(window.payload.path) == "sample.payload.json"


def test_find_copy_value_and_copy_pointer(qtbot, window):
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    window.snap_pane.view.setFocus()
    window.selection.last_tree_view = window.snap_pane.view
    view = window.snap_pane.view
    with qtbot.waitSignal(window.finder.moved, timeout=20000):
        window.find_in_tree("deepseek")  # the whole document is searched: the one value that has it
    assert view.model().data(view.currentIndex(), PointerRole) == "/snapshot/session/model_name"
    assert window.find_bar.status.text() == "1 match"
    window.copy_value()
    assert QApplication.clipboard().text() == "deepseek-chat"
    window.copy_pointer()
    assert QApplication.clipboard().text() == "/snapshot/session/model_name"
    with qtbot.waitSignal(window.finder.searched, timeout=20000) as found:
        window.find_in_tree("no such text anywhere")
    assert found.args == [0]
    assert window.find_bar.status.text() == "not found"


def test_payload_over_the_ceiling_is_not_read_but_still_judged(qtbot, window, tmp_path):
    big = tmp_path / "huge.payload.json"
    with open(big, "wb") as fh:  # sparse: 256 MiB + 1 byte, costs no disk
        fh.truncate(268435457)
    report = open_and_wait(qtbot, window, [big, GOLDEN_D])
    assert report.root_cause.rule.id == "P-BOUND"
    assert window.payload.data is None and window.payload.size == 268435457
    assert "not read" in window.snap_pane.placeholder.text()
    assert window.hex_payload.data is None
    assert window.desc_model.is_loaded


def test_the_rule_column_shows_the_longest_rule_id_whole(qtbot, window):
    """Issue 25: rule ids were cut ("S-TOOLEND-EVIDENC…"); the column fits the catalogue's longest id."""
    from inspector.checkpoint.rules.catalogue import catalogue

    fv = window.findings_view
    longest = max((r.id for r in catalogue()), key=fv.fontMetrics().horizontalAdvance)
    assert longest == "S-TOOLEND-EVIDENCE-MISMATCH"
    assert fv.columnWidth(1) >= fv.fontMetrics().horizontalAdvance(longest) + 12


def test_a_refused_edit_gives_the_status_bar_its_verdict_back(qtbot, window):
    """Issue 25: after a rejected edit the status bar said "Recomputing…" for good."""

    from .conftest import GOLDEN_D, GOLDEN_P, open_and_wait

    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    before = window.status_label.text()
    assert before.startswith("VERIFIED")
    _view, editor = open_f2_editor(qtbot, window, "/snapshot/session/config/max_context_length")
    editor.selectAll()
    with qtbot.waitSignal(window.editFailed, timeout=20000):
        QTest.keyClicks(editor, "not a number")
        QTest.keyClick(editor, Qt.Key.Key_Return)
    assert window.status_label.text() == before
    assert window.banner_text("error").startswith("The edit was not applied")


def test_the_next_step_of_an_edited_copy_speaks_to_the_person_who_edited_it(qtbot, window):
    """Issue 25: after the user's own sandbox edit broke a rule, the detail told them to 'ask the customer'."""

    from inspector.gui.widgets.details import EDITED_NEXT_STEP

    from .conftest import GOLDEN_D, GOLDEN_P, open_and_wait

    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    _view, editor = open_f2_editor(qtbot, window, "/snapshot/session/config/max_context_length")
    editor.selectAll()
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        QTest.keyClicks(editor, "7")
        QTest.keyClick(editor, Qt.Key.Key_Return)
    assert window.report.root_cause is not None  # the edited payload no longer matches its descriptor
    text = window.detail.toPlainText()
    assert EDITED_NEXT_STEP in text and "Ask the customer" not in text


def test_title_when_nothing_is_open(qtbot, window, tmp_path):
    with qtbot.waitSignal(window.loadFailed, timeout=20000):
        window.open_paths([str(tmp_path / "missing.json")])
    assert window.windowTitle() == "Checkpoint Inspector"


def test_a_banner_is_as_tall_as_its_text_and_the_verdict_is_not_stretched(qtbot, window):
    # In the tool bar at the top, a wrapped banner asked for its text's height at a guessed narrow
    # width (101 px for a 42 px three-line note at 1024 px; ~90 px for the one-line EDITED banner), and
    # the verdict under it was stretched to fill the bar, its lines pulled apart.
    from .test_editing import _edit_name_with_f2

    window.resize(1024, 700)
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    _edit_name_with_f2(qtbot, window)
    banner = window._banners["edited"]
    qtbot.waitUntil(lambda: banner.isVisible())
    QApplication.processEvents()
    label = banner.label
    m = banner.layout().contentsMargins()
    text_h = label.heightForWidth(label.width())
    assert text_h < 3 * label.fontMetrics().lineSpacing()  # the sentence fits on a line or two at 1024 px
    buttons = max(b.sizeHint().height() for b in banner.buttons.values())
    assert banner.height() <= max(text_h, buttons) + m.top() + m.bottom() + 2
    assert window.header.height() <= window.header.sizeHint().height() + 2
