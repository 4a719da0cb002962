"""A file's role among many is decided in one place (``inspector.checkpoint.roles``): read whole up to 1 MiB, else
streamed once and hashed; never by its name (FORMAT.md 1, 2, 3.2). The folder scan, the audit and the URL pairing
ask it, so they give one file one role."""

from __future__ import annotations

import gzip
import hashlib
import io
import json
import os

import pytest

from inspector.checkpoint import roles
from inspector.checkpoint.constants import MAX_CONTENT_BYTES
from inspector.checkpoint.safeopen import NotAFile
from inspector.checkpoint.sdk_export import wrap
from tests.conftest import GOLDEN

P = (GOLDEN / "payload-with-resume.json").read_bytes()
D = (GOLDEN / "descriptor-with-resume.json").read_bytes()
P_SHA = "sha256:122347d3f89487c21d788c9dda54b5883f4e79459aae7b6e4bfd5728049312e0"
D_SHA = "sha256:121773234dda5ba177018c3f93b6ef0fd095c780573ca3cc588deb376a528007"


def test_small_files_are_judged_whole_and_keep_a_descriptors_bytes(tmp_path):
    assert roles.role_of_path(str(GOLDEN / "payload-with-resume.json")) == roles.FileRole("payload", None, len(P),
                                                                                          None, P_SHA)
    assert roles.role_of_path(str(GOLDEN / "descriptor-with-resume.json")) == roles.FileRole("descriptor", None,
                                                                                             len(D), D, D_SHA)
    w = tmp_path / "run.json"  # any name: the content decides
    w.write_bytes(wrap(P, D))
    got = roles.role_of_path(str(w))
    assert (got.role, got.hint, got.data, got.size) == ("export", None, None, len(wrap(P, D)))
    (tmp_path / "empty.payload.json").write_bytes(b"")
    assert roles.role_of_path(str(tmp_path / "empty.payload.json")) == roles.FileRole(
        "unknown", "the file is empty", 0, None, "sha256:" + hashlib.sha256(b"").hexdigest())


def test_a_large_file_is_streamed_once_and_hashed(tmp_path):
    big = tmp_path / "descriptor.json"  # (the name says descriptor; over 1 MiB it is a payload)
    data = P[:-1] + b" " * (2 << 20) + P[-1:]
    big.write_bytes(data)
    assert roles.role_of_path(str(big)) == roles.FileRole("payload", None, len(data), None,
                                                          "sha256:" + hashlib.sha256(data).hexdigest())
    # once: the head, then the whole file in one pass (no second read of a payload that is no wrapper)
    class Counted(io.BytesIO):
        read_bytes = 0

        def read(self, n=-1):
            got = super().read(n)
            self.read_bytes += len(got)
            return got

    fh = Counted(data)
    assert roles.role_of_file(fh, len(data)).sha256 == "sha256:" + hashlib.sha256(data).hexdigest()
    assert fh.read_bytes == roles._HEAD + len(data)
    gz = tmp_path / "p.json.gz"
    gz.write_bytes(gzip.compress(os.urandom(3 << 20), compresslevel=0))
    got = roles.role_of_path(str(gz))
    assert (got.role, got.sha256, got.size) == ("unknown", None, gz.stat().st_size)
    assert got.hint == "the file is gzip-compressed; decompress it first (gunzip) and open the result"


def test_a_wrapper_behind_a_large_unknown_first_member_is_found_by_the_stream(tmp_path):
    """serde ignores unknown members whatever their size (FORMAT.md 1): the stream finds ``contentBase64`` past the
    first MiB (and across its 1 MiB chunks) and the file is read again whole to be judged."""
    inner = json.loads(wrap(P, D))
    at = json.dumps({"note": "", **inner}).encode().index(b'"contentBase64"')
    text = json.dumps({"note": "x" * ((1 << 20) - 7 - at), **inner}).encode()
    assert text.index(b'"contentBase64"') < 1 << 20 < text.index(b'"contentBase64"') + 15  # split by the chunks
    w = tmp_path / "padded.json"
    w.write_bytes(text)
    assert roles.role_of_path(str(w)) == roles.FileRole("export", None, len(text))


def test_over_the_ceiling_a_file_is_a_payload_by_its_size_and_never_read():
    """P-BOUND: a file listed over 256 MiB that does not open as a wrapper is never downloaded or streamed."""
    def never(_limit):
        raise AssertionError("read")

    head = b'{"schema":"a3s.session.checkpoint.v1","snapshot":'
    assert roles.role_of_entry(head, MAX_CONTENT_BYTES + 1, never) == roles.FileRole("payload", None,
                                                                                    MAX_CONTENT_BYTES + 1)

    class Head(io.BytesIO):
        def read(self, n=-1):
            if self.tell():
                raise AssertionError("streamed")
            return super().read(n)

    assert roles.role_of_stream(Head(head), MAX_CONTENT_BYTES + 5) == roles.FileRole("payload", None,
                                                                                    MAX_CONTENT_BYTES + 5)
    # one that opens as a wrapper is read, up to the wrapper ceiling: its content is what the ceiling bounds
    wrapped = wrap(P, D)
    asked = []
    got = roles.role_of_entry(wrapped[:256], MAX_CONTENT_BYTES + 1, lambda n: asked.append(n) or wrapped)
    assert (got.role, asked) == ("export", [roles.read_ceiling(wrapped[:256])])
    assert roles.read_ceiling(wrapped[:256]) > roles.read_ceiling(head) == MAX_CONTENT_BYTES


def test_an_entry_is_judged_as_a_local_file_of_the_same_bytes(tmp_path):
    for name, data in (("p", P), ("d", D), ("w", wrap(P, D)), ("t", b"not json")):
        (tmp_path / name).write_bytes(data)
        assert roles.role_of_entry(data[:256], len(data), lambda n, d=data: d[:n + 1]) == \
            roles.role_of_path(str(tmp_path / name))


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_refused_without_blocking(tmp_path):
    fifo = tmp_path / "payload.json"
    os.mkfifo(fifo)
    with pytest.raises(NotAFile):
        roles.role_of_path(str(fifo))


def test_the_url_pairing_of_a_large_wrapper_finds_no_descriptor_beside_it(tmp_path):
    """A wrapper over 1 MiB fetched from a URL holds its own descriptor: the pairing looks for none beside it on the
    server (it used to judge such a file from its first 256 bytes, as a payload, and pair it with the descriptor of
    its name). A payload of the same size, fetched from the same place, is paired with that descriptor."""
    pytest.importorskip("fsspec", reason="the URL sources need fsspec (the sources extra)")
    from inspector.session.routing import url_sibling
    from tests.servers import http_folder

    served, local = tmp_path / "served", tmp_path / "copy.json"
    served.mkdir()
    (served / "run.descriptor.json").write_bytes(D)
    inner = json.loads(wrap(P, D))
    local.write_text(json.dumps({**inner, "note": "x" * (2 << 20)}))
    (served / "run.json").write_bytes(local.read_bytes())
    with http_folder(served) as base:
        assert url_sibling(base + "/run.json", str(local)) is None
        local.write_bytes(P[:-1] + b" " * (2 << 20) + P[-1:])
        (served / "run.json").write_bytes(local.read_bytes())
        assert url_sibling(base + "/run.json", str(local)) == base + "/run.descriptor.json"
