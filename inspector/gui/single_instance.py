"""One window per user for files opened from outside.

Selecting a payload and its descriptor in Explorer and choosing *Open* starts the program once per file
(Windows runs the "Open with" command for each selected file); a second ``checkpoint-inspector FILE`` while
the window is open did the same on every system. Each process opened one file alone in its own window, and
neither verified. Now:

* the first instance of a user listens on a local socket (:class:`InstanceServer`, a Unix domain socket or a
  Windows named pipe through ``QLocalServer``; name from :func:`server_name`, per user and per display);
* a later instance started with files sends their absolute paths there (:func:`send_paths`) and exits 0
  once the first one has acknowledged them; when nobody answers (or the answer does not come), it opens
  its own window as before;
* the first instance gathers the files that arrive within :data:`COLLECT_MS` of each other (its own
  command line's included, and macOS Finder's ``QFileOpenEvent`` files, see ``app.FileOpenFilter``) in a
  :class:`PathCollector` and opens them together: a payload and its descriptor open as one pair.

A file arriving too late for the pair still opens with its other half when that lies beside it (the
window's ``find_pair``). ``--new-window`` and ``CHECKPOINT_INSPECTOR_NEW_WINDOW=1`` turn all of this
off (:func:`enabled`), and so does Qt's ``offscreen``/``minimal`` platform (tests, the self-test, CI),
unless ``CHECKPOINT_INSPECTOR_INSTANCE`` names the server explicitly (the tests of the handoff itself).

Wire format, one request per connection: ``CKPTINSP1 `` + JSON ``{"paths": [...]}`` + ``\\n``, each path
being ``base64(os.fsencode(path))`` (so a file name that is not UTF-8, a lone surrogate on Windows,
survives byte for byte); the answer is ``OK\\n`` or ``ERR <reason>\\n``. Only paths travel, never content.

Limits of the listening end (:class:`InstanceServer`; anyone of this user can connect, so a stuck or hostile
client must not hold the window's memory or get it to parse without end):

* a request is at most :data:`MAX_REQUEST` bytes (1 MiB, its newline included) and :data:`MAX_PATHS` paths
  (256: an average of 4 KiB of base64 per path; Explorer's starts send one path each);
* the request is read in exactly the flat shape :func:`encode_request` writes (an object with the one key
  ``paths``, a list of base64 strings, JSON whitespace allowed), matched without recursion: nesting, other
  keys or escapes are refused, however deep;
* a connection silent for :data:`IDLE_MS` (3 s) before its request is complete, or not complete within
  :data:`REQUEST_MS` (10 s) of connecting, is dropped;
* at most :data:`MAX_CONNECTIONS` (8) connections are served at once; a further one is refused at once.

Each refusal answers ``ERR <reason>\\n`` (``busy``, ``request too large``, ``too many paths``, ``idle timeout``,
``request deadline``, ``not a checkpoint-inspector request``, ``malformed request (...)``), frees what the
connection had buffered and closes it: an answered client has :data:`CLOSE_MS` (1 s) to take its answer and
hang up, what it still sends meanwhile being read and dropped (so a client still writing gets the answer, not
a reset); beyond :data:`MAX_CLOSING` (32) such connections, the next is closed right after its answer. A
start whose files are refused (more than 256, say) opens its own window, as when nobody answers.
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys
import time
from dataclasses import dataclass

import shiboken6
from PySide6.QtCore import QDir, QLockFile, QObject, QTimer, Signal, Slot
from PySide6.QtNetwork import QLocalServer, QLocalSocket

from .handoff_wire import MAGIC, MAX_PATHS, MAX_REQUEST, decode_request, encode_request

__all__ = [
    "CLOSE_MS", "COLLECT_MS", "COLLECT_CAP_MS", "ENV_INSTANCE", "ENV_NEW_WINDOW", "IDLE_MS", "MAGIC", "MAX_CLOSING",
    "MAX_CONNECTIONS", "MAX_PATHS", "MAX_REQUEST", "REQUEST_MS", "Claim", "InstanceServer", "PathCollector", "claim",
    "decode_request", "enabled", "encode_request", "send_paths", "server_name",
]

#: Milliseconds the first instance waits after the last file arrived before it opens what it has.
COLLECT_MS = 450
#: Milliseconds at most between the first file's arrival and the open, however files keep coming.
COLLECT_CAP_MS = 2000
#: Environment variable that turns the handoff off (``1``), like ``--new-window``.
ENV_NEW_WINDOW = "CHECKPOINT_INSPECTOR_NEW_WINDOW"
#: Environment variable naming the server explicitly (a socket path or pipe name); it also enables the
#: handoff on the ``offscreen`` platform (the tests of the handoff set it).
ENV_INSTANCE = "CHECKPOINT_INSPECTOR_INSTANCE"
#: Milliseconds a connection may stay silent before its request is complete (then dropped).
IDLE_MS = 3000
#: Milliseconds from the connection to the request's final newline, at most (then dropped).
REQUEST_MS = 10000
#: Connections served at once, at most (a second instance sends under the start-up lock: one at a time).
MAX_CONNECTIONS = 8
#: Milliseconds an answered connection is given to take its answer and hang up before it is cut.
CLOSE_MS = 1000
#: Answered connections waiting for their client to hang up, at most; a further one is cut at once.
MAX_CLOSING = 32
_DISCARD_CHUNK = 64 * 1024
#: Milliseconds a second instance waits for the connection, and then for the acknowledgement.
CONNECT_MS = 1500
ACK_MS = 5000
#: Milliseconds an instance waits for the start-up lock (held only while deciding who listens).
LOCK_MS = 5000
_HEADLESS_PLATFORMS = ("offscreen", "minimal")


def server_name(environ: dict | None = None) -> str:
    """The local server's name for this user (and, on X11/Wayland, this display).

    Args:
        environ: the environment to read (default ``os.environ``).

    Returns:
        ``environ[ENV_INSTANCE]`` when set; on Windows a name ``checkpoint-inspector-<16 hex>`` that Qt makes a
        named pipe of (the hex a SHA-256 of the user's identity; the server admits this user only); elsewhere
        that name as a socket in :func:`private_dir` (``""`` when there is no such folder: no handoff).
    """
    env = os.environ if environ is None else environ
    if env.get(ENV_INSTANCE):
        return env[ENV_INSTANCE]
    if sys.platform == "win32":
        who = f"{env.get('USERDOMAIN', '')}\\{env.get('USERNAME', '')}"
    else:
        who = f"uid={os.getuid()};display={env.get('WAYLAND_DISPLAY', '')}|{env.get('DISPLAY', '')}"
    tag = hashlib.sha256(("checkpoint-inspector/1/" + who).encode("utf-8", "surrogatepass")).hexdigest()[:16]
    name = f"checkpoint-inspector-{tag}"
    if sys.platform == "win32":
        return name
    folder = private_dir(env)
    return "" if folder is None else os.path.join(folder, name + ".sock")


def _private(path: str) -> bool:
    """True when ``path`` is a real folder (not a link) of this user that nobody else may enter or write."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and st.st_uid == os.getuid() and not st.st_mode & 0o077


def private_dir(environ: dict | None = None) -> str | None:
    """Unix: a folder only this user can enter, for the socket and its lock file (so no other user can listen
    in the window's place and receive the paths: a name in the shared ``/tmp`` could be taken by anyone).

    ``XDG_RUNTIME_DIR`` when it is this user's and mode 0700; else ``<TMPDIR or /tmp>/checkpoint-inspector-<uid>``,
    made with mode 0700 when missing. Returns ``None`` when that folder exists but is another user's, a link,
    or open to others (then this start neither listens nor hands off: it opens its own window).
    """
    env = os.environ if environ is None else environ
    runtime = env.get("XDG_RUNTIME_DIR", "")
    if runtime and _private(runtime):
        return runtime
    folder = os.path.join(env.get("TMPDIR") or "/tmp", f"checkpoint-inspector-{os.getuid()}")
    try:
        os.mkdir(folder, 0o700)
    except FileExistsError:
        pass
    except OSError:
        return None
    return folder if _private(folder) else None


def enabled(platform_name: str, new_window: bool = False, environ: dict | None = None) -> bool:
    """Whether this start takes part in the handoff (listens, or sends its files).

    Args:
        platform_name: ``QGuiApplication.platformName()`` (``xcb``, ``windows``, ``cocoa``, ``offscreen``...).
        new_window: ``--new-window`` was given.
        environ: the environment to read (default ``os.environ``).

    Returns:
        False with ``--new-window`` or ``CHECKPOINT_INSPECTOR_NEW_WINDOW=1``; False on a headless platform
        (``offscreen``, ``minimal``) unless ``CHECKPOINT_INSPECTOR_INSTANCE`` is set; else True.
    """
    env = os.environ if environ is None else environ
    if new_window or env.get(ENV_NEW_WINDOW, "") not in ("", "0"):
        return False
    if platform_name in _HEADLESS_PLATFORMS and not env.get(ENV_INSTANCE):
        return False
    return True


def send_paths(name: str, paths: list[str], connect_ms: int = CONNECT_MS, ack_ms: int = ACK_MS) -> bool:
    """Hand ``paths`` to the instance listening on ``name`` (blocking; used before any window exists).

    Args:
        name: the server's name (:func:`server_name`).
        paths: the files (or folder) to open there.
        connect_ms, ack_ms: how long to wait for the connection and then for the answer, in milliseconds.

    Returns:
        True when the running instance answered ``OK`` (it will open them); False when nobody listens, the
        socket is a dead instance's, or no acknowledgement came (the caller then opens its own window).
    """
    return _handoff(name, paths, connect_ms, ack_ms) == "ok"


def _handoff(name: str, paths: list[str], connect_ms: int, ack_ms: int) -> str:
    """``"absent"`` (no connection), ``"ok"`` (acknowledged) or ``"no-ack"`` (connected, no ``OK``)."""
    sock = QLocalSocket()
    sock.connectToServer(name)
    if not sock.waitForConnected(connect_ms):
        return "absent"
    if sys.platform != "win32" and not _own_socket(sock.fullServerName()):
        sock.abort()  # not this user's window: its paths are not sent there
        return "absent"
    if sys.platform == "win32":  # let the running instance bring its window to the front
        try:
            import ctypes

            ctypes.windll.user32.AllowSetForegroundWindow(-1)  # ASFW_ANY
        except Exception:  # noqa: BLE001 - only the focus is at stake
            pass
    sock.write(encode_request(paths))
    answer = b""
    if sock.waitForBytesWritten(connect_ms):
        while not answer.endswith(b"\n") and len(answer) < 256:
            if not sock.bytesAvailable() and not sock.waitForReadyRead(ack_ms):
                break
            answer += bytes(sock.readAll().data())
    sock.abort()
    return "ok" if answer == b"OK\n" else "no-ack"


class _Connection:
    """One client being served: what it sent so far, and when (``time.monotonic()`` seconds) it connected and
    last sent something."""

    __slots__ = ("data", "since", "last")

    def __init__(self, now: float):
        self.data = bytearray()
        self.since = now
        self.last = now


class InstanceServer(QObject):
    """The first instance's end: accepts requests from later instances and emits their paths.

    Serves at most ``max_connections`` clients at once; a request larger than :data:`MAX_REQUEST` bytes or with
    more than :data:`MAX_PATHS` paths, in another shape than :func:`encode_request`'s, silent for ``idle_ms``
    or incomplete ``deadline_ms`` after connecting is answered ``ERR <reason>``, its buffer freed and its
    connection closed (see the module docstring). Nothing here blocks: every step runs on a signal, and one
    timer (running only while a connection is open, every tenth of the shortest limit) checks the clocks.

    Args:
        name: the server's name (:func:`server_name`).
        parent: the owning QObject.
        idle_ms: milliseconds of silence, before its request is complete, after which a connection is dropped
            (default :data:`IDLE_MS`; dropped at most a tenth later).
        deadline_ms: milliseconds from the connection within which its request must be complete
            (default :data:`REQUEST_MS`). Both are the attributes of the same names, read at every check.
        max_connections: clients served at once (default :data:`MAX_CONNECTIONS`); one more is answered
            ``ERR busy``.

    Signals:
        pathsReceived(list): the paths of one acknowledged request (``str``, exact bytes kept).
    """

    pathsReceived = Signal(object)

    def __init__(self, name: str, parent: QObject | None = None, idle_ms: int = IDLE_MS,
                 deadline_ms: int = REQUEST_MS, max_connections: int = MAX_CONNECTIONS):
        super().__init__(parent)
        self.name = name
        self.idle_ms = idle_ms
        self.deadline_ms = deadline_ms
        self.max_connections = max_connections
        self._server = QLocalServer(self)
        self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)  # this user only
        self._server.newConnection.connect(self._accept)
        self._serving: dict[QLocalSocket, _Connection] = {}
        self._closing: dict[QLocalSocket, float] = {}  # answered: cut at this monotonic time unless gone before
        self._clock = QTimer(self, interval=max(10, min(idle_ms, deadline_ms, CLOSE_MS) // 10))
        self._clock.timeout.connect(self._check_clocks)

    def listen(self) -> bool:
        """Listen on :attr:`name`, first removing a socket file a crashed instance left behind (call only after
        a connection to it failed: see :func:`claim`). Returns True when listening."""
        QLocalServer.removeServer(self.name)
        return self._server.listen(self.name)

    def is_listening(self) -> bool:
        """True while the server accepts connections."""
        return self._server.isListening()

    def full_server_name(self) -> str:
        """The socket's path (Unix) or pipe's name (Windows) Qt listens on."""
        return self._server.fullServerName()

    def close(self) -> None:
        """Stop listening (the socket file is removed)."""
        self._server.close()

    def connection_count(self) -> int:
        """Connections this server holds open: those being served plus those answered and not yet closed."""
        return len(self._serving) + len(self._closing)

    def buffered_bytes(self) -> int:
        """Bytes of requests this server holds: in its buffers, and unread in its sockets' (Qt's) buffers."""
        held = sum(len(c.data) for c in self._serving.values())
        return held + sum(sock.bytesAvailable() for sock in (*self._serving, *self._closing))

    def _accept(self) -> None:
        while self._server.hasPendingConnections():
            sock = self._server.nextPendingConnection()
            # (slots of this object, not closures over it: a socket's connection must not keep the server alive)
            sock.disconnected.connect(self._drop)
            if len(self._serving) >= self.max_connections:
                self._answer(sock, b"ERR busy\n")
                continue
            sock.setReadBufferSize(MAX_REQUEST)  # Qt reads no further ahead than one whole request
            self._serving[sock] = _Connection(time.monotonic())
            sock.readyRead.connect(self._read)
            if not self._clock.isActive():
                self._clock.start()
            if sock.bytesAvailable():
                self._read(sock)

    def _check_clocks(self) -> None:
        now = time.monotonic()
        for sock, conn in list(self._serving.items()):
            if now - conn.since >= self.deadline_ms / 1000:
                self._refuse(sock, "request deadline")
            elif now - conn.last >= self.idle_ms / 1000:
                self._refuse(sock, "idle timeout")
        for sock, cut_at in list(self._closing.items()):
            if now >= cut_at:
                self._cut(sock)
        if not self._serving and not self._closing:
            self._clock.stop()

    @Slot()
    def _drop(self) -> None:
        """The client hung up (or was cut): forget it and free what it had sent."""
        sock = self.sender()
        if sock is None or not shiboken6.isValid(sock):  # (emitted by a socket destroyed with the server)
            return
        self._serving.pop(sock, None)
        self._closing.pop(sock, None)
        sock.deleteLater()

    def _answer(self, sock: QLocalSocket, answer: bytes) -> None:
        """Free the request's buffer, send ``answer`` and close within :data:`CLOSE_MS`: until the client hangs
        up, what it still sends is read and dropped (not kept), so a client still writing receives the answer
        instead of a reset. Beyond :data:`MAX_CLOSING` such connections, the connection is closed at once."""
        if self._serving.pop(sock, None) is not None:
            sock.readyRead.disconnect()
        self._closing[sock] = time.monotonic() + CLOSE_MS / 1000
        sock.write(answer)
        sock.flush()
        if len(self._closing) > MAX_CLOSING:
            self._cut(sock)
            return
        sock.setReadBufferSize(_DISCARD_CHUNK)
        sock.readyRead.connect(self._discard)
        sock.readAll()
        if not self._clock.isActive():
            self._clock.start()

    @Slot()
    def _discard(self) -> None:
        """Read and drop what an answered client still sends."""
        sock = self.sender()
        if sock is not None and shiboken6.isValid(sock) and sock.isOpen():
            sock.readAll()

    @staticmethod
    def _cut(sock: QLocalSocket) -> None:
        sock.disconnectFromServer()  # (after the answer is written; unread bytes are dropped)
        if sock.state() != QLocalSocket.LocalSocketState.UnconnectedState:
            sock.abort()

    def _refuse(self, sock: QLocalSocket, reason: str) -> None:
        if sock in self._serving:
            self._answer(sock, b"ERR " + reason.encode("ascii", "replace") + b"\n")

    @Slot()
    def _read(self, sock: QLocalSocket | None = None) -> None:
        sock = sock if sock is not None else self.sender()
        conn = self._serving.get(sock)
        if conn is None:
            return
        seen = len(conn.data)
        conn.data += bytes(sock.read(MAX_REQUEST - seen).data())  # (never more than one whole request)
        if len(conn.data) == seen:
            return
        conn.last = time.monotonic()
        if not MAGIC.startswith(bytes(conn.data[:len(MAGIC)])):
            self._refuse(sock, "not a checkpoint-inspector request")
            return
        end = conn.data.find(b"\n", seen)
        if end < 0:
            if len(conn.data) >= MAX_REQUEST:  # its newline could only come after MAX_REQUEST bytes
                self._refuse(sock, "request too large")
            return
        request = bytes(conn.data[:end])
        try:
            paths = decode_request(request)
        except ValueError as e:
            self._refuse(sock, str(e))
            return
        self._answer(sock, b"OK\n")
        if paths:
            self.pathsReceived.emit(paths)


class PathCollector(QObject):
    """Gathers files arriving close together (command line, other instances, macOS ``FileOpen`` events)
    and opens them with one call, so a payload and its descriptor open as a pair.

    Args:
        open_paths: what opens them (``MainWindow.open_paths``); called with the paths in arrival order,
            duplicates (same absolute path) left out.
        window: the window to bring to the front when files arrive (or ``None``).
        delay_ms: quiet time after the last arrival before opening, in milliseconds.
        cap_ms: longest wait after the first arrival, in milliseconds.
        parent: the owning QObject.

    Signals:
        flushed(list): the paths just handed to ``open_paths``.
    """

    flushed = Signal(object)

    def __init__(self, open_paths, window=None, delay_ms: int = COLLECT_MS, cap_ms: int = COLLECT_CAP_MS,
                 parent: QObject | None = None):
        super().__init__(parent if parent is not None else window)
        self._open = open_paths
        self._window = window
        self._pending: list[str] = []
        self._keys: set[str] = set()
        self._quiet = QTimer(self, singleShot=True, interval=delay_ms)
        self._cap = QTimer(self, singleShot=True, interval=max(cap_ms, delay_ms))
        self._quiet.timeout.connect(self.flush)
        self._cap.timeout.connect(self.flush)

    def pending(self) -> list[str]:
        """The paths waiting to be opened (a copy)."""
        return list(self._pending)

    def add(self, paths: list[str]) -> None:
        """Queue ``paths``; the open happens :data:`COLLECT_MS` after the last arrival (at most
        :data:`COLLECT_CAP_MS` after the first)."""
        for p in paths:
            key = os.path.normcase(os.path.abspath(p))
            if key not in self._keys:
                self._keys.add(key)
                self._pending.append(p)
        if not self._pending:
            return
        if not self._cap.isActive():
            self._cap.start()
        self._quiet.start()
        self._raise_window()

    def flush(self) -> None:
        """Open what has arrived now (what the timers do)."""
        self._quiet.stop()
        self._cap.stop()
        paths, self._pending, self._keys = self._pending, [], set()
        if paths:
            self._open(paths)
            self.flushed.emit(paths)

    def _raise_window(self) -> None:
        w = self._window
        if w is None:
            return
        if w.isMinimized():
            w.showNormal()
        w.raise_()
        w.activateWindow()


@dataclass
class Claim:
    """What :func:`claim` decided.

    Attributes:
        handed_off: the files went to the running instance: this process exits 0 without a window.
        server: this instance now listens (the first one), else ``None``.
        note: why neither happened when so (``""`` otherwise), for the log.
    """

    handed_off: bool
    server: InstanceServer | None
    note: str = ""


def _own_socket(path: str) -> bool:
    """True when the Unix socket ``path`` was made by this user (the listener is this user's instance)."""
    try:
        return os.stat(path).st_uid == os.getuid()
    except OSError:
        return False


def _lock_path(name: str) -> str:
    if os.path.isabs(name):
        return name + ".lock"
    return os.path.join(QDir.tempPath(), name + ".lock")


def claim(name: str, paths: list[str], lock_ms: int = LOCK_MS) -> Claim:
    """Hand ``paths`` to the running instance, or become the one that listens.

    Under a lock file beside the socket (held only while deciding, so two instances started at once by
    Explorer cannot both listen: Windows lets two servers share a pipe name), connect to ``name``: if an
    instance answers and there are ``paths``, send them. Otherwise remove what a crashed instance left
    (``QLocalServer.removeServer``) and listen.

    Args:
        name: the server's name (:func:`server_name`).
        paths: the files this start was given (``[]``: never handed off; a start without files opens its
            own window, and does not listen when another instance already does).
        lock_ms: how long to wait for the lock, in milliseconds.

    Returns:
        a :class:`Claim`. Never raises for a socket problem: the window then opens on its own.
    """
    if not name:
        return Claim(False, None, "no private folder for the socket (see private_dir)")
    lock = QLockFile(_lock_path(name))
    if not lock.tryLock(lock_ms):
        return Claim(False, None, f"lock not obtained ({lock.error().name})")
    try:
        if paths:
            status = _handoff(name, paths, CONNECT_MS, ACK_MS)
            if status == "ok":
                return Claim(True, None)
            if status == "no-ack":
                return Claim(False, None, "another instance listens but did not acknowledge the files")
        else:
            probe = QLocalSocket()
            probe.connectToServer(name)
            alive = probe.waitForConnected(CONNECT_MS)
            probe.abort()
            if alive:
                return Claim(False, None, "another instance listens")
        server = InstanceServer(name)
        if server.listen():
            return Claim(False, server)
        note = f"cannot listen ({server._server.errorString()})"
        server.deleteLater()
        return Claim(False, None, note)
    finally:
        lock.unlock()
