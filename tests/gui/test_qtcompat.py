"""The guard against a PySide6 reference-count defect (inspector/gui/qtcompat.py).

Moved from the round-named test files (tests mirror the code), assertions unchanged."""

import sys
import pytest
pytest.importorskip("PySide6")


def test_emit_keeps_true_alive():
    """PySide6 6.12.0 drops a reference to True on every emit(); after a few thousand the
    interpreter aborts (bool_dealloc). The GUI's emit() gives the reference back."""
    from PySide6.QtCore import QObject, Signal

    from inspector.gui.qtcompat import emit

    class S(QObject):
        sig = Signal(object)

    s = S()
    s.sig.connect(lambda v: None)
    before = sys.getrefcount(True)
    for _ in range(5000):
        emit(s.sig, 1)
    assert sys.getrefcount(True) >= before
