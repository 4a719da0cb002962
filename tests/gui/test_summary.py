"""The summary line under the verdict (inspector/gui/summary.py).

Moved from the round-named test files (tests mirror the code), assertions unchanged."""

import pytest
pytest.importorskip("PySide6")
from .conftest import CASES, GOLDEN_D, GOLDEN_P, open_and_wait  # noqa: E402


def test_counts_in_the_summary_line_have_one_order(qtbot, window):
    open_and_wait(qtbot, window, [CASES / "25-p-flip-byte.payload.json", CASES / "25-p-flip-byte.descriptor.json"])
    failing = window.header.subtitle.text().split("   —   ")[-1]
    open_and_wait(qtbot, window, [GOLDEN_P, GOLDEN_D])
    passing = window.header.subtitle.text().split("   —   ")[-1]
    words = [w for w in ("FAIL", "PASS", "not reached", "n/a", "not evaluated")]

    def order(text):
        return sorted((text.index(" " + w), w) for w in words if f" {w}" in text)
    assert [w for _, w in order(failing)][:2] == ["FAIL", "PASS"]
    assert failing.split(" ")[1] == "FAIL"  # "3 FAIL · 57 PASS · 15 not evaluated"
    assert [w for _, w in order(passing)][0] == "PASS"
