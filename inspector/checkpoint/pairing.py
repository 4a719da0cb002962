"""Which payload a descriptor belongs to, among many files (a folder's pairing policy).

A descriptor binds its payload by the payload's SHA-256 (``content_digest``, FORMAT.md 2-3.2), so files
pair by digest first; a name stem breaks ties between copies of one payload; a descriptor whose digest
matches nothing (drift, the interesting case) then pairs with the payload of the same name stem
(``x.payload.json`` + ``x.descriptor.json``). The engine's input floor: the folder scan of the window and
the CLI use the same policy, and :func:`find_sibling` finds the other half of a file opened alone.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from typing import Sequence, TypeVar

import orjson

from inspector.checkpoint.constants import MAX_CONTENT_BYTES
from inspector.checkpoint.safeopen import open_file, open_regular, read_fd
from inspector.checkpoint.sdk_export import WRAPPER_MAX_BYTES, is_export

__all__ = ["name_stem", "pair_by_digest", "Sibling", "find_sibling", "SIBLING_SCAN_LIMIT", "stated_binding",
           "file_sha256"]

P = TypeVar("P")
D = TypeVar("D")


def name_stem(path: str) -> str:
    """The file name without its role words and extension: ``run-7.payload.json`` -> ``run-7``
    (lower case; ``payload``/``descriptor`` in any of the usual spellings removed)."""
    name = os.path.basename(path).lower()
    for token in (".json", ".payload", ".descriptor", "-payload", "-descriptor", "_payload", "_descriptor",
                  "payload", "descriptor"):
        name = name.replace(token, "")
    return name.strip(".-_")


def pair_by_digest(payloads: Sequence[tuple[P, str, str | None]],
                   descriptors: Sequence[tuple[D, str, str | None]]) -> list[tuple[P | None, D | None]]:
    """Pair payloads with descriptors.

    Args:
        payloads: ``(item, path, sha256)`` per payload (``sha256``: ``"sha256:<hex>"`` of its bytes, or
            ``None`` when not hashed, e.g. over the 256 MiB ceiling).
        descriptors: ``(item, path, stated)`` per descriptor (``stated``: its ``content_digest``, or ``None``).

    Returns:
        ``[(payload item or None, descriptor item or None)]``: each pair once, then descriptors and payloads
        left alone, all sorted by the path of the pair's payload (else its descriptor). Rounds, in order: same
        digest and same name stem; same digest; same name stem. Within a round, descriptors in the given
        order each take the first free payload that matches.
    """
    pairs: list[tuple] = []
    used: set[int] = set()
    done: set[int] = set()
    path_of: dict[int, str] = {}

    def round_(match) -> None:
        for di, (d, dpath, stated) in enumerate(descriptors):
            if di in done:
                continue
            for pi, (p, ppath, sha) in enumerate(payloads):
                if pi not in used and match(ppath, sha, dpath, stated):
                    used.add(pi)
                    done.add(di)
                    pairs.append((p, d))
                    path_of[id(pairs[-1])] = ppath
                    break

    round_(lambda pp, sha, dp, st: st is not None and sha == st and name_stem(pp) == name_stem(dp))
    round_(lambda pp, sha, dp, st: st is not None and sha == st)
    round_(lambda pp, sha, dp, st: name_stem(pp) == name_stem(dp))
    keyed = [(path_of[id(pair)], pair) for pair in pairs]
    keyed += [(dpath, (None, d)) for di, (d, dpath, _) in enumerate(descriptors) if di not in done]
    keyed += [(ppath, (p, None)) for pi, (p, ppath, _) in enumerate(payloads) if pi not in used]
    keyed.sort(key=lambda kp: kp[0])
    return [pair for _, pair in keyed]


#: A folder with more entries than this is not searched for a sibling (the open stays quick).
SIBLING_SCAN_LIMIT = 10_000
#: Descriptors are small (:data:`inspector.checkpoint.artifact._DESCRIPTOR_MAX`): larger files are not read as one.
_DESCRIPTOR_MAX = 1 << 20


@dataclass(frozen=True)
class Sibling:
    """The file beside an opened one that makes the pair: ``path``, and ``how`` it was found (``"digest"``: the
    descriptor's ``content_digest`` is the payload's SHA-256; ``"name"``: a matching name, digests differ)."""

    path: str
    how: str

    def sentence(self, opened_role: str) -> str:
        """What the window and the CLI say, e.g. ``the descriptor beside it, x.descriptor.json, matches (its
        content_digest is this payload's SHA-256)``."""
        other = "descriptor" if opened_role == "payload" else "payload"
        if self.how == "digest":
            why = ("which matches (its content_digest is this payload's SHA-256)" if other == "descriptor" else
                   "which matches (its SHA-256 is this descriptor's content_digest)")
        else:
            why = ("which has a matching name, but its content_digest is not this payload's SHA-256"
                   if other == "descriptor" else
                   "which has a matching name, but its SHA-256 is not this descriptor's content_digest")
        return f"the {other} beside it, {os.path.basename(self.path)}, {why}"


def find_sibling(path: str, role: str, data: bytes | None, size: int) -> Sibling | None:
    """The descriptor beside a payload (or the payload beside a descriptor) at ``path``, by digest, then by name.

    Args:
        path: the opened file. role: ``payload`` or ``descriptor`` (its content's). data: its bytes (``None`` for a
            payload over the ceiling: then only names are compared; an object that is not ``bytes``, such as a
            file read on demand: the file is hashed). size: its size in bytes.

    Returns:
        a :class:`Sibling`, or ``None`` when no file beside it matches (or the folder has more than
        :data:`SIBLING_SCAN_LIMIT` entries). Reads only small files (descriptors) and files whose size is the one a
        descriptor states; never raises for unreadable files.
    """
    folder = os.path.dirname(os.path.abspath(path)) or "."
    try:
        names = os.listdir(folder)
    except OSError:
        return None
    if len(names) > SIBLING_SCAN_LIMIT:
        return None
    me = os.path.abspath(path)
    # spelled as the opened file's folder was given (relative stays relative)
    others = [os.path.join(os.path.dirname(path), n) for n in sorted(names) if not n.startswith(".")]
    others = [p for p in others if os.path.abspath(p) != me and os.path.isfile(p)]
    stem = name_stem(path)
    if role == "payload":
        if isinstance(data, (bytes, bytearray, memoryview)):
            digest = "sha256:" + hashlib.sha256(data).hexdigest()
        else:  # not read (over the ceiling: names only), or read on demand (hashed from the file)
            digest = file_sha256(path) if data is not None else None
        named = None
        for p in others:
            stated = _stated_digest(p)
            if stated is None:
                continue
            if digest is not None and stated == digest:
                return Sibling(p, "digest")
            if named is None and name_stem(p) == stem:
                named = p
        return Sibling(named, "name") if named else None
    stated_size, stated = stated_binding(data)
    named = None
    for p in others:
        try:
            psize = os.path.getsize(p)
        except OSError:
            continue
        if stated is not None and psize == stated_size and file_sha256(p) == stated:
            return Sibling(p, "digest")
        if named is None and name_stem(p) == stem and psize > 0 and _stated_digest(p) is None \
                and not _is_wrapper(p, psize):
            named = p
    return Sibling(named, "name") if named else None


def _is_wrapper(path: str, size: int) -> bool:
    """Is the file at ``path`` (``size`` bytes) an SDK export wrapper (FORMAT.md 1)? It holds a pair of its own,
    so it is never the payload beside a descriptor. Decided from its whole content
    (:func:`.sdk_export.is_export`, the test :func:`.artifact.file_role` makes); unreadable: not one."""
    if size > WRAPPER_MAX_BYTES:
        return False
    try:
        fd, st = open_regular(path)
        try:
            data = read_fd(fd, WRAPPER_MAX_BYTES + 1, st.st_size)
        finally:
            os.close(fd)
    except (OSError, ValueError):
        return False
    return is_export(data)


def stated_binding(data: bytes | None) -> tuple[int | None, str | None]:
    """``(size_bytes, content_digest)`` a descriptor's bytes state at their top level (FORMAT.md 3.2), read leniently
    (orjson; any shape: ``None`` for what is missing or of the wrong type), for pairing only, never for a verdict."""
    try:
        value = orjson.loads(data) if data else None
    except orjson.JSONDecodeError:
        return None, None
    if not isinstance(value, dict):
        return None, None
    size, digest = value.get("size_bytes"), value.get("content_digest")
    return (size if isinstance(size, int) else None), (digest if isinstance(digest, str) else None)


def _stated_digest(path: str) -> str | None:
    """A small file's top-level ``content_digest`` (a descriptor's), else ``None``."""
    try:
        fd, st = open_regular(path)  # (a FIFO or device beside it is refused, never read)
        try:
            if st.st_size > _DESCRIPTOR_MAX:
                return None
            data = read_fd(fd, _DESCRIPTOR_MAX + 1, st.st_size)
        finally:
            os.close(fd)
        return stated_binding(data)[1]
    except (OSError, ValueError):
        return None


def file_sha256(path: str, check=None) -> str | None:
    """Streamed ``sha256:`` digest of the file at ``path`` (read 1 MiB at a time, at most the 256 MiB ceiling plus
    one byte: a longer file is no payload's content), or ``None`` when it cannot be read. ``check``: called after
    each MiB (a caller's cancel check, which may raise)."""
    h = hashlib.sha256()
    left = MAX_CONTENT_BYTES + 1
    try:
        fh, _st = open_file(path)  # (never a FIFO or device: refused without blocking, an OSError)
        with fh:
            while left > 0:
                chunk = fh.read(min(1 << 20, left))
                if not chunk:
                    break
                left -= len(chunk)
                h.update(chunk)
                if check is not None:
                    check()
    except (OSError, ValueError):
        return None
    return "sha256:" + h.hexdigest()
