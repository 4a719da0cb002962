"""What a watch judges (inspector.session.stable): only files unchanged for the settle time, never a
writer's temporary name; a clock the test moves, a real folder."""

from __future__ import annotations

import os

from inspector.session.sources import LocalFolder
from inspector.session.stable import Stable


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self):
        return self.t


def test_a_file_is_judged_once_it_stops_changing(tmp_path):
    clock = Clock()
    st = Stable(LocalFolder(str(tmp_path)), 2.0, clock)
    assert st.look() is False and st.entries() == []
    (tmp_path / "p.json").write_bytes(b"{")
    (tmp_path / "p.json.part").write_bytes(b"{")
    (tmp_path / ".hidden").write_bytes(b"{")
    assert st.look() is False and st.pending() == 1  # seen, not settled; the .part and hidden file not at all
    clock.t += 1.0
    (tmp_path / "p.json").write_bytes(b"{}")  # still being written: its settle time starts again
    os.utime(tmp_path / "p.json", ns=(1, 2))
    assert st.look() is False
    clock.t += 1.9
    assert st.look() is False and st.pending() == 1
    clock.t += 0.2
    assert st.look() is True and [e.name for e in st.entries()] == ["p.json"] and st.pending() == 0
    assert st.look() is False  # nothing new
    os.remove(tmp_path / "p.json")
    assert st.look() is True and st.entries() == []
