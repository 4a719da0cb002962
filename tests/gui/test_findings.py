"""The verdicts list and its Failures only filter (inspector/gui/models/findings.py).

Moved from the round-named test files (tests mirror the code), assertions unchanged."""

import pytest
pytest.importorskip("PySide6")
from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtTest import QTest  # noqa: E402
from .conftest import CASES, GOLDEN_D, GOLDEN_P, open_and_wait  # noqa: E402


def test_failures_only_is_on_when_something_failed_and_a_click_shows_every_rule(qtbot, window):
    from inspector.gui.roles import ObjectRole

    def shown(m):
        out = []
        for g in range(m.rowCount()):
            gi = m.index(g, 0)
            out += [m.data(m.index(r, 0, gi), ObjectRole) for r in range(m.rowCount(gi))]
        return [f for f in out if f is not None]

    report = open_and_wait(qtbot, window, [CASES / "25-p-flip-byte.payload.json",
                                           CASES / "25-p-flip-byte.descriptor.json"])
    m = window.findings_model
    assert window.failures_only.isChecked()
    rows = shown(m)
    assert {f.verdict.value for f in rows} == {"fail"}
    assert len({f.rule.id for f in rows}) == sum(1 for f in report.findings if f.failed)
    box = window.failures_only
    QTest.mouseClick(box, Qt.MouseButton.LeftButton, pos=box.rect().center())
    assert not box.isChecked()
    assert len(shown(m)) == len(report.findings) + 1  # every rule, and the root cause section
    assert window.findings_model.data(window.findings_view.currentIndex(), ObjectRole) is report.root_cause
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    assert not window.failures_only.isChecked()  # nothing failed: every rule
