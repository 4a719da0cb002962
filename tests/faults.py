"""Faults for the tests of writers that must leave nothing half-done (issue 22: cleanup on failure)."""

from __future__ import annotations

import errno
import os
from pathlib import Path


def disk_fills_half_way(target: Path, real_open=open):
    """An ``open`` that, for ``target`` only, writes half of the first ``write`` to disk (so a partial
    file really is there) and then raises ``OSError(ENOSPC)``; every other path opens as usual.
    Monkeypatch it over the module's ``open``."""

    class HalfWritten:
        def __init__(self, fh):
            self.fh = fh

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.fh.close()

        def write(self, data):
            self.fh.write(data[: len(data) // 2])
            self.fh.flush()
            assert target.stat().st_size == len(data) // 2 > 0  # a partial file really is on disk
            raise OSError(errno.ENOSPC, "No space left on device")

    def fake_open(path, mode="r", *a, **k):
        fh = real_open(path, mode, *a, **k)
        return HalfWritten(fh) if os.fspath(path) == str(target) else fh

    return fake_open
