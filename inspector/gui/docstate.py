"""``DocumentStates``: the window's state that belongs to the document it was made for.

The Find text, the trees' and bytes views' expansion, selection and scroll positions, and the selection
history (Back/Forward) belong to one checkpoint: opening another starts it afresh, and coming back to one
shown earlier in this window (through the folder's Sessions tab, Open Recent, or opening the same files
again) gives its state back. Each part registers a ``capture`` (what to remember, called when a load
starts, while the document being left is still on screen) and a ``restore`` (called with what was kept,
or ``None`` for a document seen for the first time), either when the new document's trees are first
presented (``"presented"``) or once it is completely shown (``"shown"``: after the verdicts and the
selection of the root cause, which it then overrides). Records live in a bounded
:class:`~inspector.session.docmemory.DocumentMemory` keyed by the files' resolved paths. Notices are not
kept: those of the document left are cleared and the document shown says again what applies to it
(:meth:`.document.Document.present`).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject

from inspector.session.docmemory import DocumentMemory, document_key

__all__ = ["DocumentStates"]


class DocumentStates(QObject):
    """Per-document state of ``window`` (a :class:`~.window.MainWindow`); see the module docstring.

    Attributes:
        memory: the records of the documents left (at most ``limit``).
        key: the key (:func:`~inspector.session.docmemory.document_key`) of the document shown, ``()`` if none.
    """

    def __init__(self, window, limit: int = 50):
        super().__init__(window)
        self.w = window
        self.memory = DocumentMemory(limit)
        self.key: tuple = ()
        self._parts: list[tuple[str, Callable, Callable, str]] = []
        self._arriving = False  # a load started: its first presentation is another (or the same) document
        self._pending: dict | None = None  # the record whose "shown" parts wait for the document to be shown
        window.doc.opening.connect(lambda _names: self._leaving())
        window.doc.presented.connect(self._presented)

    def add_part(self, name: str, capture: Callable[[], object], restore: Callable[[object], None],
                 when: str = "presented") -> None:
        """Keep ``capture()`` per document and give it to ``restore(state)`` (``None`` the first time) when the
        document is shown again; ``when``: ``"presented"`` or ``"shown"`` (see the module docstring)."""
        self._parts.append((name, capture, restore, when))

    def shown(self) -> None:
        """The document is completely shown (the window's ``analysisReady``): the ``"shown"`` parts restore."""
        record, self._pending = self._pending, None
        if record is not None:
            self._restore(record, "shown")

    def _leaving(self) -> None:
        """A load starts: remember the parts of the document on screen (it may be the one being opened again)."""
        key = self._shown_key()
        if key:  # (again when a load started before failed: the document still on screen is this one)
            self.memory.keep(key, {name: capture() for name, capture, _r, _w in self._parts})
        self._arriving = True
        self._pending = None

    def _presented(self, p) -> None:
        if not p.opened or not self._arriving:
            return  # an edit, or a later step of the same load
        self._arriving = False
        self.key = document_key(s.path for s in (p.analysis.payload, p.analysis.descriptor) if s is not None)
        record = self.memory.take(self.key)
        self._restore(record, "presented")
        self._pending = record

    def _restore(self, record: dict, when: str) -> None:
        for name, _capture, restore, w in self._parts:
            if w == when:
                restore(record.get(name))

    def _shown_key(self) -> tuple:
        doc = self.w.doc
        return document_key(s.path for s in doc.sides()) if not doc.is_empty else ()
