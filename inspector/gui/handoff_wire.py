"""The hand-off's wire format (:mod:`.single_instance`), without Qt: one request per connection,
``CKPTINSP1 `` + JSON ``{"paths": [...]}`` + ``\\n``, each path ``base64(os.fsencode(path))`` (so a file name that
is not UTF-8, a lone surrogate on Windows, survives byte for byte). Only paths travel, never content. The
request is read in exactly the flat shape :func:`encode_request` writes, matched without recursion."""

from __future__ import annotations

import base64
import binascii
import json
import os
import re

__all__ = ["MAGIC", "MAX_REQUEST", "MAX_PATHS", "encode_request", "decode_request"]

#: First bytes of every request (protocol version 1).
MAGIC = b"CKPTINSP1 "
#: Largest request accepted, in bytes, its final newline included (1 MiB).
MAX_REQUEST = 1 << 20
#: Most paths in one request (an average of 4 KiB of base64 per path fits in :data:`MAX_REQUEST`).
MAX_PATHS = 256


def encode_request(paths: list[str]) -> bytes:
    """The request carrying ``paths`` (made absolute), as sent on the socket.

    Args:
        paths: file or folder names (``str``; undecodable bytes as surrogate escapes, as ``sys.argv`` has them).

    Returns:
        ``MAGIC + JSON + b"\\n"``, each path ``base64(os.fsencode(abspath))``.
    """
    items = [base64.b64encode(os.fsencode(os.path.abspath(p))).decode("ascii") for p in paths]
    return MAGIC + json.dumps({"paths": items}).encode("ascii") + b"\n"


# The one shape a request's JSON may have (what encode_request writes, JSON whitespace allowed): matched by a
# regular expression, not a JSON parser, so a nested document is refused in one linear pass at any depth.
_WS = rb"[ \t\r\n]*"
_REQUEST_SHAPE = re.compile(_WS + rb'\{' + _WS + rb'"paths"' + _WS + rb":" + _WS + rb"\[(?P<items>[^\[\]{}]*)\]"
                            + _WS + rb"\}" + _WS)
_ITEM = re.compile(_WS + rb'"(?P<b64>[A-Za-z0-9+/=]*)"' + _WS)


def decode_request(data: bytes) -> list[str]:
    """The paths of a request made by :func:`encode_request`.

    Args:
        data: the request's bytes, with or without the final newline.

    Returns:
        the paths, as ``os.fsdecode`` gives them (the exact bytes of every name survive).

    Raises:
        ValueError: not a version-1 request; not exactly the flat shape ``{"paths": ["<base64>", ...]}``
            (nesting at any depth, another key, a JSON escape: refused without recursion, in time linear in
            the request's size); more than :data:`MAX_PATHS` paths; a path that is not base64, or is
            empty or holds NUL.
    """
    if not data.startswith(MAGIC):
        raise ValueError("not a checkpoint-inspector request")
    body = data[len(MAGIC):]
    if body.endswith(b"\n"):
        body = body[:-1]
    shape = _REQUEST_SHAPE.fullmatch(body)
    if shape is None:
        raise ValueError('malformed request (not {"paths": [base64, ...]})')
    inner = shape.group("items")
    pieces = inner.split(b",") if inner.strip(b" \t\r\n") else []
    if len(pieces) > MAX_PATHS:
        raise ValueError("too many paths")
    paths = []
    for piece in pieces:
        item = _ITEM.fullmatch(piece)
        if item is None:
            raise ValueError("malformed request (a path is not a base64 string)")
        try:
            paths.append(os.fsdecode(base64.b64decode(item.group("b64"), validate=True)))
        except (binascii.Error, ValueError):
            raise ValueError("malformed request (a path is not base64)") from None
    if any(not p or "\0" in p for p in paths):
        raise ValueError("malformed request (empty path or NUL)")
    return paths
