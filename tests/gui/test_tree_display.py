"""The snapshot tree's rows (inspector/gui/models/tree_display.py), driven by real input.

Moved from the round-named test files (issue 24: tests mirror the code), assertions unchanged."""

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
