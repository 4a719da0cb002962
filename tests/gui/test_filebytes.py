"""filebytes.FileBytes: a file's bytes read on access with pread (the bytes pane while a large
payload is verified), never a mapping, so a file that shrinks gives short reads, not SIGBUS."""

import os

from inspector.gui.filebytes import FileBytes
from inspector.gui.widgets.hex_search import find_all


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
