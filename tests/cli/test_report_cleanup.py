"""``report --redacted-payload NEW_FILE [-o NEW_FILE]`` completes or leaves nothing behind:
a crash while rendering, Ctrl+C, a report file that cannot be written (or only in part), stdout
closed, full or gone before the end remove the redacted copy and any part of the report file, and
the exit code is never a verdict's 0 or 1. A file that existed before is never removed."""

import importlib
import os
import subprocess
import sys

import pytest

from tests.fulldisk import small_disk  # noqa: F401 (a fixture)

import inspector.ticket
from inspector.cli import main
from tests.cli.test_entry import _env
from tests.conftest import ROOT, SAMPLES

P, D = SAMPLES / "broken.payload.json", SAMPLES / "broken.descriptor.json"  # a NOT VERIFIED pair (exit 1)
cli_main = importlib.import_module("inspector.cli.main")


def run(capsysbinary, *argv):
    code = main([os.fsdecode(a) for a in argv])
    out, err = capsysbinary.readouterr()
    return code, out.decode(), err.decode()


def test_the_whole_job_completes_with_exit_1(tmp_path, capsysbinary):
    """The baseline the failures below are measured against: both files written, the verdict's code."""
    red, out = tmp_path / "red.json", tmp_path / "report.txt"
    code, stdout, err = run(capsysbinary, "report", P, D, "--redacted-payload", red, "-o", out)
    assert (code, stdout) == (1, "")
    assert red.is_file() and out.read_text("utf-8").startswith("Checkpoint Inspector report\n")


@pytest.mark.parametrize("output", [False, True])
def test_a_crash_while_rendering_removes_the_redacted_copy(tmp_path, capsysbinary, monkeypatch, output):
    def crash(ticket, fmt):
        raise RuntimeError("boom: quoted content")

    monkeypatch.setattr(inspector.ticket, "render", crash)
    red, out = tmp_path / "red.json", tmp_path / "report.txt"
    code, stdout, err = run(capsysbinary, "report", P, D, "--redacted-payload", red, *(["-o", out] if output else []))
    assert code == cli_main.EXIT_INTERNAL == 3
    assert stdout == "" and sorted(tmp_path.iterdir()) == []
    lines = err.splitlines()
    assert lines[-2] == f"checkpoint-inspector: the report was not completed: the redacted payload {red} was removed"
    assert lines[-1].startswith("checkpoint-inspector: internal error: RuntimeError at ")
    assert lines[-1].endswith("; no verdict was reached (exit 3). Please report it with this line (it quotes no "
                              "checkpoint content).")
    assert "boom" not in err


def test_ctrl_c_while_rendering_removes_the_redacted_copy(tmp_path, capsysbinary, monkeypatch):
    def interrupted(ticket, fmt):
        raise KeyboardInterrupt

    monkeypatch.setattr(inspector.ticket, "render", interrupted)
    red = tmp_path / "red.json"
    code, stdout, err = run(capsysbinary, "report", P, D, "--redacted-payload", red)
    assert code == 130 and stdout == "" and not red.exists()
    assert err.splitlines()[-1] == (f"checkpoint-inspector: the report was not completed: the redacted payload {red} "
                                    "was removed")


def test_a_report_file_written_in_part_is_removed_with_the_redacted_copy(small_disk, capsysbinary):
    """The disk (a real tmpfs with room for the redacted copy and one page more) fills up part-way
    through the report file (-o): neither file stays, exit 3 as for any output not written whole."""
    disk = small_disk(2)  # the redacted copy takes one page, the HTML report (over 4 KiB) does not fit in one
    red, out = disk / "red.json", disk / "report.html"
    code, stdout, err = run(capsysbinary, "report", P, D, "--format", "html", "--redacted-payload", red, "-o", out)
    assert code == 3 and stdout == "" and sorted(f.name for f in disk.iterdir()) == ["fill"]
    assert err.splitlines()[-1] == (f"checkpoint-inspector: cannot write the output: {out}: No space left on device; "
                                    f"the redacted payload {red} was removed; nothing was reported (exit 3)")


def test_a_report_file_that_appears_meanwhile_is_never_removed(tmp_path, capsysbinary, monkeypatch):
    """The -o file is created by someone else between the check and the write: the report is refused
    (O_EXCL), that file is left as it is, only the redacted copy (ours) is removed."""
    red, out = tmp_path / "red.json", tmp_path / "report.txt"
    real_render = inspector.ticket.render

    def racing(ticket, fmt):
        out.write_bytes(b"someone else's file")
        return real_render(ticket, fmt)

    monkeypatch.setattr(inspector.ticket, "render", racing)
    code, stdout, err = run(capsysbinary, "report", P, D, "--redacted-payload", red, "-o", out)
    assert code == 2 and not red.exists() and out.read_bytes() == b"someone else's file"
    assert err.splitlines()[-1] == (f"checkpoint-inspector: {out} exists; choose a new file name; "
                                    f"the redacted payload {red} was removed")


@pytest.mark.parametrize("stdout, reason", [("closed", "standard output is closed"),
                                            ("/dev/full", "No space left on device")])
def test_stdout_closed_or_full_removes_the_redacted_copy(tmp_path, stdout, reason):
    """Started with stdout closed (``>&-``) or on a full disk: the report reached no one, so the
    redacted copy (written before it) is removed and the exit code is 3."""
    if stdout == "/dev/full" and not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full here")
    red = tmp_path / "red.json"
    redirect = ">&-" if stdout == "closed" else "> /dev/full"
    command = " ".join(f"'{a}'" for a in (sys.executable, "-m", "inspector", "report", P, D, "--redacted-payload",
                                          red)) + " " + redirect
    p = subprocess.run(["/bin/sh", "-c", command], stderr=subprocess.PIPE, env=_env(), cwd=ROOT, timeout=120)
    assert p.returncode == 3
    assert not red.exists() and sorted(tmp_path.iterdir()) == []
    assert p.stderr.decode().splitlines()[-1] == (
        f"checkpoint-inspector: cannot write the output: {reason}; the redacted payload {red} was removed; "
        "nothing was reported (exit 3)")


def _with_reader_gone(*argv):
    p = subprocess.Popen([sys.executable, "-m", "inspector", *map(str, argv)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, env=_env(), cwd=ROOT)
    p.stdout.close()  # the reader is gone before anything is written
    err = p.stderr.read().decode()
    return p.wait(timeout=60), err


def test_a_reader_gone_before_the_end_removes_the_redacted_copy(tmp_path):
    """``report ... --redacted-payload X | (exits at once)``: the report was not delivered, so the job is
    undone (exit 3); without a redacted copy a reader that stops early keeps the verdict's code, as before."""
    red = tmp_path / "red.json"
    code, err = _with_reader_gone("report", P, D, "--redacted-payload", red)
    assert code == 3, err
    assert not red.exists()
    assert err.splitlines()[-1] == (
        "checkpoint-inspector: cannot write the output: the reader closed the pipe before the end of the report; "
        f"the redacted payload {red} was removed; nothing was reported (exit 3)")
    assert "Traceback" not in err
    code, err = _with_reader_gone("report", P, D)
    assert (code, err) == (1, "")
