"""Find, Go to JSON Pointer, Expand All and documents of any shape and depth, by keyboard."""

import json

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

from inspector.gui.roles import PointerRole  # noqa: E402
from inspector.session.search import search_document  # noqa: E402

from .conftest import GOLDEN_D, GOLDEN_P, SAMPLES, open_and_wait  # noqa: E402
from inspector.gui.document import sample_paths  # noqa: E402

CTRL = Qt.KeyboardModifier.ControlModifier


def _deep_payload(tmp_path, depth: int):
    """The golden payload with an unknown snapshot key nested ``depth`` arrays deep."""
    g = GOLDEN_P.read_bytes()
    ins = b'"zz_deep":' + b"[" * depth + b'"needle-text"' + b"]" * depth + b","
    k = g.index(b'"schema_version":1,"session"')
    p = tmp_path / "deep.payload.json"
    p.write_bytes(g[:k] + ins + g[k:])
    return p


def _find(qtbot, window, text, key=Qt.Key.Key_Return, mod=Qt.KeyboardModifier.NoModifier):
    QTest.keyClick(window, Qt.Key.Key_F, CTRL)
    edit = window.find_bar.edit
    qtbot.waitUntil(lambda: QApplication.focusWidget() is edit)
    edit.clear()
    QTest.keyClicks(edit, text)
    with qtbot.waitSignal(window.finder.moved, timeout=30000):
        QTest.keyClick(edit, key, mod)


def _current(view):
    return view.model().data(view.currentIndex(), PointerRole)


def test_find_counts_matches_across_the_trees_and_steps_with_enter_and_f3(qtbot, window):
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    _find(qtbot, window, "source-run")
    # document order: /logical_resume/run_id (resume tree), the run record (snapshot tree), the descriptor
    assert [(m.source, m.pointer) for m in window.finder.matches] == [
        ("payload", "/logical_resume/run_id"), ("payload", "/snapshot/run_records/0/snapshot/id"),
        ("descriptor", "/logical_resume/source_run_id")]
    assert window.find_bar.status.text() == "1 of 3 matches"
    assert _current(window.resume_pane.view) == "/logical_resume/run_id"
    with qtbot.waitSignal(window.finder.moved, timeout=5000):
        QTest.keyClick(window.find_bar.edit, Qt.Key.Key_Return)
    assert window.find_bar.status.text() == "2 of 3 matches"
    assert _current(window.snap_pane.view) == "/snapshot/run_records/0/snapshot/id"
    s, e = window.hex_payload.highlighted
    assert window.payload.data[s:e] == b'"source-run"'
    with qtbot.waitSignal(window.finder.moved, timeout=5000):
        QTest.keyClick(window.find_bar.edit, Qt.Key.Key_Return, Qt.KeyboardModifier.ShiftModifier)
    assert window.find_bar.status.text() == "1 of 3 matches"
    with qtbot.waitSignal(window.finder.moved, timeout=5000):
        QTest.keyClick(window.find_bar.edit, Qt.Key.Key_F3, Qt.KeyboardModifier.ShiftModifier)  # wraps
    assert window.find_bar.status.text() == "3 of 3 matches"
    assert _current(window.desc_pane.view) == "/logical_resume/source_run_id"


def test_find_reaches_rows_no_tree_has_loaded_and_the_descriptor(qtbot, window):
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    assert window.snap_model.index_for_pointer("/snapshot/run_records/0").isValid()
    _find(qtbot, window, "8492af9da1760810")  # the descriptor_digest, only in the descriptor
    assert window.find_bar.status.text() == "1 match"
    assert _current(window.desc_pane.view) == "/descriptor_digest"
    assert window.lower_trees.currentWidget() is window.desc_pane


def test_go_to_json_pointer_with_ctrl_g(qtbot, window):
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    QTest.keyClick(window, Qt.Key.Key_G, CTRL)
    field = window.find_bar.pointer
    qtbot.waitUntil(lambda: QApplication.focusWidget() is field)
    QTest.keyClicks(field, "/snapshot/session/config/tool_result_transform_policy/head_bytes")
    QTest.keyClick(field, Qt.Key.Key_Return)
    assert _current(window.snap_pane.view) == "/snapshot/session/config/tool_result_transform_policy/head_bytes"
    s, e = window.hex_payload.highlighted
    assert window.payload.data[s:e] == b"102400"
    field.clear()
    QTest.keyClicks(field, "/no/such")
    QTest.keyClick(field, Qt.Key.Key_Return)
    assert window.find_bar.status.text() == "no /no/such here"


def test_expand_all_and_collapse_all(qtbot, window):
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    view = window.snap_pane.view
    window.focus_pane(view)
    idx = window.snap_model.index_for_pointer("/snapshot/run_records/0/snapshot")
    assert not view.isExpanded(idx)
    view.setCurrentIndex(window.snap_model.index_for_pointer("/snapshot"))
    with qtbot.waitSignal(window.expander.finished, timeout=20000) as done:
        QTest.keyClick(view, Qt.Key.Key_X, CTRL | Qt.KeyboardModifier.ShiftModifier)
    assert done.args[0] > 50
    assert view.isExpanded(window.snap_model.index_for_pointer("/snapshot/run_records/0/snapshot"))
    assert view.isExpanded(window.snap_model.index_for_pointer("/snapshot/session/config/tool_result_transform_policy"))
    QTest.keyClick(view, Qt.Key.Key_L, CTRL | Qt.KeyboardModifier.ShiftModifier)
    assert not view.isExpanded(window.snap_model.index_for_pointer("/snapshot"))


def test_a_deeply_nested_unknown_value_is_shown_found_and_expanded_without_recursion(qtbot, window, tmp_path):
    p = _deep_payload(tmp_path, 100_000)
    report = open_and_wait(qtbot, window, [p, GOLDEN_D])
    assert report.root_cause.rule.id == "X-BYTES"
    assert window.snap_model.is_loaded  # nested past serde's limit, still a tree
    _find(qtbot, window, "NEEDLE-text")
    assert window.find_bar.status.text() == "1 match"
    # the tree goes 256 levels down; the bytes show the match itself
    assert _current(window.snap_pane.view) == "/snapshot/zz_deep" + "/0" * 254
    s, e = window.hex_payload.highlighted
    assert window.payload.data[s:e] == b'"needle-text"'
    view = window.snap_pane.view
    view.setFocus()
    view.setCurrentIndex(window.snap_model.index_for_pointer("/snapshot/zz_deep"))
    with qtbot.waitSignal(window.expander.finished, timeout=30000) as done:
        QTest.keyClick(view, Qt.Key.Key_X, CTRL | Qt.KeyboardModifier.ShiftModifier)
    assert done.args[0] == 257  # one row per level, 256 levels below the selected row (Expand All's depth limit)


def test_search_document_is_iterative_and_exact():
    depth = 300_000
    data = b'{"a":' + b"[" * depth + b'"x\\u00e9y"' + b"]" * depth + b',"b~/c":"\\u2028"}'
    hits, complete = search_document(data, "XÉ")
    assert complete and len(hits) == 1
    ptr, s, e = hits[0]
    assert ptr == "/a" + "/0" * depth and data[s:e] == b'"x\\u00e9y"'
    assert search_document(data, "b~/")[0] == [("/b~0~1c", len(data) - 9, len(data) - 1)]
    assert search_document(b"[1,2,3]", "x") == ([], True)


def test_a_500000_element_array_opens_with_rows_made_on_demand(qtbot, window, tmp_path):
    p = tmp_path / "big-array.json"
    p.write_bytes(json.dumps(list(range(500_000))).encode())
    with qtbot.waitSignal(window.analysisReady, timeout=60000):
        window.open_paths([str(p)])
    m = window.snap_model
    assert m.is_loaded
    assert m.rowCount() < 1000  # not 500,000 rows at once
    idx = m.index_for_pointer("/499999")
    assert idx.isValid() and m.data(idx.siblingAtColumn(1)) == "499999"


def test_large_arrays_show_range_rows_and_navigation_goes_through_them(qtbot, window, tmp_path):
    doc = json.loads(GOLDEN_P.read_bytes())
    doc["snapshot"]["session"]["messages"] = [
        {"content": [{"text": f"m{i}", "type": "text"}], "role": "user"} for i in range(2500)]
    p = tmp_path / "long.payload.json"
    p.write_bytes(json.dumps(doc, separators=(",", ":")).encode())
    open_and_wait(qtbot, window, [p])
    m = window.snap_model
    msgs = m.index_for_pointer("/snapshot/session/messages")
    m.fetchMore(msgs)
    assert m.rowCount(msgs) == 3  # [0 … 999], [1,000 … 1,999], [2,000 … 2,499]
    assert [m.data(m.index(r, 0, msgs)) for r in range(3)] == ["[0 … 999]", "[1,000 … 1,999]", "[2,000 … 2,499]"]
    assert m.data(m.index(2, 1, msgs)) == "500 items"
    idx = m.index_for_pointer("/snapshot/session/messages/2499/content/0/text")
    assert idx.isValid() and m.data(idx.siblingAtColumn(1)) == "“m2499”"
    assert m.data(idx.parent().parent().parent().parent(), 0) == "[2,000 … 2,499]"
    assert m.index_for_offset(p.read_bytes().rindex(b"m2499")) == idx
    view = window.snap_pane.view
    window.focus_pane(view)
    view.setCurrentIndex(idx)
    qtbot.waitUntil(lambda: QApplication.focusWidget() is view)
    text, _ = _menu(qtbot, view, "Copy as jq Path")
    assert text == ".snapshot.session.messages[2499].content[0].text"


def _menu(qtbot, view, label):
    from .test_copying import _menu_pick
    return _menu_pick(qtbot, view, lambda: QTest.keyClick(view, Qt.Key.Key_Menu), label)


def _start_slow_load(window, monkeypatch):
    from inspector.session import engine

    monkeypatch.setattr(engine, "PROCESS_THRESHOLD", 100)  # a load in worker processes (not instant)
    window.loader.start([str(GOLDEN_P), str(GOLDEN_D)])
    assert window.cancel_button.isVisible() and window.act_stop.isEnabled()


def test_esc_in_the_find_bar_closes_it_while_a_load_runs_and_only_then_stops_the_load(qtbot, window, monkeypatch):
    _start_slow_load(window, monkeypatch)
    window.activateWindow()
    QTest.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    assert window.find_bar.isVisible() and window.find_bar.edit.hasFocus()
    QTest.keyClick(window.find_bar.edit, Qt.Key.Key_Escape)
    assert not window.find_bar.isVisible()
    assert window.act_stop.isEnabled() and window.banner_text("info") is None  # the load goes on
    # the go-to-pointer field of the same bar (Ctrl+G) too
    QTest.keyClick(window, Qt.Key.Key_G, Qt.KeyboardModifier.ControlModifier)
    assert window.find_bar.pointer.hasFocus()
    QTest.keyClick(window.find_bar.pointer, Qt.Key.Key_Escape)
    assert not window.find_bar.isVisible() and window.act_stop.isEnabled()
    # nothing closer takes Esc now: it stops the load
    QTest.keyClick(window.snap_pane.view, Qt.Key.Key_Escape)
    qtbot.waitUntil(lambda: window.banner_text("info") == "Loading was cancelled.", timeout=20000)
    assert not window.act_stop.isEnabled()
    # Help ▸ Keyboard Shortcuts says so (it lists both meanings of Esc)
    from inspector.gui.menus import shortcut_sections

    rows = dict(sum((r for _, r in shortcut_sections(window)), []))
    assert rows["Stop Loading"] == "Esc"
    assert rows["Find bar, go-to-offset field, a value being edited: close (first; Esc is Stop Loading only when "
                "none of them has the focus)"] == "Esc"


def test_find_count_of_the_previous_checkpoint_is_not_left_showing(qtbot, window):
    # "1 of 3 matches" stayed beside the Find field after another checkpoint was opened, though the
    # matches were forgotten (Enter searches the new one).
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    _find(qtbot, window, "source-run")
    edit = window.find_bar.edit
    assert window.find_bar.status.text() == "1 of 3 matches"
    open_and_wait(qtbot, window, list(sample_paths("broken")))
    # (the text typed for the other checkpoint stays with it: test_the_find_text_belongs_to_its_checkpoint)
    assert window.find_bar.isVisible() and edit.text() == ""
    assert window.find_bar.status.text() == ""
    QTest.keyClicks(edit, "source-run")
    with qtbot.waitSignal(window.finder.moved, timeout=30000):
        QTest.keyClick(edit, Qt.Key.Key_Return)
    assert window.find_bar.status.text() == "1 of 3 matches"


def test_the_find_text_belongs_to_its_checkpoint(qtbot, window, tmp_path):
    """Find text typed for one checkpoint is not carried to the next; coming back gives it back."""
    import shutil

    for name in ("a", "b"):  # two folders, so that each payload opens alone
        (tmp_path / name).mkdir()
    a, b = tmp_path / "a" / "a.payload.json", tmp_path / "b" / "b.payload.json"
    shutil.copyfile(GOLDEN_P, a)
    shutil.copyfile(SAMPLES / "broken.payload.json", b)
    open_and_wait(qtbot, window, [a])
    QTest.keyClick(window, Qt.Key.Key_F, Qt.KeyboardModifier.ControlModifier)
    QTest.keyClicks(window.find_bar.edit, "session")
    assert window.find_bar.edit.text() == "session"
    open_and_wait(qtbot, window, [b])
    assert window.find_bar.edit.text() == ""
    open_and_wait(qtbot, window, [a])
    assert window.find_bar.edit.text() == "session"
