"""The source seam (inspector.session.sources) against real places: a local folder, an HTTP server and an
S3-protocol server on loopback, and a JSON Lines file of SDK export wrappers."""

from __future__ import annotations

import hashlib
import os
import threading

import pytest

from inspector.checkpoint.digest import MAX_CONTENT_BYTES
from inspector.session import sources
from inspector.session.folderscan import scan_source
from inspector.session.sources import (ExportLines, FsspecSource, LocalFolder, SourceError, open_source, read_location,
                                       shown_location)
from tests.conftest import GOLDEN
from tests.servers import http_folder, s3_server, upload

pytest.importorskip("fsspec", reason="the URL sources need fsspec (the sources extra)")

P = (GOLDEN / "payload-with-resume.json").read_bytes()
D = (GOLDEN / "descriptor-with-resume.json").read_bytes()


def _in_worker(fn):
    out, err = [], []
    t = threading.Thread(target=lambda: _run(fn, out, err))
    t.start()
    t.join(120)
    if err:
        raise err[0]
    return out[0]


def _run(fn, out, err):
    try:
        out.append(fn())
    except BaseException as e:  # noqa: BLE001
        err.append(e)


def _folder(tmp_path, fifo=True):
    (tmp_path / "p.json").write_bytes(P)
    (tmp_path / "d.json").write_bytes(D)
    (tmp_path / "notes.txt").write_bytes(b"hello")
    if fifo:
        os.mkfifo(tmp_path / "pipe")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "inner.json").write_bytes(P)
    return tmp_path


def test_a_local_folder_lists_files_with_sizes_and_skips_a_fifo(tmp_path):
    src = LocalFolder(str(_folder(tmp_path)))
    assert [(e.name, e.size) for e in src.entries()] == [("d.json", len(D)), ("notes.txt", 5), ("p.json", len(P))]
    rec = LocalFolder(str(tmp_path), recursive=True)
    assert [e.name for e in rec.entries()] == ["d.json", "notes.txt", "p.json", "inner.json"]
    entry = next(e for e in src.entries() if e.name == "p.json")
    assert src.read(entry) == P
    assert src.read(entry, 10) == P[:11]  # one byte past the bound: "it is longer"
    assert src.token(entry) == entry.token
    (tmp_path / "p.json").write_bytes(P + b" ")
    assert src.token(entry) != entry.token
    os.remove(tmp_path / "p.json")
    assert src.token(entry) is None


def test_shown_locations_carry_no_credential():
    assert shown_location("s3://bucket/a/p.json") == "s3://bucket/a/p.json"
    assert shown_location("https://user:secret@host:8443/x/p.json?X-Amz-Signature=abc#f") == "https://host:8443/x/p.json"
    assert shown_location("/home/me/p.json") == "/home/me/p.json"
    assert sources.is_url("memory://x") and not sources.is_url("C:\\x\\p.json")


def test_an_http_folder_is_listed_and_read_exactly(tmp_path):
    with http_folder(_folder(tmp_path, fifo=False)) as base:
        src = open_source(base + "/")
        assert isinstance(src, FsspecSource)
        # an HTTP directory listing names the files but not their sizes (known once read)
        assert [(e.location, e.size) for e in src.entries()] == [
            (f"{base}/d.json", None), (f"{base}/notes.txt", None), (f"{base}/p.json", None)]
        entry = next(e for e in src.entries() if e.name == "p.json")
        assert src.read(entry) == P
        data, token = read_location(base + "/p.json")
        assert data == P and token
        with pytest.raises(SourceError) as e:
            read_location(base + "/missing.json")
        assert e.value.reason == f"{base}/missing.json: no such file"
        rows = _in_worker(lambda: scan_source(src))
        pair = [r for r in rows if r.payload and r.payload.endswith("/p.json")]
        assert len(pair) == 1 and pair[0].descriptor.endswith("/d.json") and pair[0].verified


def test_a_file_larger_than_a_block_is_read_whole_from_a_server_without_range_requests(tmp_path):
    """Python's http.server answers every GET whole (no ``Range``); fsspec's blocked reads ask for ranges after
    the first MiB, so a whole read streams from the start instead, and the bound still holds."""
    big = bytes(range(256)) * (12 * 1024 + 7)  # 3 MiB and 1,792 bytes, over three 1 MiB blocks
    (tmp_path / "big.json").write_bytes(big)
    with http_folder(tmp_path) as base:
        src = open_source(base + "/")
        entry = next(e for e in src.entries() if e.name == "big.json")
        assert src.read(entry) == big
        assert src.read(entry, limit=(1 << 20) + 5) == big[:(1 << 20) + 6]  # (the ceiling plus one)
        assert read_location(base + "/big.json")[0] == big


def test_an_http_prefix_with_a_query_keeps_it_after_each_files_path_and_names_are_decoded(tmp_path):
    """A pre-signed (or SAS-style) prefix ``/folder/?sig=X``: each file is ``/folder/NAME?sig=X``, never
    ``/folder/?sig=X/NAME`` (which is the listing again); a name with a space is shown with it, not ``%20``."""
    folder = tmp_path / "exports"
    folder.mkdir()
    (folder / "p 1.json").write_bytes(P)
    (folder / "d.json").write_bytes(D)
    with http_folder(tmp_path) as base:
        src = open_source(base + "/exports/?sig=s3cr3t")
        assert [(e.location, e.name) for e in src.entries()] == [
            (f"{base}/exports/d.json?sig=s3cr3t", "d.json"), (f"{base}/exports/p%201.json?sig=s3cr3t", "p 1.json")]
        assert src.read(src.entries()[1]) == P
        rows = _in_worker(lambda: scan_source(src))
        assert [(r.payload, r.descriptor, r.verified) for r in rows] == [
            (f"{base}/exports/p%201.json?sig=s3cr3t", f"{base}/exports/d.json?sig=s3cr3t", True)]


def test_a_link_with_its_own_query_under_a_signed_prefix_gets_both():
    from inspector.session.sources import _web_location

    root = "http://h/f/?sig=X"
    assert _web_location(root, root + "/p.json") == "http://h/f/p.json?sig=X"
    assert _web_location(root, root + "/p.json?v=1") == "http://h/f/p.json?v=1&sig=X"
    assert _web_location("http://h/f/", "http://h/f/p.json") == "http://h/f/p.json"


def test_a_dead_http_server_is_a_clear_error(tmp_path):
    with http_folder(tmp_path) as base:
        pass  # stopped: nothing listens there now
    with pytest.raises(SourceError) as e:
        read_location(base + "/p.json")
    assert e.value.reason.startswith(f"{base}/p.json: cannot read (")


def test_a_bucket_prefix_on_an_s3_server(monkeypatch):
    with s3_server(monkeypatch) as endpoint:
        upload(endpoint, "exports", {"live/s1/p.json": P, "live/s1/d.json": D, "live/s1/README.md": b"# x",
                                     "live/other/p2.json": P})
        src = open_source("s3://exports/live/s1/")
        assert [(e.location, e.size) for e in src.entries()] == [
            ("s3://exports/live/s1/README.md", 3), ("s3://exports/live/s1/d.json", len(D)),
            ("s3://exports/live/s1/p.json", len(P))]
        rows = _in_worker(lambda: scan_source(src))
        verified = [(r.payload, r.descriptor) for r in rows if r.verified]
        assert verified == [("s3://exports/live/s1/p.json", "s3://exports/live/s1/d.json")]
        rec = open_source("s3://exports/live/", recursive=True)
        assert [e.name for e in rec.entries()] == ["p2.json", "README.md", "d.json", "p.json"]
        data, token = read_location("s3://exports/live/s1/p.json")
        assert data == P and token.startswith(f"{len(P)}:")
        with pytest.raises(SourceError) as e:
            read_location("s3://exports/live/s1/nope.json")
        assert e.value.reason == "s3://exports/live/s1/nope.json: no such file"


def test_a_json_lines_file_of_exports(tmp_path):
    import base64
    import json

    desc = json.loads(D)
    line = json.dumps({"descriptor": desc, "contentBase64": base64.b64encode(P).decode()}).encode()
    path = tmp_path / "sink.jsonl"
    path.write_bytes(line + b"\n\n" + line + b"\r\n")
    src = open_source(str(path))
    assert isinstance(src, ExportLines)
    entries = src.entries()
    assert [(e.name, e.size) for e in entries] == [("sink.jsonl:1", len(line)), ("sink.jsonl:3", len(line))]
    assert src.read(entries[1]) == line
    rows = _in_worker(lambda: scan_source(src))
    assert [r.verified for r in rows] == [True, True]
    assert len({hashlib.sha256(src.read(e)).hexdigest() for e in entries}) == 1


def test_reads_are_bounded_by_the_content_ceiling(tmp_path):
    with http_folder(tmp_path) as base:
        (tmp_path / "big.json").write_bytes(b" " * 4096)
        data, _ = read_location(base + "/big.json", 100)
        assert len(data) == 101
    assert MAX_CONTENT_BYTES == 268435456


def test_what_cannot_be_opened_says_why(tmp_path):
    with pytest.raises(SourceError) as e:
        open_source(str(tmp_path / "nothing-here"))
    assert e.value.reason == f"{tmp_path / 'nothing-here'}: not a folder, a URL or a .jsonl file of exports"
    with pytest.raises(SourceError) as e:
        open_source("nosuchproto://x/")
    assert e.value.reason.startswith("nosuchproto://x/: cannot open (")
