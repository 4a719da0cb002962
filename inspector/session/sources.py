"""Where checkpoints live: one seam for a local folder, any fsspec URL and a JSON Lines file of SDK exports.

A :class:`Source` lists :class:`Entry` records (location, name, size, change token), reads an entry's
head or its whole bytes (bounded by the 256 MiB v1 content ceiling, FORMAT.md 6.2 P-BOUND: one byte
more is read so a longer file is seen, never read whole) and says an entry's current change token, so a
caller can tell that a file changed. The engine is given bytes, never a path or a URL.

Three kinds, chosen by :func:`open_source` from the location:

* :class:`LocalFolder`: a folder on this machine (recursive as an option); files are read through
  :mod:`inspector.checkpoint.safeopen` (never blocking on a FIFO or a device).
* :class:`FsspecSource`: any fsspec URL prefix: ``file://``, ``http(s)://``, ``s3://``, ``gs://``, ``az://``,
  ``memory://``. fsspec and its filesystems (s3fs, gcsfs, adlfs, aiohttp for HTTP) are optional extras
  (``pip install 'checkpoint-inspector[sources]'``); credentials come from where each filesystem reads
  them (environment variables, its config files; for S3 also ``AWS_ENDPOINT_URL``, and fsspec's
  ``FSSPEC_S3_*`` variables). Nothing here logs or prints a credential: a URL is shown without its
  user, password and query (:func:`shown_location`).
* :class:`ExportLines`: a JSON Lines file (local or a URL) in which each line is one SDK export wrapper
  ``{"descriptor": ..., "contentBase64": ...}`` (FORMAT.md 8), as a host's sink appends them; each line
  is an entry named ``FILE:LINE``.

Qt-free. Network calls block: the window calls these on a worker (``inspector.gui.jobs``), the CLI in
its own thread of control.
"""

from __future__ import annotations

import copy
import hashlib
import os
import re
import urllib.parse
from dataclasses import dataclass

from inspector.checkpoint.constants import MAX_CONTENT_BYTES
from inspector.checkpoint.diagnostic import InspectorError
from inspector.checkpoint.safeopen import NotAFile, read_regular

__all__ = ["Entry", "Source", "SourceError", "LocalFolder", "FsspecSource", "ExportLines", "open_source", "is_url",
           "read_location", "read_input_at", "shown_location", "EXPORT_LINES_SUFFIXES", "network_timeout",
           "TIMEOUT_VARIABLE"]

#: A location with one of these suffixes is a JSON Lines file of SDK export wrappers.
EXPORT_LINES_SUFFIXES = (".jsonl", ".ndjson")
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]+://")


class SourceError(InspectorError):
    """A source or one of its entries cannot be listed or read. ``reason`` is a sentence for the user
    that names the location as :func:`shown_location` shows it (no credential)."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


@dataclass(frozen=True)
class Entry:
    """One file (or one line of an :class:`ExportLines` file) of a source.

    Attributes:
        location: what :meth:`Source.read` reads: a path, a URL, or ``FILE:LINE`` (1-based) for a line.
        name: the file's base name (``FILE:LINE`` for a line), as shown to the user.
        size: its size in bytes, or ``None`` when the source does not say.
        token: the change token when it was listed (size and modification time, an ETag...): a later
            :meth:`Source.token` that differs means the file changed.
    """

    location: str
    name: str
    size: int | None
    token: str


def is_url(location: str) -> bool:
    """True when ``location`` is a URL (``scheme://...``) rather than a path of this machine; a Windows
    drive letter (``C:\\\\x``) is a path."""
    return bool(_URL.match(location))


def shown_location(location: str) -> str:
    """``location`` as it may be shown or logged: a URL without its user, password, query and fragment
    (where credentials and signatures live); a path as it is."""
    if not is_url(location):
        return location
    parts = urllib.parse.urlsplit(location)
    host = parts.hostname or ""
    if parts.port:
        host += f":{parts.port}"
    return urllib.parse.urlunsplit((parts.scheme, host, parts.path, "", ""))


class Source:
    """The seam (see the module's text). Subclasses implement :meth:`entries`, :meth:`read`,
    :meth:`head` and :meth:`token`. ``location`` is what the source was opened on."""

    location: str = ""
    #: True when each entry's ``location`` is a path of this machine (read with the safe reader; a large
    #: payload may be verified in a worker process that opens it itself)
    local_paths: bool = False

    def entries(self) -> list[Entry]:
        """Every entry, sorted by location. Raises :class:`SourceError` when the source cannot be listed."""
        raise NotImplementedError

    def parts(self) -> tuple[list[Entry], list[Source]] | None:
        """One level of a recursive listing, for a listing done in parallel (the audit): ``(the entries directly
        in it, a source listing each folder below it recursively)``, whose entries together are :meth:`entries`'
        (unsorted); ``None`` when this source is listed whole (not recursive, or no folders: a file of lines, a
        web server's pages). Raises :class:`SourceError` as :meth:`entries` does."""
        return None

    def read(self, entry: Entry, limit: int = MAX_CONTENT_BYTES) -> bytes:
        """The entry's bytes, at most ``limit`` plus one (so ``len(result) > limit`` says it is larger).
        Raises :class:`SourceError`."""
        raise NotImplementedError

    def head(self, entry: Entry, n: int) -> bytes:
        """The entry's first ``n`` bytes (fewer when it is shorter). Raises :class:`SourceError`."""
        return self.read(entry, n)[:n]

    def token(self, entry: Entry) -> str | None:
        """The entry's change token now (``None`` when it is gone). Raises :class:`SourceError` when the
        source cannot be reached."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}({shown_location(self.location)!r})"


# ---------------------------------------------------------------------------------------- local
class LocalFolder(Source):
    """A folder of this machine.

    Args:
        folder: its path. recursive: list files in every folder below it too (links to folders are not
            followed, so a loop of links cannot trap the walk).
    """

    local_paths = True
    #: List what is neither a regular file nor a folder too (a FIFO, a device, a socket, a dangling link), with
    #: ``size`` ``None``: never opened (the safe reader refuses it without blocking), but named (the audit's
    #: record says why it was not read). Off for ``scan`` and the window.
    list_special = False

    def __init__(self, folder: str, *, recursive: bool = False):
        self.location = folder
        self.recursive = recursive

    def _level(self, folder: str) -> tuple[list[Entry], list[str]]:
        """``(the entries directly in folder, the folders directly in it)``."""
        out, folders = [], []
        try:
            with os.scandir(folder) as it:
                items = list(it)
        except OSError as e:
            raise SourceError(f"{folder}: cannot list ({e.strerror or e})") from None
        for d in items:
            try:
                if d.is_dir(follow_symlinks=False):
                    folders.append(d.path)
                    continue
                if not d.is_file():  # FIFOs, devices, sockets, dangling links: never opened
                    if self.list_special:
                        out.append(Entry(d.path, d.name, None, _stat_token(d.stat(follow_symlinks=False))))
                    continue
                st = d.stat()
            except OSError:
                continue
            out.append(Entry(d.path, d.name, st.st_size, _stat_token(st)))
        return out, folders

    def entries(self) -> list[Entry]:
        out, stack = [], [self.location]
        while stack:
            got, folders = self._level(stack.pop())
            out += got
            if self.recursive:
                stack += folders
        return sorted(out, key=lambda e: e.location)

    def parts(self) -> tuple[list[Entry], list[Source]] | None:
        if not self.recursive:
            return None
        got, folders = self._level(self.location)
        subs = []
        for path in folders:
            sub = copy.copy(self)
            sub.location = path
            subs.append(sub)
        return got, subs

    def read(self, entry: Entry, limit: int = MAX_CONTENT_BYTES) -> bytes:
        try:
            return read_regular(entry.location, limit)[0]
        except NotAFile as e:
            raise SourceError(f"{entry.location}: {e.reason}") from None
        except OSError as e:
            raise SourceError(f"{entry.location}: cannot read ({e.strerror or e})") from None

    def token(self, entry: Entry) -> str | None:
        try:
            return _stat_token(os.stat(entry.location))
        except FileNotFoundError:
            return None
        except OSError as e:
            raise SourceError(f"{entry.location}: cannot look at it ({e.strerror or e})") from None


def _stat_token(st: os.stat_result) -> str:
    return f"{st.st_size}:{st.st_mtime_ns}:{st.st_ino}"


# --------------------------------------------------------------------------------------- fsspec
def _fsspec():
    try:
        import fsspec
    except ImportError:
        raise SourceError("reading a URL needs fsspec, an optional extra: pip install 'checkpoint-inspector[sources]'"
                          ) from None
    return fsspec


#: The environment variable that sets :func:`network_timeout` (seconds).
TIMEOUT_VARIABLE = "CHECKPOINT_INSPECTOR_NETWORK_TIMEOUT"


def network_timeout() -> float:
    """Seconds a network filesystem may take to connect, or to send the next piece of an answer, before the
    try is given up (S3 makes two tries: :func:`_bound_retries`) and then the listing or read with a :class:`SourceError` ("no answer after N s"): 30, or what
    ``$CHECKPOINT_INSPECTOR_NETWORK_TIMEOUT`` says (a number of seconds, at least 0.1; anything else: 30)."""
    try:
        value = float(os.environ.get(TIMEOUT_VARIABLE, "30"))
    except ValueError:
        return 30.0
    return value if 0.1 <= value < 1e6 else 30.0


def _timeout_options(url: str) -> dict:
    """The storage options that bound each network call of ``url``'s filesystem by :func:`network_timeout`
    (aiohttp's defaults wait 300 s for an answer, botocore retries on top): HTTP's client timeouts, S3's
    connect and read timeouts (s3fs makes two attempts). Other filesystems keep their own."""
    protocol = url.split("://", 1)[0].lower()
    t = network_timeout()
    if protocol in ("http", "https"):
        try:
            import aiohttp
        except ImportError:
            return {}
        return {"client_kwargs": {"timeout": aiohttp.ClientTimeout(total=None, connect=t, sock_connect=t,
                                                                   sock_read=t)}}
    if protocol in ("s3", "s3a"):
        return {"config_kwargs": {"connect_timeout": t, "read_timeout": t,
                                  "retries": {"total_max_attempts": 1, "mode": "standard"}}}
    return {}


def _failure(e: BaseException) -> str:
    """Why a network call failed, for a :class:`SourceError`: the exception's type only (its text may quote a
    URL with its credentials), and "no answer after N s" when it timed out."""
    name = type(e).__name__
    if isinstance(e, TimeoutError) or "Timeout" in name:
        return f"no answer after {network_timeout():g} s: {name}"
    return name


def _bound_retries(fs) -> None:
    """s3fs tries a call 5 times with back-off, each try a botocore call of its own: two tries, so that one
    answer that never comes costs at most twice :func:`network_timeout` (an attribute of the instance, which
    pickling to a worker process does not keep: :class:`FsspecSource` sets it again there)."""
    if "s3" in fs_protocols(fs) and getattr(fs, "retries", 0) > 2:
        fs.retries = 2


def _url_to_fs(url: str):
    fsspec = _fsspec()
    try:
        fs, path = fsspec.core.url_to_fs(url, **_timeout_options(url))
        _bound_retries(fs)
        return fs, path
    except (ImportError, ValueError) as e:
        # a filesystem whose package is missing (s3fs, gcsfs, adlfs, aiohttp...) says which in its message
        why = str(e).split("\n", 1)[0]
        raise SourceError(f"{shown_location(url)}: cannot open ({why})") from None


def _info_token(info: dict) -> str:
    for key in ("ETag", "etag", "md5Hash", "generation", "LastModified", "mtime", "last_modified", "created"):
        if info.get(key) is not None:
            return f"{info.get('size')}:{key}={info[key]}"
    return f"{info.get('size')}"


class FsspecSource(Source):
    """Every file under an fsspec URL prefix (``s3://bucket/prefix/``, ``http://host/folder/``...).

    Args:
        url: the prefix. recursive: list every file below it (``find``), else only the files directly in it.
    """

    def __init__(self, url: str, *, recursive: bool = False):
        self.location = url
        self.recursive = recursive
        self.fs, self.root = _url_to_fs(url)

    def __setstate__(self, state: dict) -> None:  # (unpickled in a worker process: its filesystem rebuilt)
        self.__dict__.update(state)
        _bound_retries(self.fs)

    def _url(self, path: str) -> str:
        protocol = self.fs.protocol[0] if isinstance(self.fs.protocol, (tuple, list)) else self.fs.protocol
        return path if is_url(path) else f"{protocol}://{path.lstrip('/') if protocol != 'file' else path}"

    def entries(self) -> list[Entry]:
        try:
            self.fs.invalidate_cache()  # (s3fs and others remember listings: a watch must see new objects)
            if self.recursive:
                found = self.fs.find(self.root, detail=True)
                infos = list(found.values()) if isinstance(found, dict) else found
            else:
                infos = self.fs.ls(self.root, detail=True)
        except FileNotFoundError:
            raise SourceError(f"{shown_location(self.location)}: no such folder or prefix") from None
        except Exception as e:  # noqa: BLE001 - every filesystem raises its own errors (aiohttp, botocore...)
            raise SourceError(f"{shown_location(self.location)}: cannot list ({_failure(e)})") from None
        return sorted((self._entry(info) for info in infos if info.get("type") in (None, "file")),
                      key=lambda e: e.location)

    def _web(self) -> bool:
        return bool(fs_protocols(self.fs) & {"http", "https"})

    def _entry(self, info: dict) -> Entry:
        web = self._web()
        path = info["name"] if not web else _web_location(self.root, info["name"])
        name = path.split("?", 1)[0].rstrip("/").rsplit("/", 1)[-1]
        return Entry(self._url(path), urllib.parse.unquote(name) if web else name, info.get("size"),
                     _info_token(info))

    def parts(self) -> tuple[list[Entry], list[Source]] | None:
        if not self.recursive or self._web():  # (a web server's links are pages, not folders)
            return None
        try:
            self.fs.invalidate_cache()
            infos = self.fs.ls(self.root, detail=True)
        except FileNotFoundError:
            raise SourceError(f"{shown_location(self.location)}: no such folder or prefix") from None
        except Exception as e:  # noqa: BLE001 - as entries()
            raise SourceError(f"{shown_location(self.location)}: cannot list ({_failure(e)})") from None
        got, subs = [], []
        for info in infos:
            if info.get("type") in (None, "file"):
                got.append(self._entry(info))
            elif info.get("type") == "directory" and info["name"].rstrip("/") != self.root.rstrip("/"):
                sub = copy.copy(self)
                sub.root = info["name"]
                sub.location = self._url(info["name"])
                subs.append(sub)
        return got, subs

    def read(self, entry: Entry, limit: int = MAX_CONTENT_BYTES) -> bytes:
        return _read_url(self.fs, _strip(self.fs, entry.location), entry.location, limit)

    def token(self, entry: Entry) -> str | None:
        try:
            return _info_token(self.fs.info(_strip(self.fs, entry.location)))
        except FileNotFoundError:
            return None
        except Exception as e:  # noqa: BLE001
            raise SourceError(f"{shown_location(entry.location)}: cannot look at it ({_failure(e)})") from None


def _web_location(root: str, link: str) -> str:
    """The URL of a file an HTTP listing of ``root`` links to. fsspec appends a relative link after the whole
    root, query included (``/folder/?sig=X/p.json``): a prefix with a query (a pre-signed or SAS-style one) has
    each file's URL rebuilt as the folder, the file, then the same query (``/folder/p.json?sig=X``)."""
    base, sep, query = root.partition("?")
    if not sep or not link.startswith(root):
        return link
    rest = link[len(root):].lstrip("/")
    return base.rstrip("/") + "/" + rest + ("&" if "?" in rest else "?") + query


def _strip(fs, url: str) -> str:
    return fs._strip_protocol(url) if is_url(url) else url


def _is_local(fs) -> bool:
    protocol = fs.protocol if isinstance(fs.protocol, (tuple, list)) else (fs.protocol,)
    return "file" in protocol or "local" in protocol


def _read_url(fs, path: str, location: str, limit: int) -> bytes:
    """At most ``limit`` + 1 bytes of ``path`` on ``fs``, read in pieces (a server that sends more than it
    said is cut off at the bound). A ``file://`` URL is read with the safe reader (never blocking on a FIFO)."""
    if _is_local(fs):
        try:
            return read_regular(path, limit)[0]
        except NotAFile as e:
            raise SourceError(f"{shown_location(location)}: {e.reason}") from None
        except FileNotFoundError:
            raise SourceError(f"{shown_location(location)}: no such file") from None
        except OSError as e:
            raise SourceError(f"{shown_location(location)}: cannot read ({e.strerror or e})") from None
    # A whole read from the start streams over HTTP (block_size 0): fsspec's blocks after the first are range
    # requests, which a server may not support (Python's own http.server does not; fsspec then raises).
    streamed = fs_protocols(fs) & {"http", "https"}
    try:
        with fs.open(path, "rb", block_size=0 if streamed else 1 << 20) as fh:
            chunks, got = [], 0
            while got <= limit:
                piece = fh.read(min(1 << 20, limit + 1 - got))
                if not piece:
                    break
                chunks.append(piece)
                got += len(piece)
            return b"".join(chunks)
    except FileNotFoundError as e:
        raise SourceError(f"{shown_location(location)}: {_not_found(e)}") from None
    except IsADirectoryError:
        raise SourceError(f"{shown_location(location)}: is a folder, not a checkpoint file") from None
    except Exception as e:  # noqa: BLE001 - every filesystem raises its own errors
        raise SourceError(f"{shown_location(location)}: cannot read ({_failure(e)})") from None


def fs_protocols(fs) -> set[str]:
    """The names of ``fs``'s protocol (fsspec gives a string or a tuple)."""
    p = fs.protocol
    return set(p) if isinstance(p, (tuple, list)) else {p}


def _not_found(exc: BaseException) -> str:
    """``no such file``, or why it could not be asked (fsspec's HTTP filesystem reports a refused or failed
    connection as a missing file: the cause chain says which)."""
    seen = set()
    c = exc.__cause__ or exc.__context__
    while c is not None and id(c) not in seen:
        seen.add(id(c))
        if isinstance(c, (ConnectionError, TimeoutError)) or type(c).__name__.startswith(("ClientConnector",
                                                                                           "ServerTimeout")):
            why = _failure(c)
            return f"cannot read ({why})" if why.startswith("no answer") else \
                f"cannot read (the server did not answer: {why})"
        c = c.__cause__ or c.__context__
    return "no such file"


def read_location(location: str, limit: int = MAX_CONTENT_BYTES) -> tuple[bytes, str]:
    """The bytes of one file given by path or URL (at most ``limit`` + 1) and its change token.

    Raises:
        SourceError: it cannot be reached or read (the reason names it as :func:`shown_location` does).
    """
    if not is_url(location):
        src = LocalFolder(os.path.dirname(location) or ".")
        entry = Entry(location, os.path.basename(location), None, "")
        data = src.read(entry, limit)
        return data, src.token(entry) or ""
    fs, path = _url_to_fs(location)
    data = _read_url(fs, path, location, limit)
    try:
        token = _info_token(fs.info(path))
    except Exception:  # noqa: BLE001 - a server that answers GET but not HEAD
        token = "sha256:" + hashlib.sha256(data).hexdigest()
    return data, token


# ------------------------------------------------------------------------------------ JSON Lines
class ExportLines(Source):
    """A JSON Lines file of SDK export wrappers, one per line (FORMAT.md 8): each non-blank line is an
    entry ``FILE:LINE``. The file is read once per :meth:`entries` (bounded by the content ceiling);
    an entry's bytes are its line."""

    def __init__(self, location: str):
        self.location = location
        self._lines: dict[int, bytes] = {}

    def entries(self) -> list[Entry]:
        data, token = read_location(self.location)
        if len(data) > MAX_CONTENT_BYTES:
            raise SourceError(f"{shown_location(self.location)}: larger than {MAX_CONTENT_BYTES} bytes")
        base = shown_location(self.location).rstrip("/").rsplit("/", 1)[-1]
        self._lines, out = {}, []
        for n, line in enumerate(data.split(b"\n"), 1):
            line = line.rstrip(b"\r")
            if not line.strip():
                continue
            self._lines[n] = line
            digest = hashlib.sha256(line).hexdigest()[:16]
            out.append(Entry(f"{self.location}:{n}", f"{base}:{n}", len(line), f"{token}:{digest}"))
        return out

    def _line(self, entry: Entry) -> bytes:
        n = int(entry.location.rsplit(":", 1)[1])
        if n not in self._lines:
            self.entries()
        if n not in self._lines:
            raise SourceError(f"{entry.name}: the line is gone")
        return self._lines[n]

    def read(self, entry: Entry, limit: int = MAX_CONTENT_BYTES) -> bytes:
        return self._line(entry)[:limit + 1]

    def token(self, entry: Entry) -> str | None:
        for e in self.entries():
            if e.location == entry.location:
                return e.token
        return None


# ----------------------------------------------------------------------------------------- open
def open_source(location: str, *, recursive: bool = False) -> Source:
    """The :class:`Source` for ``location``: a JSON Lines file of exports (``.jsonl``, ``.ndjson``), a URL
    prefix (fsspec), or a local folder.

    Raises:
        SourceError: a local path that is not a folder or a ``.jsonl`` file; a URL whose filesystem is not
            installed.
    """
    bare = shown_location(location).lower()
    if bare.endswith(EXPORT_LINES_SUFFIXES):
        return ExportLines(location)
    if is_url(location):
        return FsspecSource(location, recursive=recursive)
    if not os.path.isdir(location):
        raise SourceError(f"{location}: not a folder, a URL or a .jsonl file of exports")
    return LocalFolder(location, recursive=recursive)


def read_input_at(location: str):
    """The :class:`~inspector.checkpoint.InputFile` of one file named by a URL (its role from its content,
    as for a local file): ``path`` is the URL as :func:`shown_location` shows it (no credential), ``data``
    its bytes, or ``None`` with a P-BOUND hint when it is over the 256 MiB ceiling (FORMAT.md 6.2).

    Raises:
        SourceError: it cannot be reached or read.
    """
    from inspector.checkpoint import InputFile, detect_role

    data, _token = read_location(location)
    shown = shown_location(location)
    if len(data) > MAX_CONTENT_BYTES:
        return InputFile(shown, len(data), None, "payload",
                         f"over the {MAX_CONTENT_BYTES}-byte v1 ceiling; not read further")
    role, hint, doubt = detect_role(data)
    return InputFile(shown, len(data), data, role, hint, 0, doubt)
