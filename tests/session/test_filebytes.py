"""filebytes.FileBytes: a file's bytes read on access with pread (the bytes pane while a large
payload is verified), never a mapping, so a file that shrinks gives short reads, not SIGBUS."""

import os

import pytest

from inspector.session.filebytes import FileBytes
from inspector.session.hex_search import find_all


def test_reads_like_bytes_and_says_when_the_file_shrank(tmp_path):
    p = tmp_path / "payload.json"
    data = b'{"schema":"x","snapshot":{"turn":3}}'
    p.write_bytes(data)
    fb = FileBytes(str(p), len(data))
    assert (len(fb), bool(fb), fb[0], fb[-1], fb[2:8], fb[::5]) == (36, True, 0x7B, 0x7D, b'schema', data[::5])
    assert find_all(fb, b'"') == find_all(data, b'"') == ([1, 8, 10, 12, 14, 23, 26, 31], False)
    assert (fb.find(b"turn"), fb.find(b"turn", 28), fb.changed) == (27, -1, False)
    os.truncate(p, 10)
    assert (len(fb), fb[8:16], fb[20], fb.changed) == (36, b'":', 0, True)
    fb.close()
    assert fb[0:4] == b""


def test_read_all_reads_the_file_opened_and_says_what_it_was(tmp_path):
    """``read_all``: the whole file opened, with its identity (device, inode, size, mtime); a file renamed
    over it or deleted does not change what it reads; one truncated in place gives no identity."""
    p = tmp_path / "payload.json"
    data = b'{"schema":"x","snapshot":{"turn":3}}'
    p.write_bytes(data)
    st = os.stat(p)
    fb = FileBytes(str(p), len(data))
    assert fb.identity == (st.st_dev, st.st_ino, 36, st.st_mtime_ns)
    assert fb.read_all() == (data, fb.identity)
    (tmp_path / "new.json").write_bytes(b"[]")
    os.replace(tmp_path / "new.json", p)
    assert fb.read_all() == (data, fb.identity)
    os.unlink(p)
    assert fb.read_all() == (data, fb.identity)
    q = tmp_path / "q.json"
    q.write_bytes(data)
    fq = FileBytes(str(q), len(data))
    os.truncate(q, 10)
    assert fq.read_all() == (data[:10], None)
    fb.close()
    with pytest.raises(OSError):
        fb.read_all()


def test_adopt_serves_the_copy_after_closing_the_file(tmp_path):
    """``adopt``: the window swaps in its copy; a view still holding the reader (the bytes pane painting the
    partial verdict's moment) reads the copy, not a closed file's nothing; the file descriptor is closed."""
    p = tmp_path / "payload.json"
    data = b'{"schema":"x","snapshot":{"turn":3}}'
    p.write_bytes(data)
    fb = FileBytes(str(p), len(data))
    fd = fb._fd
    copy = p.read_bytes()
    fb.adopt(copy)
    with pytest.raises(OSError):
        os.fstat(fd)  # closed
    os.unlink(p)
    assert (fb[0], fb[-1], fb[2:8], fb[35:40], fb.find(b"turn"), fb.changed) == (0x7B, 0x7D, b"schema", b"}", 27, False)
    assert find_all(fb, b'"') == find_all(data, b'"')


def test_a_read_racing_adopt_gets_the_bytes_not_a_closed_file(tmp_path, monkeypatch):
    """The GUI thread reads while the loader thread adopts the copy: the read and the close do not interleave
    (a read that found the file open and then read a closed descriptor gave b"" and set ``changed`` for good)."""
    import threading

    p = tmp_path / "payload.json"
    data = b'{"schema":"x","snapshot":{"turn":3}}'
    p.write_bytes(data)
    fb = FileBytes(str(p), len(data))
    real_pread = os.pread
    in_read, adopted = threading.Event(), threading.Event()

    def slow_pread(fd, n, off):
        in_read.set()
        adopted.wait(0.5)  # adopt, on the other thread, must wait for this read to end
        return real_pread(fd, n, off)
    monkeypatch.setattr(os, "pread", slow_pread)
    got = []
    reader = threading.Thread(target=lambda: got.append(fb[2:8]))
    reader.start()
    in_read.wait(5)
    adopter = threading.Thread(target=lambda: (fb.adopt(data), adopted.set()))
    adopter.start()
    reader.join(5)
    adopter.join(5)
    assert got == [b"schema"] and not fb.changed
    assert fb[2:8] == b"schema"
