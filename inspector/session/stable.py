"""The stable part of a source: what a watch may judge (the CLI's ``scan --watch`` and the window's Watch Folder).

A file is stable when its change token (size and modification time, an ETag) has not changed for a settle
time and it is not a writer's temporary file (a hidden name, or ``.tmp``, ``.part``, ...: an atomic rename by
the writer makes the real name appear whole). Qt-free.
"""

from __future__ import annotations

import time

from inspector.session.sources import Entry, Source

__all__ = ["Stable", "TEMPORARY_SUFFIXES"]

#: Names a writer uses while it writes, before an atomic rename to the real name: never judged.
TEMPORARY_SUFFIXES = (".tmp", ".part", ".partial", ".crdownload", "~", ".swp")


class Stable(Source):
    """The entries of ``inner`` that are stable (see the module's text), as a source of its own: what one
    scan of the watch sees. :meth:`look` lists ``inner`` and returns True when the stable set changed."""

    def __init__(self, inner: Source, settle_s: float, clock=time.monotonic):
        self.inner = inner
        self.location = inner.location
        self.local_paths = inner.local_paths
        self.settle_s = settle_s
        self.clock = clock
        self._seen: dict[str, tuple[str, float]] = {}  # location -> (token, since when unchanged)
        self._stable: dict[str, Entry] = {}

    def look(self) -> bool:
        """List the inner source; True when the set of stable entries (or a stable entry's token) changed.
        Raises :class:`~inspector.session.sources.SourceError` when it cannot be listed."""
        now = self.clock()
        seen = {}
        stable = {}
        for e in self.inner.entries():
            if e.name.startswith(".") or e.name.endswith(TEMPORARY_SUFFIXES):
                continue
            token, since = self._seen.get(e.location, (None, now))
            if token != e.token:
                since = now
            seen[e.location] = (e.token, since)
            if now - since >= self.settle_s:
                stable[e.location] = e
        changed = {k: v.token for k, v in stable.items()} != {k: v.token for k, v in self._stable.items()}
        self._seen, self._stable = seen, stable
        return changed

    def pending(self) -> int:
        """How many listed entries are not stable yet."""
        return len(self._seen) - len(self._stable)

    def entries(self) -> list[Entry]:
        return sorted(self._stable.values(), key=lambda e: e.location)

    def read(self, entry: Entry, limit: int = 0) -> bytes:
        return self.inner.read(entry, limit) if limit else self.inner.read(entry)

    def head(self, entry: Entry, n: int) -> bytes:
        return self.inner.head(entry, n)

    def token(self, entry: Entry) -> str | None:
        return self.inner.token(entry)


