"""One window for files opened from outside: a second instance hands its files to the
first over a real local socket and exits 0; the first opens the files that arrive close together as one pair.

The handoff is driven through real ``QLocalSocket``/``QLocalServer`` ends (a socket handoff is not a user
action): a second ``python -m inspector FILE`` process, or a socket in this process."""

import os
import shutil
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
from PySide6.QtNetwork import QLocalSocket

from inspector.gui import single_instance as si
from tests.conftest import ROOT
from tests.gui.conftest import GOLDEN_D, GOLDEN_P

NON_UTF8 = b"ck-\xff\xfe.descriptor.json"


@pytest.fixture
def name():
    """A server name of this test's own: a short absolute socket path (Unix) or a pipe name (Windows)."""
    if sys.platform == "win32":
        yield f"ci-test-{os.getpid()}-{id(object())}"
        return
    folder = tempfile.mkdtemp(prefix="ci-si-", dir="/tmp")  # (a Unix socket path must stay under 108 bytes)
    yield os.path.join(folder, "s")
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture
def split_pair(tmp_path):
    """The golden pair in two different folders (so the window cannot find one half beside the other), the
    descriptor under a name that is not UTF-8: ``(payload, descriptor)`` as ``str``."""
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    p = a / "x.payload.json"
    shutil.copyfile(GOLDEN_P, p)
    d = os.path.join(os.fsencode(b), NON_UTF8)
    with open(d, "wb") as out:
        out.write(GOLDEN_D.read_bytes())
    return str(p), os.fsdecode(d)


def _client_send(qtbot, name, request: bytes) -> bytes:
    """A second end in this process, driven by the event loop: send ``request``, return the answer."""
    sock = QLocalSocket()
    sock.connectToServer(name)
    qtbot.waitUntil(lambda: sock.state() == QLocalSocket.LocalSocketState.ConnectedState, timeout=5000)
    sock.write(request)
    got = []

    def answered():
        got.append(bytes(sock.readAll().data()))
        return b"".join(got).endswith(b"\n") or sock.state() == QLocalSocket.LocalSocketState.UnconnectedState

    qtbot.waitUntil(answered, timeout=5000)
    sock.abort()
    return b"".join(got)


def test_request_keeps_every_byte_of_a_name_and_refuses_malformed_ones(tmp_path):
    odd = os.fsdecode(os.path.join(os.fsencode(tmp_path), NON_UTF8))
    data = si.encode_request([odd, "relative.json"])
    assert data.startswith(b"CKPTINSP1 {\"paths\": [") and data.endswith(b"\n")
    back = si.decode_request(data)
    assert [os.fsencode(p) for p in back] == [os.fsencode(odd), os.fsencode(os.path.abspath("relative.json"))]
    assert os.fsencode(back[0]).endswith(b"\xff\xfe.descriptor.json")
    for bad in (b"hello\n", b"CKPTINSP1 {\"paths\": \"x\"}\n", b"CKPTINSP1 {\"paths\": [\"***\"]}\n",
                b"CKPTINSP1 {\"paths\": [\"\"]}\n", b"CKPTINSP1 not json\n", b"CKPTINSP1 {}\n"):
        with pytest.raises(ValueError):
            si.decode_request(bad)


def test_second_instance_process_hands_its_file_over_and_the_first_opens_the_pair(qtbot, window, name, split_pair):
    payload, descriptor = split_pair
    server = si.InstanceServer(name, window)
    assert server.listen()
    received = []
    server.pathsReceived.connect(received.append)
    # the timers' wait made long: a second Python process takes longer to start than the 450 ms
    collector = si.PathCollector(window.open_paths, window, delay_ms=120000, cap_ms=120000)
    server.pathsReceived.connect(collector.add)
    collector.add([payload])  # the first instance's own command line
    env = {k: v for k, v in os.environ.items() if k not in (si.ENV_NEW_WINDOW,)}
    env.update(QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(ROOT), **{si.ENV_INSTANCE: name})
    proc = subprocess.Popen([sys.executable, "-m", "inspector", os.fsencode(descriptor)], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        qtbot.waitUntil(lambda: proc.poll() is not None, timeout=60000)
    finally:
        if proc.poll() is None:
            proc.kill()
    out, err = proc.communicate()
    assert proc.returncode == 0, err
    assert out == b"" and err == b""
    assert [[os.fsencode(p) for p in r] for r in received] == [[os.fsencode(descriptor)]]
    assert collector.pending() == [payload, descriptor]
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        collector.flush()  # (what the quiet timer does)
    assert window.payload.path == payload
    assert os.fsencode(window.descriptor.path) == os.fsencode(descriptor)
    assert window.report.verified
    assert window.report.root_cause is None


def test_files_arriving_together_open_once_as_a_pair_with_the_default_timing(qtbot, window, name, split_pair):
    payload, descriptor = split_pair
    server = si.InstanceServer(name, window)
    assert server.listen()
    collector = si.PathCollector(window.open_paths, window)
    server.pathsReceived.connect(collector.add)
    flushed = []
    collector.flushed.connect(flushed.append)
    with qtbot.waitSignal(window.analysisReady, timeout=20000):
        collector.add([payload])
        assert _client_send(qtbot, name, si.encode_request([descriptor, payload])) == b"OK\n"
    assert flushed == [[payload, descriptor]]  # one open, the payload given twice kept once
    assert window.payload.path == payload
    assert os.fsencode(window.descriptor.path) == os.fsencode(descriptor)
    assert window.report.verified


def test_a_malformed_request_is_answered_err_and_opens_nothing(qtbot, window, name):
    server = si.InstanceServer(name, window)
    assert server.listen()
    received = []
    server.pathsReceived.connect(received.append)
    assert _client_send(qtbot, name, b"GET / HTTP/1.0\n") == b"ERR not a checkpoint-inspector request\n"
    assert received == []


@pytest.mark.skipif(sys.platform == "win32", reason="named pipes leave nothing behind")
def test_a_socket_left_by_a_crashed_instance_does_not_block_the_start(qtbot, window, name):
    dead = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    dead.bind(name)  # a listener that died without removing its socket file
    dead.close()
    assert os.path.exists(name)
    assert si.send_paths(name, [str(GOLDEN_P)]) is False  # nobody answers there
    claimed = si.claim(name, [str(GOLDEN_P)])
    assert (claimed.handed_off, claimed.note) == (False, "")
    assert claimed.server.is_listening()
    assert claimed.server.full_server_name() == name
    received = []
    claimed.server.pathsReceived.connect(received.append)
    assert _client_send(qtbot, name, si.encode_request([str(GOLDEN_D)])) == b"OK\n"
    assert received == [[str(GOLDEN_D)]]
    # a start without files while this one listens: no handoff, and it does not take the name over
    again = si.claim(name, [])
    assert (again.handed_off, again.server, again.note) == (False, None, "another instance listens")
    assert claimed.server.is_listening()
    claimed.server.close()
    assert not os.path.exists(name)


def test_handoff_is_off_for_new_window_and_headless_platforms(tmp_path):
    assert si.enabled("xcb", environ={}) is True
    assert si.enabled("windows", new_window=True, environ={}) is False
    assert si.enabled("cocoa", environ={si.ENV_NEW_WINDOW: "1"}) is False
    assert si.enabled("offscreen", environ={}) is False  # the tests and the self-test never hand off
    assert si.enabled("minimal", environ={}) is False
    assert si.enabled("offscreen", environ={si.ENV_INSTANCE: "x"}) is True


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX user ids")
def test_server_name_is_per_user_and_display_in_a_folder_only_the_user_enters(tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = {"DISPLAY": ":0", "TMPDIR": str(tmp)}
    base = si.server_name(env)
    folder = tmp / f"checkpoint-inspector-{os.getuid()}"
    assert Path(base).parent == folder and Path(base).name.startswith("checkpoint-inspector-")
    assert len(Path(base).name) == len("checkpoint-inspector-") + 16 + len(".sock")
    assert (folder.stat().st_mode & 0o777, folder.stat().st_uid) == (0o700, os.getuid())
    assert si.server_name(env) == base
    assert si.server_name({**env, "DISPLAY": ":1"}) != base
    assert si.server_name({si.ENV_INSTANCE: "/tmp/x"}) == "/tmp/x"
    runtime = tmp_path / "run"
    runtime.mkdir(0o700)
    assert si.server_name({**env, "XDG_RUNTIME_DIR": str(runtime)}) == str(runtime / Path(base).name)
    runtime.chmod(0o755)  # a runtime folder others may enter is not used
    assert si.server_name({**env, "XDG_RUNTIME_DIR": str(runtime)}) == base


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions")
def test_no_handoff_through_a_folder_another_user_could_have_prepared(tmp_path):
    """A name in the shared /tmp could be taken by any user, who would then receive the paths and make this
    start exit without a window: the socket lives in a folder only this user can enter, or nowhere."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    folder = tmp / f"checkpoint-inspector-{os.getuid()}"
    folder.mkdir(0o777)
    folder.chmod(0o777)  # open to everyone: somebody may be listening inside
    env = {"DISPLAY": ":0", "TMPDIR": str(tmp)}
    assert si.private_dir(env) is None and si.server_name(env) == ""
    claimed = si.claim("", [str(GOLDEN_P)])
    assert (claimed.handed_off, claimed.server) == (False, None) and "no private folder" in claimed.note
    folder.rmdir()
    (tmp / f"checkpoint-inspector-{os.getuid()}").symlink_to(tmp_path)  # a link is not the user's folder either
    assert si.private_dir(env) is None
    if os.getuid() == 0:  # root can make the folder another user's
        os.unlink(tmp / f"checkpoint-inspector-{os.getuid()}")
        other = tmp / f"checkpoint-inspector-{os.getuid()}"
        other.mkdir(0o700)
        os.chown(other, 65534, 65534)
        assert si.private_dir(env) is None


@pytest.mark.skipif(sys.platform == "win32" or os.getuid() != 0, reason="root makes a socket another user's")
def test_paths_are_never_sent_to_a_listener_of_another_user(qtbot, tmp_path):
    """Even at a name given explicitly: a socket that is not this user's gets nothing (its listener reads no
    request, and the start opens its own window)."""
    path = str(tmp_path / "other.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(1)
    os.chown(path, 65534, 65534)
    listener.settimeout(2)
    try:
        assert si.send_paths(path, [str(GOLDEN_P)], connect_ms=1000, ack_ms=500) is False
        conn, _ = listener.accept()  # Qt connected before it looked at the owner, then hung up at once
        conn.settimeout(2)
        assert conn.recv(4096) == b""
        conn.close()
    finally:
        listener.close()
