"""``DocumentMemory``: what the window remembers of each checkpoint it showed in this window session.

Pure data, no Qt. A document is named by :func:`document_key`, its files' resolved paths, so the same
pair reached through a symbolic link, a relative path, the Recent menu or the folder's Sessions tab is
one document. Each document's record maps a part's name (``"find"``, ``"views"``, ``"history"``, ...) to
whatever state that part kept; at most ``limit`` documents are remembered, the least recently left go
first.
"""

from __future__ import annotations

import os
from collections import OrderedDict

__all__ = ["DocumentMemory", "document_key"]


def document_key(paths) -> tuple[str, ...]:
    """The key of the document read from ``paths`` (``str`` file paths, ``None`` or empty ones skipped):
    each path resolved (symbolic links, ``..``, relative to the current directory), in the order given
    (payload first). Empty for a document with no file (a sandbox with nothing opened)."""
    return tuple(os.path.normcase(os.path.realpath(p)) for p in paths if p)


class DocumentMemory:
    """Per-document records, bounded.

    Args:
        limit: at most this many documents are remembered (the one left longest ago is forgotten first).
    """

    def __init__(self, limit: int = 50):
        self.limit = limit
        self._records: OrderedDict[tuple, dict] = OrderedDict()

    def __len__(self) -> int:
        return len(self._records)

    def __contains__(self, key: tuple) -> bool:
        return key in self._records

    def keep(self, key: tuple, record: dict) -> None:
        """Remember ``record`` (part name -> state) for the document ``key`` (replacing what was kept for it);
        nothing for an empty key."""
        if not key:
            return
        self._records.pop(key, None)
        self._records[key] = dict(record)
        while len(self._records) > self.limit:
            self._records.popitem(last=False)

    def take(self, key: tuple) -> dict:
        """The record of ``key`` (empty when none), forgotten here: the document is shown again and its state
        is the window's until it is left."""
        return self._records.pop(key, {}) if key else {}
