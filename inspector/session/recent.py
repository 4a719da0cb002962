"""Recently opened files, kept in the application settings (no widgets)."""

from __future__ import annotations

import json
import os

__all__ = ["RecentFiles", "MAX_RECENT", "recent_labels"]

MAX_RECENT = 10


class RecentFiles:
    """The path sets opened last, newest first, stored as JSON under ``recent`` in ``settings`` (a QSettings).

    Windows of two processes share the list: each read and each change first takes what the other wrote
    (``settings.sync()``), and a change is written at once, so closing one window (which syncs its settings)
    never puts back a list without the other's entries."""

    def __init__(self, settings):
        self.settings = settings

    def items(self) -> list[list[str]]:
        """Recently opened path sets, newest first (as stored now: another process's additions included)."""
        self._sync()
        raw = self.settings.value("recent", "[]")
        try:
            items = json.loads(raw) if isinstance(raw, str) else []
        except ValueError:
            items = []
        return [i for i in items if isinstance(i, list) and all(isinstance(p, str) for p in i)]

    def add(self, paths: list[str]) -> None:
        """Put ``paths`` first (once), keeping at most :data:`MAX_RECENT` entries."""
        paths = [os.path.abspath(p) for p in paths]
        items = [i for i in self.items() if i != paths]
        items.insert(0, paths)
        self.settings.setValue("recent", json.dumps(items[:MAX_RECENT]))
        self._sync()

    def clear(self) -> None:
        """Forget every entry (for every window)."""
        self.settings.setValue("recent", "[]")
        self._sync()

    def _sync(self) -> None:
        sync = getattr(self.settings, "sync", None)  # (a QSettings; a plain mapping in some tests)
        if sync is not None:
            sync()


def recent_labels(items: list[list[str]], name=os.path.basename) -> list[str]:
    """Menu labels for recent path sets: the file names, and where two entries would read the
    same, each file's parent folders as far up as needed to tell them apart (``a/x.json``)."""
    depth = [1] * len(items)

    def label(i):
        out = []
        for p in items[i]:
            parts = os.path.normpath(p).split(os.sep)
            tail = parts[-depth[i]:] if depth[i] < len(parts) else parts
            out.append(name(os.sep.join(tail)) if depth[i] == 1 else
                       os.sep.join(name(x) if x else "" for x in tail))
        return " + ".join(out)
    for _ in range(64):
        labels = [label(i) for i in range(len(items))]
        dup = {x for x in labels if labels.count(x) > 1}
        if not dup:
            break
        grew = False
        for i, x in enumerate(labels):
            longest = max(len(os.path.normpath(p).split(os.sep)) for p in items[i])
            if x in dup and depth[i] < longest:
                depth[i] += 1
                grew = True
        if not grew:
            break
    return [label(i) for i in range(len(items))]
