"""One window per user for files opened from outside (issue 27, item 3).

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
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import stat
import sys
from dataclasses import dataclass

from PySide6.QtCore import QDir, QLockFile, QObject, QTimer, Signal
from PySide6.QtNetwork import QLocalServer, QLocalSocket

__all__ = [
    "COLLECT_MS", "COLLECT_CAP_MS", "ENV_INSTANCE", "ENV_NEW_WINDOW", "MAGIC", "Claim", "InstanceServer",
    "PathCollector", "claim", "decode_request", "enabled", "encode_request", "send_paths", "server_name",
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
#: First bytes of every request (protocol version 1).
MAGIC = b"CKPTINSP1 "
#: Largest request accepted, in bytes (a few thousand paths).
MAX_REQUEST = 1 << 20
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


def encode_request(paths: list[str]) -> bytes:
    """The request carrying ``paths`` (made absolute), as sent on the socket.

    Args:
        paths: file or folder names (``str``; undecodable bytes as surrogate escapes, as ``sys.argv`` has them).

    Returns:
        ``MAGIC + JSON + b"\\n"``, each path ``base64(os.fsencode(abspath))``.
    """
    items = [base64.b64encode(os.fsencode(os.path.abspath(p))).decode("ascii") for p in paths]
    return MAGIC + json.dumps({"paths": items}).encode("ascii") + b"\n"


def decode_request(data: bytes) -> list[str]:
    """The paths of a request made by :func:`encode_request`.

    Args:
        data: the request's bytes, with or without the final newline.

    Returns:
        the paths, as ``os.fsdecode`` gives them (the exact bytes of every name survive).

    Raises:
        ValueError: not a version-1 request, not JSON, or a path that is not base64 or is empty.
    """
    if not data.startswith(MAGIC):
        raise ValueError("not a checkpoint-inspector request")
    try:
        doc = json.loads(data[len(MAGIC):].rstrip(b"\n"))
        items = doc["paths"]
        if not isinstance(items, list):
            raise TypeError("paths is not a list")
        paths = [os.fsdecode(base64.b64decode(item.encode("ascii"), validate=True)) for item in items]
    except (ValueError, KeyError, TypeError, AttributeError, UnicodeError, binascii.Error) as e:
        raise ValueError(f"malformed request ({type(e).__name__})") from None
    if any(not p or "\0" in p for p in paths):
        raise ValueError("malformed request (empty path or NUL)")
    return paths


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


class InstanceServer(QObject):
    """The first instance's end: accepts requests from later instances and emits their paths.

    Args:
        name: the server's name (:func:`server_name`).
        parent: the owning QObject.

    Signals:
        pathsReceived(list): the paths of one acknowledged request (``str``, exact bytes kept).
    """

    pathsReceived = Signal(object)

    def __init__(self, name: str, parent: QObject | None = None):
        super().__init__(parent)
        self.name = name
        self._server = QLocalServer(self)
        self._server.setSocketOptions(QLocalServer.SocketOption.UserAccessOption)  # this user only
        self._server.newConnection.connect(self._accept)
        self._buffers: dict[QLocalSocket, bytes] = {}

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

    def _accept(self) -> None:
        while self._server.hasPendingConnections():
            sock = self._server.nextPendingConnection()
            self._buffers[sock] = b""
            sock.readyRead.connect(lambda s=sock: self._read(s))
            sock.disconnected.connect(lambda s=sock: self._drop(s))
            if sock.bytesAvailable():
                self._read(sock)

    def _drop(self, sock: QLocalSocket) -> None:
        self._buffers.pop(sock, None)
        sock.deleteLater()

    def _read(self, sock: QLocalSocket) -> None:
        if sock not in self._buffers:
            return
        data = self._buffers[sock] + bytes(sock.readAll().data())
        self._buffers[sock] = data
        if b"\n" not in data and len(data) <= MAX_REQUEST:
            return
        self._buffers.pop(sock, None)
        try:
            if len(data) > MAX_REQUEST:
                raise ValueError("request too large")
            paths = decode_request(data.split(b"\n", 1)[0])
        except ValueError as e:
            sock.write(b"ERR " + str(e).encode("ascii", "replace") + b"\n")
            sock.flush()
            sock.disconnectFromServer()
            return
        sock.write(b"OK\n")
        sock.flush()
        sock.disconnectFromServer()
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
