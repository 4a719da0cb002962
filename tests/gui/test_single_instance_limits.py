"""The hand-off socket's limits (a stuck or hostile client of the same user must neither hold the window's
memory nor go unanswered): size, path count, shape (no parse level by level), idle time, total time and
concurrent connections, each refusal answered ``ERR <reason>`` with the connection closed and its buffer
freed. Driven by raw ``QLocalSocket`` clients in this process against a real ``InstanceServer``; what is
held is read from the server (:meth:`~InstanceServer.connection_count`, :meth:`~InstanceServer.buffered_bytes`),
not from the process's memory."""

import base64
import collections
import json
import os
import shutil
import sys
import tempfile

import pytest
from PySide6.QtCore import QTimer
from PySide6.QtNetwork import QLocalSocket

from inspector.gui import single_instance as si
from tests.conftest import ROOT

UNCONNECTED = QLocalSocket.LocalSocketState.UnconnectedState
HEAD = si.MAGIC + b'{"paths": ["'  # how every request begins
NESTED_ANSWER = b'ERR malformed request (not {"paths": [base64, ...]})\n'


@pytest.fixture
def name():
    """A server name of this test's own (a short socket path on Unix, a pipe name on Windows)."""
    if sys.platform == "win32":
        yield f"ci-limits-{os.getpid()}-{id(object())}"
        return
    folder = tempfile.mkdtemp(prefix="ci-sil-", dir="/tmp")
    yield os.path.join(folder, "s")
    shutil.rmtree(folder, ignore_errors=True)


class Client:
    """A raw second end: connects to ``name``, writes ``data`` once connected, keeps every byte answered;
    with ``hang_up``, it closes once a whole answer line is in (as ``send_paths`` does), else it waits for the
    server to close."""

    def __init__(self, name: str, data: bytes = b"", hang_up: bool = False):
        self.sock = QLocalSocket()
        self.answer = bytearray()
        self.hang_up = hang_up
        self.sock.readyRead.connect(self._take)
        if data:
            self.sock.connected.connect(lambda: self.sock.write(data))
        self.sock.connectToServer(name)

    def _take(self):
        if self.sock.bytesAvailable():
            self.answer += bytes(self.sock.readAll().data())
        if self.hang_up and self.answer.endswith(b"\n"):
            self.sock.abort()

    def closed(self) -> bool:
        return self.sock.state() == UNCONNECTED

    def connected(self) -> bool:
        return self.sock.state() == QLocalSocket.LocalSocketState.ConnectedState


def _request(paths: list[bytes], pad: int = 0) -> bytes:
    """A request for ``paths`` (bytes, sent as they are), with ``pad`` spaces before its closing brace."""
    items = [base64.b64encode(p).decode("ascii") for p in paths]
    return si.MAGIC + json.dumps({"paths": items}).encode("ascii")[:-1] + b" " * pad + b"}\n"


def _answered(qtbot, client: Client, timeout=5000) -> bytes:
    qtbot.waitUntil(client.closed, timeout=timeout)
    return bytes(client.answer)


def test_the_limits_are_the_documented_ones():
    assert (si.MAX_REQUEST, si.MAX_PATHS, si.IDLE_MS, si.REQUEST_MS, si.MAX_CONNECTIONS) == (
        1 << 20, 256, 3000, 10000, 8)
    server = si.InstanceServer("unused")
    assert (server.idle_ms, server.deadline_ms, server.max_connections) == (3000, 10000, 8)
    guide = " ".join((ROOT / "docs" / "user-guide.md").read_text("utf-8").split())
    assert ("takes at most 256 paths and 1 MiB per hand-off, in the one flat shape the program sends (a nested "
            "request is refused, never parsed level by level); a connection that is silent for 3 s, or has not "
            "sent its whole request within 10 s, is dropped, and at most 8 are served at once.") in guide
    doc = " ".join(si.__doc__.split())
    assert ":data:`MAX_REQUEST` bytes (1 MiB, its newline included) and :data:`MAX_PATHS` paths (256:" in doc
    assert ":data:`IDLE_MS` (3 s)" in doc and ":data:`REQUEST_MS` (10 s)" in doc
    assert ":data:`MAX_CONNECTIONS` (8)" in doc


def test_two_hundred_half_sent_requests_hold_eight_connections_and_all_are_dropped(qtbot, name):
    """200 clients each send the first half of a 1 MiB request and then nothing: 8 are served (their halves
    buffered, nothing more), the other 192 answered ``ERR busy`` and closed at once; the 8 are dropped once
    silent for the idle time, and nothing stays held."""
    server = si.InstanceServer(name, idle_ms=600000, deadline_ms=600000)  # (the idle time shortened below)
    assert server.listen()
    half = HEAD + b"A" * (si.MAX_REQUEST // 2 - len(HEAD))
    clients = [Client(name, half) for _ in range(200)]
    held = []
    sampler = QTimer(interval=5)
    sampler.timeout.connect(lambda: held.append((server.connection_count(), server.buffered_bytes())))
    sampler.start()
    qtbot.waitUntil(lambda: sum(c.closed() for c in clients) == 192 and server.connection_count() == 8
                    and server.buffered_bytes() == 8 * len(half), timeout=60000)
    refused = [c for c in clients if c.closed()]
    assert collections.Counter(bytes(c.answer) for c in refused) == {b"ERR busy\n": 192}
    served = [c for c in clients if not c.closed()]
    assert len(served) == 8 and all(c.answer == b"" for c in served)
    server.idle_ms = 200  # (read at every check)
    qtbot.waitUntil(lambda: all(c.closed() for c in served), timeout=10000)
    assert [bytes(c.answer) for c in served] == [b"ERR idle timeout\n"] * 8
    qtbot.waitUntil(lambda: server.connection_count() == 0, timeout=5000)
    sampler.stop()
    assert (server.connection_count(), server.buffered_bytes()) == (0, 0)
    assert max(n for n, _ in held) <= si.MAX_CONNECTIONS + si.MAX_CLOSING
    assert max(b for _, b in held) <= 8 * len(half) + si.MAX_CLOSING * 64 * 1024


def test_two_hundred_requests_past_1_mib_are_refused_as_they_reach_it(qtbot, name):
    """Each sends 1 MiB with no newline yet: the request cannot fit, so it is refused when its 1 MiB is in
    (not kept until a newline), or refused ``busy`` while 8 others are served."""
    server = si.InstanceServer(name)
    assert server.listen()
    big = HEAD + b"A" * (si.MAX_REQUEST - len(HEAD))
    clients = [Client(name, big) for _ in range(200)]
    most = []
    sampler = QTimer(interval=5)
    sampler.timeout.connect(lambda: most.append(server.buffered_bytes()))
    sampler.start()
    qtbot.waitUntil(lambda: all(c.closed() for c in clients), timeout=60000)
    qtbot.waitUntil(lambda: server.connection_count() == 0, timeout=5000)
    sampler.stop()
    answers = collections.Counter(bytes(c.answer) for c in clients)
    assert set(answers) <= {b"ERR request too large\n", b"ERR busy\n"}
    assert sum(answers.values()) == 200 and answers[b"ERR request too large\n"] >= 8
    assert server.buffered_bytes() == 0
    assert max(most) <= si.MAX_CONNECTIONS * si.MAX_REQUEST + si.MAX_CLOSING * 64 * 1024


def test_a_request_100000_levels_deep_is_answered_err(qtbot, name):
    server = si.InstanceServer(name)
    assert server.listen()
    received = []
    server.pathsReceived.connect(received.append)
    for body in (b'{"paths": ' + b"[" * 100000 + b"]" * 100000 + b"}",
                 b'{"paths": [' + b'{"a": ' * 100000 + b"1" + b"}" * 100000 + b"]}",
                 b"[" * 100000 + b"]" * 100000):
        client = Client(name, si.MAGIC + body + b"\n", hang_up=True)
        assert _answered(qtbot, client) == NESTED_ANSWER
    qtbot.waitUntil(lambda: server.connection_count() == 0, timeout=5000)
    assert received == []
    # the parser is a linear match, not one call per level: a depth far past the interpreter's stack is refused
    with pytest.raises(RecursionError):
        json.loads(b"[" * 1000000 + b"]" * 1000000)
    with pytest.raises(ValueError, match=r"^malformed request \(not"):
        si.decode_request(si.MAGIC + b'{"paths": ' + b"[" * 1000000 + b"]" * 1000000 + b"}\n")


def test_a_silent_connection_is_dropped_after_the_idle_time(qtbot, name):
    server = si.InstanceServer(name, idle_ms=1000)
    assert server.listen()
    silent, started = Client(name), Client(name, HEAD)  # nothing at all; the first bytes of a request
    qtbot.waitUntil(lambda: server.connection_count() == 2 and server.buffered_bytes() == len(HEAD), timeout=5000)
    assert _answered(qtbot, silent) == b"ERR idle timeout\n"
    assert _answered(qtbot, started) == b"ERR idle timeout\n"
    qtbot.waitUntil(lambda: server.connection_count() == 0, timeout=5000)
    assert server.buffered_bytes() == 0


def test_a_trickling_request_is_dropped_at_the_deadline(qtbot, name):
    """One byte every 50 ms is never silent for the idle time, but the request is not whole in time."""
    server = si.InstanceServer(name, idle_ms=1000, deadline_ms=2500)
    assert server.listen()
    client = Client(name)
    qtbot.waitUntil(client.connected, timeout=5000)
    source = iter(HEAD + b"A" * 10000)
    drip = QTimer(interval=50)
    drip.timeout.connect(lambda: client.sock.write(bytes([next(source)])) if client.connected() else None)
    drip.start()
    assert _answered(qtbot, client) == b"ERR request deadline\n"
    drip.stop()
    qtbot.waitUntil(lambda: server.connection_count() == 0, timeout=5000)


def test_a_ninth_connection_is_refused_busy_and_a_freed_place_serves_again(qtbot, name, tmp_path):
    server = si.InstanceServer(name)
    assert server.listen()
    received = []
    server.pathsReceived.connect(received.append)
    waiting = [Client(name) for _ in range(8)]
    qtbot.waitUntil(lambda: server.connection_count() == 8, timeout=5000)
    assert _answered(qtbot, Client(name, si.encode_request([str(tmp_path / "a.json")]))) == b"ERR busy\n"
    waiting[0].sock.abort()
    qtbot.waitUntil(lambda: server.connection_count() == 7, timeout=5000)
    assert _answered(qtbot, Client(name, si.encode_request([str(tmp_path / "b.json")]), hang_up=True)) == b"OK\n"
    assert received == [[str(tmp_path / "b.json")]]
    for c in waiting[1:]:
        c.sock.abort()
    qtbot.waitUntil(lambda: server.connection_count() == 0, timeout=5000)


def test_the_size_and_path_count_bounds_are_exact(qtbot, name):
    server = si.InstanceServer(name)
    assert server.listen()
    received = []
    server.pathsReceived.connect(received.append)
    names = [b"/p/%04d.json" % i for i in range(si.MAX_PATHS + 1)]
    exact = _request(names[:2])
    exact = _request(names[:2], pad=si.MAX_REQUEST - len(exact))  # newline included: exactly 1 MiB
    assert len(exact) == si.MAX_REQUEST
    over = _request(names[:2], pad=si.MAX_REQUEST - len(_request(names[:2])) + 1)
    for request, answer in ((exact, b"OK\n"), (over, b"ERR request too large\n"),
                            (_request(names[:si.MAX_PATHS]), b"OK\n"), (_request(names), b"ERR too many paths\n")):
        assert _answered(qtbot, Client(name, request, hang_up=True)) == answer
    assert [[os.fsencode(p) for p in r] for r in received] == [names[:2], names[:si.MAX_PATHS]]
    qtbot.waitUntil(lambda: server.connection_count() == 0, timeout=5000)
    assert server.buffered_bytes() == 0


def test_only_the_flat_shape_is_read():
    good = si.encode_request(["/a", "/b"])
    assert si.decode_request(good) == ["/a", "/b"]
    spaced = si.MAGIC + b' \t{ "paths" :\r [ "L2E=" ,"L2I=" ] } \n'
    assert si.decode_request(spaced) == ["/a", "/b"]
    assert si.decode_request(si.MAGIC + b'{"paths": []}\n') == []
    for bad, why in ((b'{"paths": ["L2E="], "x": 1}', "not"), (b'{"paths": ["L2E\\u003d"]}', "a path is not a base64"),
                     (b'{"paths": ["L2E=",]}', "a path is not a base64"),
                     (b'{"paths": ["L2E"]}', "a path is not base64"), (b'{"paths": ["L2E="]', "not"),
                     (b'{"paths": [["L2E="]]}', "not")):
        with pytest.raises(ValueError, match=r"^malformed request \(" + why):
            si.decode_request(si.MAGIC + bad + b"\n")
