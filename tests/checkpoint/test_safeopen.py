"""Reading a user-named path never blocks (inspector/checkpoint/safeopen.py): a FIFO with no writer, a device,
a socket and a folder are refused by name, decided on the opened descriptor, and reads stop at the ceiling.

Each call that could block runs on a thread joined with a timeout: a regression fails the test, it does not
hang the suite (the thread, stuck in ``open()``, is a daemon)."""

import os
import socket
import stat
import sys
import threading

import pytest

from inspector.checkpoint import UnreadableInput, read_input
from inspector.checkpoint import pairing, safeopen
from inspector.checkpoint.safeopen import NotAFile, open_regular, read_regular
from tests.conftest import GOLDEN

GP = GOLDEN / "payload-with-resume.json"
GD = GOLDEN / "descriptor-with-resume.json"

posix_only = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")


def _within(fn, seconds=10.0):
    """``fn()``'s result (or exception), failing the test when it has not returned within ``seconds``."""
    out = {}

    def run():
        try:
            out["value"] = fn()
        except BaseException as e:  # noqa: BLE001
            out["error"] = e
    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(seconds)
    assert not t.is_alive(), f"{fn} blocked for over {seconds} s"
    if "error" in out:
        raise out["error"]
    return out["value"]


@pytest.fixture
def fifo(tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs on this platform")
    path = tmp_path / "pipe.json"
    os.mkfifo(path)  # nobody ever writes to it: open() without O_NONBLOCK would wait for good
    return path


def test_a_fifo_with_no_writer_is_refused_at_once(fifo):
    with pytest.raises(NotAFile) as e:
        _within(lambda: read_regular(fifo))
    assert (e.value.kind, e.value.reason, e.value.strerror) == (
        "fifo", "is a FIFO (named pipe), not a file", "is a FIFO (named pipe), not a file")
    assert isinstance(e.value, OSError)
    with pytest.raises(UnreadableInput) as u:
        _within(lambda: read_input(str(fifo)))
    assert str(u.value) == f"{fifo}: is a FIFO (named pipe), not a file"


@pytest.mark.skipif(not os.path.exists("/dev/null"), reason="no /dev/null")
def test_a_device_is_refused():
    with pytest.raises(UnreadableInput) as u:
        _within(lambda: read_input("/dev/null"))
    assert str(u.value) == "/dev/null: is a device, not a file"


@pytest.mark.skipif(not hasattr(socket, "AF_UNIX"), reason="no Unix sockets")
def test_a_socket_is_refused(tmp_path):
    path = tmp_path / "s.json"
    with socket.socket(socket.AF_UNIX) as s:
        s.bind(str(path))
        with pytest.raises(UnreadableInput) as u:
            _within(lambda: read_input(str(path)))
    assert str(u.value) == f"{path}: is a socket, not a file"


def test_a_folder_and_a_missing_file_say_so(tmp_path):
    with pytest.raises(NotAFile) as e:
        open_regular(tmp_path)
    assert (e.value.kind, e.value.reason) == ("folder", "is a folder, not a file")
    with pytest.raises(UnreadableInput) as u:
        read_input(str(tmp_path))
    assert str(u.value) == f"{tmp_path}: is a folder, not a checkpoint file"
    with pytest.raises(UnreadableInput) as u:
        read_input(str(tmp_path / "gone.json"))
    assert str(u.value) == f"{tmp_path / 'gone.json'}: no such file"


@posix_only
def test_a_file_swapped_for_a_fifo_after_the_stat_is_refused_on_the_opened_descriptor(tmp_path, monkeypatch):
    """The race: the path is a regular file when it is looked at, a FIFO when it is opened. The decision is made
    on fstat of the descriptor opened with O_NONBLOCK, so it neither blocks nor reads the FIFO. (The swap is done
    right after the real ``os.stat`` returns: the window a slow file system leaves open.)"""
    path = tmp_path / "p.json"
    path.write_bytes(GP.read_bytes())
    spare = tmp_path / "spare"
    os.mkfifo(spare)
    real_stat = os.stat

    def stat_then_swap(p, *a, **kw):
        st = real_stat(p, *a, **kw)
        if os.fspath(p) == str(path) and stat.S_ISREG(st.st_mode):
            os.replace(spare, path)
        return st
    monkeypatch.setattr(safeopen.os, "stat", stat_then_swap)
    with pytest.raises(UnreadableInput) as u:
        _within(lambda: read_input(str(path)))
    assert str(u.value) == f"{path}: is a FIFO (named pipe), not a file"
    assert stat.S_ISFIFO(real_stat(path).st_mode)


def test_a_regular_file_is_read_whole_and_its_descriptor_is_blocking_again(tmp_path):
    data, st = read_regular(GP)
    assert data == GP.read_bytes() and st.st_size == len(data)
    fd, st = open_regular(GP)
    try:
        if hasattr(os, "get_blocking"):
            assert os.get_blocking(fd) is True
        assert stat.S_ISREG(st.st_mode)
    finally:
        os.close(fd)
    if hasattr(os, "O_NONBLOCK"):
        assert safeopen.OPEN_FLAGS & os.O_NONBLOCK and safeopen.OPEN_FLAGS & os.O_NOCTTY
        assert safeopen.OPEN_FLAGS & os.O_CLOEXEC


def test_reads_stop_one_byte_past_the_limit(tmp_path):
    path = tmp_path / "big.json"
    path.write_bytes(b"x" * 1000)
    data, st = read_regular(path, limit=10)
    assert data == b"x" * 11 and st.st_size == 1000
    assert read_regular(path, limit=1000)[0] == b"x" * 1000
    path.write_bytes(b"")
    assert read_regular(path, limit=10)[0] == b""


def test_a_file_over_the_ceiling_is_not_read(tmp_path):
    path = tmp_path / "big.json"
    path.write_bytes(b'{"snapshot":' + b" " * 100)
    f = read_input(str(path), ceiling=50)
    assert (f.data, f.size, f.role) == (None, 112, "payload")
    assert f.hint == "112 bytes is over the 50-byte v1 ceiling; not read"


@posix_only
def test_pairing_passes_a_fifo_beside_the_payload_without_blocking(tmp_path):
    p = tmp_path / "run.payload.json"
    p.write_bytes(GP.read_bytes())
    os.mkfifo(tmp_path / "run.descriptor.json")
    assert _within(lambda: pairing.find_sibling(str(p), "payload", p.read_bytes(), p.stat().st_size)) is None
    assert _within(lambda: pairing.file_sha256(str(tmp_path / "run.descriptor.json"))) is None
    assert pairing._stated_digest(str(tmp_path / "run.descriptor.json")) is None


@posix_only
def test_pairing_finds_the_descriptor_beside_a_payload_even_with_a_fifo_there(tmp_path):
    p = tmp_path / "run.payload.json"
    p.write_bytes(GP.read_bytes())
    (tmp_path / "run.descriptor.json").write_bytes(GD.read_bytes())
    os.mkfifo(tmp_path / "a-pipe.json")  # listed first
    s = _within(lambda: pairing.find_sibling(str(p), "payload", p.read_bytes(), p.stat().st_size))
    assert (s.path, s.how) == (str(tmp_path / "run.descriptor.json"), "digest")
    d = tmp_path / "run.descriptor.json"
    s = _within(lambda: pairing.find_sibling(str(d), "descriptor", d.read_bytes(), d.stat().st_size))
    assert (s.path, s.how) == (str(p), "digest")


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
def test_what_it_is_not_names_every_kind():
    assert safeopen.what_it_is_not(stat.S_IFREG | 0o644) is None
    assert safeopen.what_it_is_not(stat.S_IFIFO) == ("fifo", "is a FIFO (named pipe), not a file")
    assert safeopen.what_it_is_not(stat.S_IFCHR) == ("device", "is a device, not a file")
    assert safeopen.what_it_is_not(stat.S_IFBLK) == ("device", "is a device, not a file")
    assert safeopen.what_it_is_not(stat.S_IFSOCK) == ("socket", "is a socket, not a file")
    assert safeopen.what_it_is_not(stat.S_IFDIR) == ("folder", "is a folder, not a file")
    assert safeopen.what_it_is_not(stat.S_IFLNK) == ("other", "is not a regular file")
