"""Work-arounds for defects of the Qt binding (QtCore only: models and worker code may import it).

``emit``: with PySide6 6.12.0 on CPython 3.11 (the project now requires < 6.12; this stays as a guard), every
``SignalInstance.emit()`` called from Python releases one reference to ``True`` that it never
took. After a few thousand emits (progress updates, loads, edits) ``True``'s count reaches zero
and the interpreter aborts with "Fatal Python error: bool_dealloc". Every signal the GUI emits
goes through :func:`emit`, which gives the reference back when (and only when) the running
binding is measured, at import, to drop it.
"""

from __future__ import annotations

import sys

from PySide6.QtCore import QObject, Signal

__all__ = ["emit", "EMIT_DROPS_TRUE"]


class _Probe(QObject):
    sig = Signal(int)


def _emit_drops_true() -> bool:
    probe = _Probe()
    n = 16
    before = sys.getrefcount(True)
    for _ in range(n):
        probe.sig.emit(0)
    lost = before - sys.getrefcount(True)
    _PINNED.extend([True] * max(lost, 0))  # give back what the probe itself cost
    return lost >= n


#: References to ``True`` handed back for the ones ``emit`` dropped (8 bytes per emit).
_PINNED: list = []
#: True when this binding's ``emit`` drops a reference to ``True`` (PySide6 6.12.0).
EMIT_DROPS_TRUE = _emit_drops_true()


def emit(signal, *args) -> None:
    """``signal.emit(*args)``, compensating the binding's lost reference to ``True`` if it has that defect."""
    signal.emit(*args)
    if EMIT_DROPS_TRUE:
        _PINNED.append(True)
