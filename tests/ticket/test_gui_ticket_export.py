"""The window's File ▸ Export Report… (:func:`inspector.gui.ticket.write_export`) completes or leaves
nothing behind: a crash while rendering, a report file that cannot be written (or only in
part: a real, nearly full tmpfs) remove the redacted copy and any part of the report; a file that existed
before (a FIFO included: never opened) is never removed.
No window is needed: the export function is called with the inputs the window would give it."""

import errno
import os
import stat

import pytest

pytest.importorskip("PySide6")

from inspector.checkpoint import read_input, verify  # noqa: E402
from inspector.gui import ticket as gui_ticket  # noqa: E402
from inspector.ticket import check_report  # noqa: E402
from tests.conftest import SAMPLES  # noqa: E402
from tests.fulldisk import small_disk  # noqa: E402,F401 (a fixture)


@pytest.fixture
def inputs():
    payload, descriptor = read_input(str(SAMPLES / "broken.payload.json")), read_input(str(SAMPLES / "broken.descriptor.json"))
    return verify(payload.data, descriptor.data, payload_size=payload.size), payload, descriptor


def test_a_complete_export_writes_both_files(inputs, tmp_path):
    out, red = tmp_path / "r.txt", tmp_path / "r.redacted-payload.json"
    assert gui_ticket.write_export(*inputs, "text", str(out), redacted_path=str(red)) == [str(out), str(red)]
    assert check_report(out.read_bytes()) is True and red.is_file()


def test_a_crash_while_rendering_removes_the_redacted_copy(inputs, tmp_path, monkeypatch):
    def crash(*a, **k):
        raise RuntimeError("boom")

    monkeypatch.setattr(gui_ticket, "ticket_text", crash)
    out, red = tmp_path / "r.md", tmp_path / "r.redacted-payload.json"
    with pytest.raises(RuntimeError, match="boom"):
        gui_ticket.write_export(*inputs, "markdown", str(out), redacted_path=str(red))
    assert sorted(tmp_path.iterdir()) == []


def test_a_report_written_in_part_is_removed_with_the_redacted_copy(inputs, small_disk):
    """A real disk (tmpfs) with room for the redacted copy and one page more: the HTML report (over
    4 KiB) is written in part, then the disk is full. Neither file stays; the error names the report."""
    disk = small_disk(2)
    out, red = disk / "r.html", disk / "r.redacted-payload.json"
    with pytest.raises(OSError) as e:
        gui_ticket.write_export(*inputs, "html", str(out), redacted_path=str(red))
    assert (e.value.errno, e.value.filename) == (errno.ENOSPC, str(out))
    assert sorted(f.name for f in disk.iterdir()) == ["fill"]


def test_a_redacted_copy_on_a_full_disk_is_removed(inputs, small_disk):
    """No page free: the redacted copy (created, then its first write fails) is removed, no report is made."""
    disk = small_disk(0)
    out, red = disk / "r.txt", disk / "r.redacted-payload.json"
    with pytest.raises(OSError) as e:
        gui_ticket.write_export(*inputs, "text", str(out), redacted_path=str(red))
    assert (e.value.errno, e.value.filename) == (errno.ENOSPC, str(red))
    assert sorted(f.name for f in disk.iterdir()) == ["fill"]


@pytest.mark.parametrize("which", ["report", "redacted"])
def test_a_fifo_as_a_target_is_refused_without_opening_it(inputs, tmp_path, which):
    """A FIFO where a file would go exists: refused before anything is written (opening it for writing
    would block with no reader); it stays a FIFO and nothing else is written."""
    out, red = tmp_path / "r.txt", tmp_path / "r.redacted-payload.json"
    fifo = out if which == "report" else red
    os.mkfifo(fifo)
    with pytest.raises(FileExistsError):
        gui_ticket.write_export(*inputs, "text", str(out), redacted_path=str(red))
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode) and sorted(tmp_path.iterdir()) == [fifo]


def test_a_report_file_that_appears_meanwhile_is_never_removed(inputs, tmp_path, monkeypatch):
    out, red = tmp_path / "r.txt", tmp_path / "r.redacted-payload.json"
    real_text = gui_ticket.ticket_text

    def racing(*a, **k):
        out.write_bytes(b"someone else's file")
        return real_text(*a, **k)

    monkeypatch.setattr(gui_ticket, "ticket_text", racing)
    with pytest.raises(FileExistsError):
        gui_ticket.write_export(*inputs, "text", str(out), redacted_path=str(red))
    assert not red.exists() and out.read_bytes() == b"someone else's file"
