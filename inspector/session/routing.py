"""Where the paths of an open go (a drop, the command line, a hand-off from another instance, Open
Recent): a folder scan, the comparison view, a load, or nowhere (with the reason). No Qt.

Deciding needs the file system (is it a folder? are both files payloads?), and a file-system call can
take any time (a network share) or, for a FIFO, block for good: :func:`route_paths` runs on a worker
thread, never on the GUI thread, and never opens anything but a regular file
(:mod:`inspector.checkpoint.safeopen`).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field

from inspector.checkpoint.artifact import display_path
from inspector.checkpoint.safeopen import what_it_is_not
from inspector.session.compare_loading import same_kind
from inspector.session.engine import ensure_worker

__all__ = ["Route", "route_paths", "MIX", "too_many"]

#: The refusal of a folder given together with anything else.
MIX = "Drop either one folder or one or two files, not a mix."


def too_many(n: int) -> str:
    """The refusal of ``n`` (more than two) files given together."""
    return f"{n} files were given; open one payload and its descriptor (or drop the folder that holds them)."


@dataclass(frozen=True)
class Route:
    """What to do with the paths of one open.

    Attributes:
        action: ``"folder"`` (scan ``paths[0]``), ``"compare"`` (two payloads or two descriptors: the
            comparison view), ``"load"`` (open ``paths`` as one checkpoint) or ``"refuse"`` (nothing opens:
            ``message`` says why).
        paths: the paths to act on, in the order given (those left out are in ``left_out``).
        left_out: one sentence per path given that is not a file and was left out while the rest opens,
            e.g. ``"/tmp/p.json: is a FIFO (named pipe), not a file"`` (path shown by ``display_path``).
        message: the refusal (``action == "refuse"``), else ``None``.
    """

    action: str
    paths: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)
    message: str | None = None


def _kind(path: str) -> tuple[str, str | None]:
    """``("folder", None)``, ``("file", None)`` (a regular file, or a path the load will say is missing or
    unreadable) or ``("not a file", sentence)`` for a FIFO, device or socket. ``os.stat`` only: it never
    opens the path (a FIFO's ``open`` waits for a writer)."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return "file", None  # the load says why it cannot be read (no such file, permission denied...)
    if stat.S_ISDIR(st.st_mode):
        return "folder", None
    what = what_it_is_not(st.st_mode)
    if what is not None:
        return "not a file", f"{display_path(path)}: {what[1]}"
    return "file", None


def route_paths(paths: list[str]) -> Route:
    """Decide where ``paths`` go (worker thread only).

    One folder is scanned; a folder with anything else is refused (:data:`MIX`). A path that names a FIFO,
    a device or a socket is left out with its sentence (``left_out``) and the rest opens; when nothing is
    left, the open is refused with those sentences (joined by ``"; "``). More than two files are refused
    (:func:`too_many`); two payloads (or two descriptors) whose content decides go to the comparison view
    (:func:`.compare_loading.same_kind`); anything else is loaded (and the load says what is wrong with a
    file that cannot be read).

    Args:
        paths: the paths as given (``str``; undecodable bytes as surrogate escapes).

    Returns:
        a :class:`Route`.

    Raises:
        RuntimeError: called on the GUI thread.
    """
    ensure_worker()
    paths = [str(p) for p in paths]
    kinds = [_kind(p) for p in paths]
    if len(paths) == 1 and kinds[0][0] == "folder":
        return Route("folder", paths)
    if any(k == "folder" for k, _ in kinds):
        return Route("refuse", message=MIX)
    files = [p for p, (k, _) in zip(paths, kinds) if k == "file"]
    left_out = [why for k, why in kinds if k == "not a file"]
    if not files:
        return Route("refuse", left_out=left_out, message="; ".join(left_out) if left_out else "no file was given")
    if len(files) > 2:
        return Route("refuse", left_out=left_out, message=too_many(len(files)))
    if len(files) == 2 and same_kind(files) is not None:
        return Route("compare", files, left_out)
    return Route("load", files, left_out)
