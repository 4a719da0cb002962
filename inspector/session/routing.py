"""Where the paths of an open go (a drop, the command line, a hand-off from another instance, Open
Recent): a folder scan, the comparison view, a load, or nowhere (with the reason). No Qt.

Deciding needs the file system (is it a folder? are both files payloads?), and a file-system call can
take any time (a network share) or, for a FIFO, block for good: :func:`route_paths` runs on a worker
thread, never on the GUI thread, and never opens anything but a regular file
(:mod:`inspector.checkpoint.safeopen`).
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import os
import stat
import tempfile
import urllib.parse
from dataclasses import dataclass, field

from inspector.checkpoint.artifact import display_path
from inspector.checkpoint.safeopen import what_it_is_not
from inspector.session.compare_loading import same_kind
from inspector.session.engine import ensure_worker
from inspector.session.sources import SourceError, is_url, read_location, shown_location
from inspector.session.writing import write_all

__all__ = ["Route", "route_paths", "fetch_url", "url_sibling", "copy_name", "MIX", "too_many", "URL_SIBLING_TRIES"]

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
        notes: what the window says beside the load (a URL read into a local copy: where the copy is).
    """

    action: str
    paths: list[str] = field(default_factory=list)
    left_out: list[str] = field(default_factory=list)
    message: str | None = None
    notes: list[str] = field(default_factory=list)


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
    notes = []
    if any(is_url(p) for p in paths):  # File ▸ Open URL…, a URL on the command line or from another instance
        fetched = []
        for p in paths:
            if not is_url(p):
                fetched.append(p)
                continue
            try:
                local = fetch_url(p)
            except SourceError as e:
                return Route("refuse", message=e.reason)
            fetched.append(local)
            notes.append(f"{shown_location(p)} was read into a copy on this machine: {display_path(local)}")
        if len(paths) == 1 and is_url(paths[0]):  # a payload alone: the descriptor beside it on the server too
            sibling = url_sibling(paths[0], fetched[0])
            if sibling is not None:
                try:
                    fetched.append(fetch_url(sibling))
                    notes.append(f"the descriptor beside it, {shown_location(sibling)}, was read too: "
                                 f"{display_path(fetched[-1])}")
                except SourceError:
                    pass  # (the payload alone opens; the load says no descriptor was given)
        paths = fetched
    return dataclasses.replace(_route_local(paths), notes=notes)


#: How many files beside a payload on a server are read to find its descriptor (those with its name stem).
URL_SIBLING_TRIES = 8


def url_sibling(url: str, local: str) -> str | None:
    """The URL of the descriptor beside the payload at ``url`` on its server (the same folder or prefix, the
    same query), as a file opened alone pairs with the descriptor beside it (:func:`.pairing.find_sibling`):
    among the files of the same name stem (at most :data:`URL_SIBLING_TRIES`, each read up to 1 MiB), the one
    whose ``content_digest`` is the payload's SHA-256, else the first descriptor of that stem; ``None`` when
    ``local`` (the payload's copy) is not a payload, the folder has more than ``SIBLING_SCAN_LIMIT`` files or
    cannot be listed, or nothing matches (worker thread only: network calls)."""
    from inspector.checkpoint.pairing import SIBLING_SCAN_LIMIT, name_stem, stated_binding
    from inspector.checkpoint.roles import role_of_bytes, role_of_path
    from inspector.session.sources import FsspecSource

    try:
        found = role_of_path(local)  # (read once: its role and its digest)
    except (OSError, ValueError):
        return None
    if found.role != "payload":
        return None
    parts = urllib.parse.urlsplit(url)
    folder, _, name = parts.path.rpartition("/")
    prefix = urllib.parse.urlunsplit((parts.scheme, parts.netloc, folder + "/", parts.query, ""))
    try:
        src = FsspecSource(prefix)
        entries = src.entries()
    except SourceError:
        return None
    if len(entries) > SIBLING_SCAN_LIMIT:
        return None
    stem = name_stem(urllib.parse.unquote(name))
    digest = found.sha256
    named = None
    tries = [e for e in entries if e.name != urllib.parse.unquote(name) and name_stem(e.name) == stem
             and (e.size is None or e.size <= 1 << 20)][:URL_SIBLING_TRIES]
    for e in tries:
        try:
            data = src.read(e, 1 << 20)
        except SourceError:
            continue
        if role_of_bytes(data).role != "descriptor":
            continue
        if digest is not None and stated_binding(data)[1] == digest:  # (no digest: a copy too large to hash)
            return e.location
        named = named or e.location
    return named


def copy_name(shown: str) -> str:
    """The file name of a URL's local copy: the last segment of ``shown`` (a URL as :func:`.sources.shown_location`
    gives it, without query or credentials), or ``download.json`` when that is empty, ``.``, ``..`` or holds a
    backslash (never a name that leaves the copy's folder)."""
    path = urllib.parse.urlsplit(shown).path if is_url(shown) else shown
    name = path.rstrip("/").rsplit("/", 1)[-1]
    return "download.json" if name in ("", ".", "..") or "\\" in name or "\0" in name else name


def fetch_url(url: str, folder: str | None = None) -> str:
    """Read the file at ``url`` through the source seam (:func:`.sources.read_location`: fsspec, bounded by
    the 256 MiB ceiling plus one byte, credentials from the filesystem's usual places) into a new private
    file and return its path (worker thread only).

    The copy is ``<folder>/<first 16 hex of SHA-256 of the URL as shown>/<the URL's last name>``, made with
    mode 0600 in a folder of mode 0700 (``folder``: by default ``checkpoint-inspector-urls`` in the system's
    temporary folder); a copy already there is replaced only by a complete new one (written to a temporary
    name, then renamed). The URL's query and credentials are never part of the name.

    Raises:
        SourceError: the URL cannot be reached or read (the reason names it without credentials), or the
            copy cannot be written.
    """
    data, _token = read_location(url)
    shown = shown_location(url)
    name = copy_name(shown)
    base = folder or os.path.join(tempfile.gettempdir(), f"checkpoint-inspector-urls-{os.getuid()}"
                                  if hasattr(os, "getuid") else "checkpoint-inspector-urls")
    where = os.path.join(base, hashlib.sha256(shown.encode("utf-8", "surrogatepass")).hexdigest()[:16])
    try:
        os.makedirs(os.path.dirname(base), exist_ok=True)  # (the system's temporary folder: there already)
        for d in (base, where):  # each ours alone: a folder another user made (or a link) is refused
            with contextlib.suppress(FileExistsError):
                os.mkdir(d, 0o700)
            st = os.lstat(d)
            if not stat.S_ISDIR(st.st_mode) or (hasattr(os, "getuid") and st.st_uid != os.getuid()) \
                    or st.st_mode & 0o077:
                raise SourceError(f"{shown}: read, but {display_path(d)} is not a private folder of this user; "
                                  "no copy was written")
        fd, tmp = tempfile.mkstemp(prefix=".part-", dir=where)
        try:
            try:
                write_all(fd, data)
            finally:
                os.close(fd)
            os.replace(tmp, os.path.join(where, name))
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise
    except OSError as e:
        raise SourceError(f"{shown}: read, but no copy could be written on this machine ({e.strerror or e})") from None
    return os.path.join(where, name)


def _route_local(paths: list[str]) -> Route:
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
