"""Real servers on loopback for the source tests: an HTTP server over a folder (the standard library's) and
an S3-protocol server (moto's server mode). Each is started by the test that needs it and stopped after;
clients (fsspec, s3fs, boto3) are never patched."""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import threading
from pathlib import Path

import pytest


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args):  # (no request log on the test's stderr)
        pass


@contextlib.contextmanager
def http_folder(folder: Path):
    """``http://127.0.0.1:PORT`` serving ``folder`` (with its directory listings), for the block's duration."""
    handler = functools.partial(_Quiet, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


#: the S3 test credentials (moto accepts any; they must never appear in an output)
S3_KEY, S3_SECRET = "AKIAIOSFODNN7TESTKEY", "wJalrXUtnFEMIK7MDENGbPxRfiCYTESTSECRET0"


@contextlib.contextmanager
def s3_server(monkeypatch):
    """An S3-protocol server (moto in server mode) on 127.0.0.1; yields its endpoint URL with the
    environment set as a user's would be (``AWS_ENDPOINT_URL``, keys, region) for s3fs and boto3."""
    server_mod = pytest.importorskip("moto.server", reason="the S3 tests need moto[server] (the dev extra)")
    pytest.importorskip("s3fs", reason="the S3 tests need s3fs (the sources extra)")
    server = server_mod.ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    for k, v in {"AWS_ENDPOINT_URL": endpoint, "AWS_ACCESS_KEY_ID": S3_KEY, "AWS_SECRET_ACCESS_KEY": S3_SECRET,
                 "AWS_DEFAULT_REGION": "us-east-1", "FSSPEC_S3_ENDPOINT_URL": endpoint}.items():
        monkeypatch.setenv(k, v)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    try:
        yield endpoint
    finally:
        server.stop()
        # (s3fs caches its filesystems by options, not by the endpoint the environment named: a later test's
        # server would be asked through this one's dead endpoint)
        import s3fs

        s3fs.S3FileSystem.clear_instance_cache()


def upload(endpoint: str, bucket: str, files: dict[str, bytes]) -> None:
    """Create ``bucket`` on the S3 server and put each ``key: bytes`` (boto3, a real client)."""
    import boto3

    s3 = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1")
    s3.create_bucket(Bucket=bucket)
    for key, data in files.items():
        s3.put_object(Bucket=bucket, Key=key, Body=data)


def env_for_subprocess() -> dict:
    """The environment for a CLI subprocess (the S3 variables the fixture set included)."""
    return dict(os.environ)


@contextlib.contextmanager
def silent_server():
    """``http://127.0.0.1:PORT`` of a server that accepts each connection and never answers (a dead share, a
    proxy that swallows requests), for the block's duration."""
    import socket

    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(64)
    held, stop = [], threading.Event()

    def accept():
        sock.settimeout(0.2)
        while not stop.is_set():
            try:
                conn, _ = sock.accept()
                held.append(conn)  # (kept open, never read, never answered)
            except OSError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    finally:
        stop.set()
        thread.join(5)
        for c in held:
            c.close()
        sock.close()
