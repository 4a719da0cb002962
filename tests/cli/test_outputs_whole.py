"""Every output of every subcommand is written whole, or the command exits 3 with ``cannot write the
output`` and leaves no file it created (docs/cli.md "Outputs" and "Exit codes"; :mod:`inspector.session.writing`).

The real command runs as a subprocess with its standard output on a real, nearly full disk (a tmpfs
mounted for the test, :mod:`tests.fulldisk`), on ``/dev/full`` and on a FIFO, with and without
``PYTHONUNBUFFERED=1`` (under which ``sys.stdout.buffer`` is a raw ``FileIO``: on a disk with one page
left its first write took 4,096 bytes, said so and raised nothing, and ``verify --format json`` exited
0 with 4,096 of its 21,375 bytes). Files named by ``-o`` / ``--redacted-payload`` go to the same disk.
"""

from __future__ import annotations

import fcntl
import json
import os
import stat
import subprocess
import sys
import threading
import time

import pytest

from tests.builders import golden, rebind
from tests.cli.test_entry import _env
from tests.conftest import GOLDEN, ROOT
from tests.fulldisk import PAGE, small_disk  # noqa: F401 (a fixture)
from inspector.checkpoint import encode

GP = GOLDEN / "payload-with-resume.json"
NOT_WRITTEN = "checkpoint-inspector: cannot write the output: No space left on device; nothing was reported (exit 3)"


@pytest.fixture(scope="module")
def big(tmp_path_factory):
    """A verified pair of 23,618 payload bytes (the golden pair with 300 messages), and a copy of the
    payload re-saved pretty-printed (``restore`` proves its original): outputs larger than a page."""
    folder = tmp_path_factory.mktemp("big")
    p, d = golden()
    p["snapshot"]["session"]["messages"] = p["snapshot"]["session"]["messages"] * 300
    payload = encode(p)
    (folder / "big.payload.json").write_bytes(payload)
    (folder / "big.descriptor.json").write_bytes(rebind(payload, d, components=True))
    (folder / "resaved.payload.json").write_text(json.dumps(json.loads(payload), indent=2))
    return folder


#: Every subcommand (and each output format), with ``{P}``/``{D}`` the big pair, ``{R}`` its re-saved payload,
#: ``{DIR}`` their folder, ``{G}`` the golden payload and ``{NEW}`` a new file on the test's own disk.
COMMANDS = {
    "verify": "verify {P} {D}",
    "verify-json": "verify --format json {P} {D}",
    "verify-sarif": "verify --format sarif {P} {D}",
    # (--file-digests: a tagged digest's tag is keyed at random, and a cut output is compared with a whole one)
    "report": "report {P} {D} --file-digests",
    "report-markdown": "report --format markdown {P} {D} --file-digests",
    "report-html": "report --format html {P} {D} --file-digests",
    "report-json": "report --format json {P} {D} --file-digests",
    "report-sarif": "report --format sarif {P} {D} --file-digests",
    "describe": "describe {P}",
    "describe-sdk-export": "describe --sdk-export {P}",
    "canon": "canon {P}",
    "canon-diff": "canon --diff {R}",
    "rules": "rules",
    "rules-json": "rules --format json",
    "rules-markdown": "rules --format markdown",
    "explain": "explain X-BYTES",
    "diff": "diff {G} {P}",
    "diff-json": "diff --format json {G} {P}",
    "timeline": "timeline {P}",
    "timeline-json": "timeline --format json {P}",
    "restore": "restore {R} {D} -o {NEW}",
    "scan": "scan {DIR}",
    "scan-json": "scan --format json {DIR}",
    "version": "--version",
    "help": "--help",
    "verify-help": "verify --help",
}
#: Those whose output is larger than a page: on a disk with one page free, a part of it fits.
LARGE = [name for name in COMMANDS if name in (
    "verify-json", "verify-sarif", "report-markdown", "report-html", "report-json", "report-sarif",
    "describe-sdk-export", "canon", "rules", "rules-json", "rules-markdown", "diff", "diff-json")]


def _argv(big, name: str, new) -> list[str]:
    names = {"P": big / "big.payload.json", "D": big / "big.descriptor.json", "R": big / "resaved.payload.json",
             "DIR": big, "G": GP, "NEW": new}
    return [w.format(**{k: str(v) for k, v in names.items()}) for w in COMMANDS[name].split()]


def _run(argv, stdout, *, unbuffered: bool, timeout: float = 60) -> subprocess.CompletedProcess:
    env = _env()
    env.pop("PYTHONUNBUFFERED", None)
    env["SOURCE_DATE_EPOCH"] = "1767225600"  # the report's date, fixed: a cut output is compared with a whole one
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    return subprocess.run([sys.executable, "-m", "inspector", *argv], stdout=stdout, stderr=subprocess.PIPE,
                          env=env, cwd=ROOT, timeout=timeout)


_expected: dict = {}


def _whole(big, name: str, tmp_path) -> tuple[int, bytes]:
    """``(exit code, stdout)`` of the command with room for its output (what a cut output is compared with)."""
    if name not in _expected:
        new = tmp_path / "expected-restored.json"
        p = _run(_argv(big, name, new), subprocess.PIPE, unbuffered=False)
        assert p.returncode in (0, 1) and p.stdout, (name, p.stderr)
        _expected[name] = (p.returncode, p.stdout.replace(os.fsencode(new), b"{NEW}"))
        new.unlink(missing_ok=True)
    return _expected[name]


def _said(name: str, new) -> str:
    if name == "restore":  # the restored file was written before its summary: it is removed with it
        return (f"checkpoint-inspector: cannot write the output: No space left on device; the restored payload "
                f"{new} was removed; nothing was reported (exit 3)")
    return NOT_WRITTEN


# ------------------------------------------------------------------ standard output on a full disk
@pytest.mark.parametrize("name, unbuffered", [(name, True) for name in LARGE] + [
    (name, False) for name in ("verify-json", "report-html", "diff-json")])
def test_stdout_on_a_nearly_full_disk_is_never_cut_short_with_a_verdict(big, small_disk, tmp_path, name, unbuffered):
    """One page free: the part that fits is on the disk, and the command says the output could not be
    written (exit 3), never its verdict's 0 or 1."""
    _code, whole = _whole(big, name, tmp_path)
    assert len(whole) > PAGE
    disk = small_disk(1)
    with open(disk / "out", "wb") as stdout:
        p = _run(_argv(big, name, tmp_path / "restored.json"), stdout, unbuffered=unbuffered)
    assert (p.returncode, p.stderr.decode()) == (3, NOT_WRITTEN + "\n")
    assert (disk / "out").read_bytes() == whole[:PAGE]  # it really was cut: one page of it fitted
    assert sorted(f.name for f in disk.iterdir()) == ["fill", "out"]


@pytest.mark.parametrize("name", list(COMMANDS))
def test_stdout_on_a_full_disk_exits_3(big, small_disk, tmp_path, name):
    """No page free (buffered stdout: the failure comes at the flush): exit 3, one line on stderr,
    nothing on the disk, and ``restore`` removes the file it restored."""
    _whole(big, name, tmp_path)
    disk = small_disk(0)
    new = tmp_path / "restored.json"
    with open(disk / "out", "wb") as stdout:
        p = _run(_argv(big, name, new), stdout, unbuffered=False)
    assert (p.returncode, p.stderr.decode()) == (3, _said(name, new) + "\n")
    assert (disk / "out").read_bytes() == b""
    assert not new.exists()


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
@pytest.mark.parametrize("name", list(COMMANDS))
def test_stdout_on_dev_full_exits_3(big, tmp_path, name):
    new = tmp_path / "restored.json"
    with open("/dev/full", "wb") as stdout:
        p = _run(_argv(big, name, new), stdout, unbuffered=True)
    assert (p.returncode, p.stderr.decode()) == (3, _said(name, new) + "\n")
    assert not new.exists()


# ------------------------------------------------------------------ files a command writes
#: (id, arguments, the files it writes on the disk, what it writes to stdout (to a pipe))
FILES = [
    ("report-o", "report --format html {P} {D} -o {DISK}/r.html", ["r.html"]),
    ("report-redacted-payload", "report {P} {D} --redacted-payload {DISK}/red.json", ["red.json"]),
    ("describe-o", "describe --sdk-export {P} -o {DISK}/d.json", ["d.json"]),
    ("restore-o", "restore {R} {D} -o {DISK}/restored.json", ["restored.json"]),
]


def _file_argv(big, template: str, disk) -> list[str]:
    names = {"P": big / "big.payload.json", "D": big / "big.descriptor.json", "R": big / "resaved.payload.json",
             "DISK": disk}
    return [w.format(**{k: str(v) for k, v in names.items()}) for w in template.split()]


@pytest.mark.parametrize("free", [1, 0], ids=["nearly-full", "full"])
@pytest.mark.parametrize("case, template, files", FILES, ids=[f[0] for f in FILES])
def test_a_file_that_does_not_fit_is_removed_and_exits_3(big, small_disk, case, template, files, free):
    """The file (over 4 KiB) does not fit: no part of it stays (one page of it was written when one was
    free), exit 3, its name and the reason on stderr."""
    disk = small_disk(free)
    p = _run(_file_argv(big, template, disk), subprocess.PIPE, unbuffered=False)
    assert p.returncode == 3, p.stderr
    assert p.stderr.decode().splitlines()[-1] == (f"checkpoint-inspector: cannot write the output: {disk / files[0]}: "
                                                  "No space left on device; nothing was reported (exit 3)")
    assert p.stdout == b""
    assert sorted(f.name for f in disk.iterdir()) == ["fill"]


def test_a_report_that_does_not_fit_after_its_redacted_copy_removes_both(big, small_disk):
    """Room for the redacted copy (28,487 bytes: 7 pages) but not for the report after it: neither stays."""
    disk = small_disk(7)
    argv = _file_argv(big, "report --format html {P} {D} --redacted-payload {DISK}/red.json -o {DISK}/r.html", disk)
    p = _run(argv, subprocess.PIPE, unbuffered=True)
    assert p.returncode == 3, p.stderr
    assert p.stderr.decode().splitlines()[-1] == (
        f"checkpoint-inspector: cannot write the output: {disk / 'r.html'}: No space left on device; the redacted "
        f"payload {disk / 'red.json'} was removed; nothing was reported (exit 3)")
    assert sorted(f.name for f in disk.iterdir()) == ["fill"]


@pytest.mark.parametrize("case, template, files", FILES, ids=[f[0] for f in FILES])
def test_with_room_the_files_are_whole(big, small_disk, case, template, files):
    """The same commands with room (40 pages): the file is written whole (the baseline of the tests above)."""
    disk = small_disk(40)
    p = _run(_file_argv(big, template, disk), subprocess.PIPE, unbuffered=True)
    assert p.returncode == 0, p.stderr
    data = (disk / files[0]).read_bytes()
    assert len(data) > PAGE
    if case == "restore-o":
        assert data == (big / "big.payload.json").read_bytes()
    if case == "describe-o":
        assert json.loads(data)["descriptor"] == json.loads((big / "big.descriptor.json").read_bytes())


# ------------------------------------------------------------------ FIFOs
def _read_fifo(path, into: list, delay: float = 0.0) -> threading.Thread:
    def run():
        with open(path, "rb") as fh:  # (opening blocks until the writer opens it)
            time.sleep(delay)
            into.append(fh.read())
    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


@pytest.mark.parametrize("unbuffered", [True, False], ids=["unbuffered", "buffered"])
@pytest.mark.parametrize("name", ["verify-json", "diff-json", "help"])
def test_stdout_to_a_fifo_with_a_reader_is_whole(big, tmp_path, name, unbuffered):
    """``checkpoint-inspector ... > FIFO`` with a reader: every byte arrives (``diff-json``: 169 KB, more
    than a pipe holds), and the exit code is the verdict's."""
    code, whole = _whole(big, name, tmp_path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    got: list = []
    reader = _read_fifo(fifo, got)
    with open(fifo, "wb") as stdout:
        p = _run(_argv(big, name, tmp_path / "restored.json"), stdout, unbuffered=unbuffered)
    reader.join(30)
    assert (p.returncode, p.stderr) == (code, b"")
    assert got == [whole]


@pytest.mark.parametrize("unbuffered", [True, False], ids=["unbuffered", "buffered"])
def test_stdout_to_a_non_blocking_fifo_with_a_slow_reader_is_whole(big, tmp_path, unbuffered):
    """Standard output opened with ``O_NONBLOCK`` on a FIFO of one page whose reader starts late: the
    writes that find it full (``EAGAIN``) wait for room. The output used to be cut there: exit 3
    ("Resource temporarily unavailable"), or, unbuffered, exit 0 with one page of 169 KB."""
    code, whole = _whole(big, "diff-json", tmp_path)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    rfd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    wfd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    fcntl.fcntl(wfd, fcntl.F_SETPIPE_SZ, PAGE)
    os.set_blocking(rfd, True)  # (the reader's own open file; the writer's stays non-blocking)
    got = []

    def read():
        time.sleep(0.5)  # the writer fills the page and finds it full before anything is read
        chunks = []
        while chunk := os.read(rfd, 65536):
            chunks.append(chunk)
        got.append(b"".join(chunks))
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        p = _run(_argv(big, "diff-json", tmp_path / "restored.json"), wfd, unbuffered=unbuffered)
    finally:
        os.close(wfd)
    reader.join(30)
    os.close(rfd)
    assert (p.returncode, p.stderr) == (code, b"")
    assert got == [whole]


@pytest.mark.parametrize("case, template, files", FILES + [
    ("report-o-and-redacted", "report {P} {D} --redacted-payload {DISK}/red.json -o {DISK}/r.html", ["r.html"])],
    ids=[f[0] for f in FILES] + ["report-o-and-redacted"])
def test_a_fifo_given_as_the_output_file_is_refused_without_opening_it(big, tmp_path, case, template, files):
    """An output file name that is a FIFO exists: refused (exit 2) as any existing name is, and never
    opened (opening a FIFO with no reader for writing would block: the timeout would fail the test);
    the FIFO stays as it was and nothing else is written."""
    disk = tmp_path / "out"
    disk.mkdir()
    os.mkfifo(disk / files[0])
    p = _run(_file_argv(big, template, disk), subprocess.PIPE, unbuffered=True, timeout=30)
    assert p.returncode == 2, p.stderr
    assert p.stderr.decode().splitlines()[-1] == (f"checkpoint-inspector: {disk / files[0]} exists; "
                                                  "choose a new file name")
    assert p.stdout == b""
    assert stat.S_ISFIFO(os.lstat(disk / files[0]).st_mode)
    assert sorted(f.name for f in disk.iterdir()) == [files[0]]


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full here")
def test_self_test_line_on_dev_full_exits_3():
    """``--self-test`` prints its one line with ``sys.stdout.write``: on a full disk that is "cannot
    write the output" (exit 3), not an internal error and not its verdict."""
    with open("/dev/full", "wb") as stdout:
        p = _run(["--self-test"], stdout, unbuffered=True)
    assert (p.returncode, p.stderr.decode()) == (3, NOT_WRITTEN + "\n")
