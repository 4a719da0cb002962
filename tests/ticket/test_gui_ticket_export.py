"""The window's File ▸ Export Report… (:func:`inspector.gui.ticket.write_export`) completes or leaves
nothing behind (issue 22): a crash while rendering, a report file that cannot be written (or only in
part) remove the redacted copy and any part of the report; a file that existed before is never removed.
No window is needed: the export function is called with the inputs the window would give it."""

import errno

import pytest

pytest.importorskip("PySide6")

from inspector.checkpoint import read_input, verify  # noqa: E402
from inspector.gui import ticket as gui_ticket  # noqa: E402
from inspector.ticket import check_report  # noqa: E402
from tests.conftest import SAMPLES  # noqa: E402
from tests.faults import disk_fills_half_way  # noqa: E402


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


def test_a_report_written_in_part_is_removed_with_the_redacted_copy(inputs, tmp_path, monkeypatch):
    out, red = tmp_path / "r.html", tmp_path / "r.redacted-payload.json"
    monkeypatch.setattr(gui_ticket, "open", disk_fills_half_way(out), raising=False)
    with pytest.raises(OSError) as e:
        gui_ticket.write_export(*inputs, "html", str(out), redacted_path=str(red))
    assert e.value.errno == errno.ENOSPC
    assert sorted(tmp_path.iterdir()) == []


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
