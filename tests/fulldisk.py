"""A real, nearly full disk for the tests of writers that must write an output whole or not at all:
a small tmpfs mounted for the test, filled so that exactly a chosen number of 4 KiB pages stay free.

``small_disk`` is a pytest fixture (import it into a test module): ``disk = small_disk(free_pages)``
(re)fills the tmpfs and returns its folder, which then holds only the file ``fill``. Mounting needs
root on Linux (CI runs as root); elsewhere the test is skipped and says why.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

PAGE = 4096
#: The tmpfs's size: 64 pages, room for the largest output the tests write (the redacted big payload).
SIZE = 64 * PAGE


def _free(folder: Path) -> int:
    st = os.statvfs(folder)
    return st.f_bavail * st.f_frsize


@pytest.fixture
def small_disk(tmp_path):
    """A factory ``small_disk(free_pages) -> Path``: the folder of a tmpfs mounted for this test holding
    only ``fill``, with ``free_pages`` pages (4 KiB each) left free; unmounted after the test."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        pytest.skip("a small tmpfs can only be mounted by root on Linux (CI runs as root)")
    mnt = tmp_path / "disk"
    mnt.mkdir()
    p = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={SIZE},mode=0755", "tmpfs", str(mnt)],
                       capture_output=True, text=True)
    if p.returncode != 0:
        pytest.skip(f"mounting a tmpfs is not permitted here: {p.stderr.strip() or p.returncode}")

    def fill(free_pages: int) -> Path:
        for entry in mnt.iterdir():
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
        (mnt / "fill").write_bytes(b"\0" * (_free(mnt) - free_pages * PAGE))
        assert _free(mnt) == free_pages * PAGE  # the disk really is that full
        return mnt

    try:
        yield fill
    finally:
        if subprocess.run(["umount", str(mnt)], capture_output=True).returncode != 0:
            subprocess.run(["umount", "-l", str(mnt)], capture_output=True)
