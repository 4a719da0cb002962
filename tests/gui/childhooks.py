"""Verifier jobs for tests: :func:`inspector.session.workers.child_analyse` with the payload file changed at a
chosen moment, in the verifier's own process, so that the order of its read and the change is certain.

Each hook acts once: only while the file ``<payload>.hook`` exists, which it removes as it acts (the open
that reads the file again after the change runs the same job and must find the file as it is now).
:func:`wait_for_hook` lets the window's thread wait for that moment.
"""

import os
import time

from inspector.session import workers


def _once(path: str) -> bool:
    try:
        os.unlink(path + ".hook")
    except FileNotFoundError:
        return False
    return True


def arm(path) -> None:
    """Make the next hooked verifier of ``path`` act."""
    open(f"{path}.hook", "wb").close()


def wait_for_hook(path, timeout: float = 30.0) -> None:
    """Wait (up to ``timeout`` seconds) until the hook of ``path`` has acted."""
    end = time.monotonic() + timeout
    while os.path.exists(f"{path}.hook") and time.monotonic() < end:
        time.sleep(0.01)


class _Conn:
    """The verifier's pipe, running ``act`` when the verifier asks for the digest (it has read the file)."""

    def __init__(self, conn, act):
        self._conn, self._act = conn, act

    def recv(self):
        self._act()
        return self._conn.recv()

    def send(self, msg):
        self._conn.send(msg)


def truncate_after_reading(conn, path, *args):
    """The file truncated in place to half its bytes once the verifier has read it."""
    def act():
        if _once(path):
            os.truncate(path, os.path.getsize(path) // 2)
    return workers.child_analyse(_Conn(conn, act), path, *args)


def replace_after_reading(conn, path, *args):
    """The file replaced (a new file renamed over it: another inode) by one of the same length with its
    last ``}`` made a space, once the verifier has read it."""
    def act():
        if _once(path):
            with open(path, "rb") as fh:
                data = fh.read()
            with open(f"{path}.new", "wb") as fh:
                fh.write(data[:data.rindex(b"}")] + b" " + data[data.rindex(b"}") + 1:])
            os.replace(f"{path}.new", path)
    return workers.child_analyse(_Conn(conn, act), path, *args)


def delete_after_reading(conn, path, *args):
    """The file deleted once the verifier has read it."""
    def act():
        if _once(path):
            os.unlink(path)
    return workers.child_analyse(_Conn(conn, act), path, *args)


def grow_before_reading(conn, path, *args):
    """The file grown by 100 spaces before the verifier reads it."""
    if _once(path):
        with open(path, "ab") as fh:
            fh.write(b" " * 100)
    return workers.child_analyse(conn, path, *args)


class _Replay:
    """The verifier's pipe, giving ``msg`` (already received) first."""

    def __init__(self, conn, msg):
        self._conn, self._msgs = conn, [msg]

    def recv(self):
        return self._msgs.pop() if self._msgs else self._conn.recv()

    def send(self, msg):
        self._conn.send(msg)


def delete_before_reading(conn, path, *args):
    """The file deleted before the verifier reads it, once the window has hashed it (and sent the digest:
    its bytes stage is on its way to the screen)."""
    if not _once(path):
        return workers.child_analyse(conn, path, *args)
    msg = conn.recv()
    os.unlink(path)
    return workers.child_analyse(_Replay(conn, msg), path, *args)


def read_once_emptied(conn, path, *args):
    """The verifier reads the file only once something has emptied it (waits up to 30 s)."""
    if os.path.exists(f"{path}.hook"):
        end = time.monotonic() + 30
        while os.path.getsize(path) and time.monotonic() < end:
            time.sleep(0.01)
        _once(path)
    return workers.child_analyse(conn, path, *args)


def grow_before_every_read(conn, path, *args):
    """The file grown by one space before each verifier reads it (a file still being written)."""
    with open(path, "ab") as fh:
        fh.write(b" ")
    return workers.child_analyse(conn, path, *args)


def truncate_before_indexing(conn, path, *args):
    """The indexer (:func:`inspector.session.workers.child_index`) of a payload the verifier's fast path did not
    read, with the file truncated in place to half its bytes before it reads it."""
    if _once(path):
        os.truncate(path, os.path.getsize(path) // 2)
    return workers.child_index(conn, path, *args)


def killed(conn, path, *args):
    """A verifier killed by the system (SIGKILL: what the out-of-memory killer sends) while it verifies."""
    import signal

    os.kill(os.getpid(), signal.SIGKILL)


def out_of_memory(conn, path, *args):
    """A verifier that runs out of memory."""
    raise MemoryError


def replace_before_indexing(conn, path, *args):
    """The indexer, with the file replaced by ``<path>.next`` (renamed over it) before it reads it."""
    if _once(path):
        os.replace(f"{path}.next", path)
    return workers.child_index(conn, path, *args)


def replace_before_comparing(conn, path_a, path_b, role):
    """The comparing worker (``compare_engine._child_compare``), with the first file replaced by
    ``<path_a>.next`` before it reads it."""
    from inspector.session import compare_loading as compare_engine

    if _once(path_a):
        os.replace(f"{path_a}.next", path_a)
    return compare_engine._child_compare(conn, path_a, path_b, role)


def replace_before_aligning(conn, path, kind):
    """The canonical diff's worker (``compare_engine._child_canonical``), with the file replaced by
    ``<path>.next`` before it reads it."""
    from inspector.session import compare_loading as compare_engine

    if _once(path):
        os.replace(f"{path}.next", path)
    return compare_engine._child_canonical(conn, path, kind)


class _AfterReport:
    """The verifier's pipe, running ``act`` once the verifier has sent its report ahead of its views (and a
    pretty-printed payload's index)."""

    def __init__(self, conn, act):
        self._conn, self._act = conn, act

    def recv(self):
        return self._conn.recv()

    def send(self, msg):
        self._conn.send(msg)
        if isinstance(msg, workers.ReportAhead):
            self._act()


def hold_after_report(conn, path, *args):
    """The verifier, what follows its report (its views, a pretty payload's index) held for as long as the hook
    of ``path`` is armed (until the test removes it: :func:`release`): the window shows the verdicts alone."""
    return workers.child_analyse(_AfterReport(conn, lambda: wait_for_hook(path)), path, *args)


def _die():
    os._exit(9)


def _out_of_memory():
    raise MemoryError


def die_after_report(conn, path, *args):
    """The verifier killed (exit code 9, as by the system for lack of memory) right after its report."""
    return workers.child_analyse(_AfterReport(conn, _die), path, *args)


def oom_after_report(conn, path, *args):
    """The verifier out of memory (``MemoryError``) right after its report."""
    return workers.child_analyse(_AfterReport(conn, _out_of_memory), path, *args)


def index_when_released(conn, path, big):
    """The indexing child (a payload the verifier gave no index: CRLF line ends), held until the test removes the
    hook (:func:`release`) before it reads the file."""
    wait_for_hook(path)
    return workers.child_index(conn, path, big)


def release(path) -> None:
    """Let a child held by :func:`hold_after_report` or :func:`index_when_released` go on."""
    _once(str(path))
