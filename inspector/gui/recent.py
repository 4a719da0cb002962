"""Recently opened files, kept in the application settings (no widgets)."""

from __future__ import annotations

import json
import os

__all__ = ["RecentFiles", "MAX_RECENT"]

MAX_RECENT = 10


class RecentFiles:
    """The path sets opened last, newest first, stored as JSON under ``recent`` in ``settings`` (a QSettings)."""

    def __init__(self, settings):
        self.settings = settings

    def items(self) -> list[list[str]]:
        """Recently opened path sets, newest first."""
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

    def clear(self) -> None:
        self.settings.setValue("recent", "[]")
