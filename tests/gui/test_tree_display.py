"""The snapshot tree's rows (inspector/gui/models/tree_display.py), driven by real input.

Moved from the round-named test files (tests mirror the code), assertions unchanged."""

import pytest
pytest.importorskip("PySide6")
from .conftest import go_to, open_and_wait  # noqa: E402
from tests.conftest import ROOT  # noqa: E402


PINNED = ROOT / "tests" / "data" / "fixtures" / "cases-pinned"
CASE_056 = [PINNED / "056-toolend-binding-null.payload.json", PINNED / "056-toolend-binding-null.descriptor.json"]


def test_run_event_rows_show_sequence_type_and_tool_call(qtbot, window):
    open_and_wait(qtbot, window, CASE_056)
    idx = go_to(qtbot, window, "/snapshot/run_records/1/events/12")
    assert idx.siblingAtColumn(1).data() == "#12 tool_end (tool toolu_1)"
    idx = go_to(qtbot, window, "/snapshot/run_records/1/events/9")
    assert idx.siblingAtColumn(1).data() == "#9 turn_end (turn 1)"
    # the rows that were only "{3 keys}" before: every event of the run says what it is
    parent = idx.parent()
    texts = [parent.model().index(r, 1, parent).data() for r in range(parent.model().rowCount(parent))]
    assert texts[0].startswith("#0 ") and not any(t.startswith("{") for t in texts), texts


def test_a_huge_scalar_shows_its_first_64_kib_and_says_there_is_more(qtbot, window, tmp_path):
    """Only what a cell shows is read: a number of 70,002 characters shows its first 65,536 and "…" (it was
    decoded whole; a 50 MB base64 string was likewise copied whole to show its first 64 KiB)."""
    from tests.conftest import GOLDEN

    data = (GOLDEN / "payload-with-resume.json").read_bytes()
    digits = b"0." + b"9" * 70_000  # (valid JSON, read as a float; over the 64 KiB a cell reads)
    data = data.replace(b'"created_at":1700000000', b'"created_at":' + digits, 1)
    p = tmp_path / "huge.payload.json"
    p.write_bytes(data)
    open_and_wait(qtbot, window, [p])
    idx = go_to(qtbot, window, "/snapshot/session/created_at")
    assert idx.model()._scalar(idx.internalPointer()) == ("r", "0." + "9" * 65534 + "…")
    assert idx.siblingAtColumn(1).data().startswith("0.999") and len(idx.siblingAtColumn(1).data()) < 70_000
    # an edit starts from all of it (F2), not from what the cell shows
    from .conftest import open_f2_editor

    _view, editor = open_f2_editor(qtbot, window, "/snapshot/session/created_at")
    assert editor.text() == digits.decode()
