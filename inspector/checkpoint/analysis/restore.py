"""The original restored, when it can be proven.

Files damaged in transport are mostly re-saved, not tampered with: an editor pretty-prints them or
changes their line ends, git converts them on Windows, a mail gateway gzips them. The reference then
rejects the payload (X-BYTES: the bytes are not the ones the descriptor binds). When what the file holds
still decodes, its canonical re-encoding (FORMAT.md 3.1) is the candidate original; it *is* the original
exactly when its size and SHA-256 equal the descriptor's ``size_bytes`` and ``content_digest`` (the
descriptor binds the exported bytes by both, FORMAT.md 3.2). Nothing else counts as proof: when they
differ, no restore is offered and the verdict stands.

Undone before reading: gzip compression, and a UTF-8 byte order mark (serde rejects it). The rest
(whitespace, CRLF, a trailing newline, key order, escapes, number spellings the reference reads the same)
the canonical re-encoding undoes by itself; the words for what changed come from the P-CANONICAL
diagnosis (:mod:`inspector.checkpoint.diagnosis.diagnose`).
"""

from __future__ import annotations

import hashlib
import zlib
from dataclasses import dataclass

from inspector.checkpoint.diagnosis.diagnose import class_text, diagnose_canonical
from inspector.checkpoint.constants import MAX_CONTENT_BYTES
from inspector.checkpoint.jsontext.errors import EOF
from inspector.checkpoint.rules.context import Context

__all__ = ["Restoration", "NoProof", "restore_original", "restoration_of"]

_GZIP, _BOM = b"\x1f\x8b", b"\xef\xbb\xbf"


@dataclass(frozen=True)
class Restoration:
    """A proven restore. ``changes``: what the transport did, in words, in file order; ``size_bytes`` and
    ``content_digest``: the restored bytes' (equal to the descriptor's)."""

    changes: tuple[str, ...]
    size_bytes: int
    content_digest: str

    @property
    def sentence(self) -> str:
        """The plain-words statement for the user."""
        what = "; ".join(self.changes) or "a change of form"
        return (f"this file is the exported checkpoint, re-saved or converted after export ({what}); the original "
                f"can be restored exactly: its {self.size_bytes} bytes and SHA-256 match the descriptor")

    def to_json(self) -> dict:
        """``{"changes": [...], "size_bytes": N, "content_digest": "sha256:..."}``."""
        return {"changes": list(self.changes), "size_bytes": self.size_bytes, "content_digest": self.content_digest}


class NoProof(Exception):
    """No original can be proven; ``str(e)`` says why in plain words (the verdict stands)."""


#: Decompressed bytes kept for the full check beyond the file's own size: the check parses what it keeps (about
#: three times its size at the peak), so it stays within 4x the file's size plus a fixed 64 MiB (benchmarks/README.md).
_SLACK = 12 << 20
#: Decompressed per step: the stream is read in pieces of this size, hashed and counted as it comes.
_CHUNK = 1 << 20
#: The start of a large decompressed file that is read for a syntax error (which proves "does not decode").
_HEAD = 64 << 10
#: A syntax error this far before the end of the head is where it is in the whole file too (a token that
#: runs past the head's end ends in an EOF error, never in another one).
_HEAD_MARGIN = 1 << 10


@dataclass
class _Undone:
    """The payload with its transport wrappers undone: ``data`` (``None`` when too large to keep),
    ``size`` and ``digest`` (``sha256:...``, only when ``size`` is the descriptor's ``size_bytes``) and the
    ``changes`` undone."""

    data: bytes | None
    size: int
    digest: str | None
    changes: list


def _undo_transport(data: bytes, stated_size) -> _Undone:
    """Undo gzip (as a stream: bounded memory however much it inflates) and a BOM."""
    if data[:2] != _GZIP:
        changes = []
        if data[:3] == _BOM:
            data = data[3:]
            changes.append("a UTF-8 byte order mark at the start")
        return _Undone(data, len(data), None, changes)
    keep = len(data) + _SLACK
    d = zlib.decompressobj(16 + zlib.MAX_WBITS)
    kept, head, pending = bytearray(), bytearray(), data
    h, size, inflated, bom = hashlib.sha256(), 0, 0, None
    while not d.eof:
        try:
            out = d.decompress(pending, _CHUNK)
        except zlib.error:
            raise NoProof("the file is gzip-compressed but does not decompress") from None
        pending = d.unconsumed_tail
        if not out and not pending:
            break  # the input ends (a truncated stream is read as far as it goes)
        inflated += len(out)
        if inflated > MAX_CONTENT_BYTES:
            raise NoProof(f"the file is gzip-compressed and decompresses to more than {MAX_CONTENT_BYTES} bytes")
        if bom is None:  # the first bytes decide whether a BOM follows the gzip wrapper
            head += out
            if len(head) < 3 and not d.eof:
                continue
            bom = head[:3] == _BOM
            out, head = bytes(head[3:] if bom else head), bytearray()
        if len(head) < _HEAD:
            head += out[:_HEAD - len(head)]
            if len(head) == _HEAD and not d.eof:
                _refuse_undecodable_head(bytes(head))  # the first byte that proves "does not decode" ends the read
        if isinstance(stated_size, int) and size + len(out) <= stated_size:
            h.update(out)  # past the descriptor's size, no digest is needed: the sizes already differ
        size += len(out)
        if kept is not None:
            if size <= keep:
                kept += out
            else:
                kept = None
    if bom is None:  # fewer than 3 bytes in all
        bom = False
        kept, size = bytearray(head), len(head)
        h.update(head)
    changes = ["gzip compression"] + (["a UTF-8 byte order mark at the start"] if bom else [])
    digest = "sha256:" + h.hexdigest() if size == stated_size else None
    return _Undone(None if kept is None else bytes(kept), size, digest, changes)


def _refuse_undecodable_head(head: bytes) -> None:
    """Raise :class:`NoProof` (P-PARSE) when the start of a longer content already fails to decode: a syntax or
    type error well before the end of ``head`` is the whole content's first error too (serde reads in order)."""
    err = Context(head, None).pay_result[1]
    if err is not None and err.category != EOF and err.index is not None and err.index < len(head) - _HEAD_MARGIN:
        raise NoProof(f"what the file holds does not decode (P-PARSE: {err.text()}), so there is nothing to re-encode")


def restore_original(payload: bytes, descriptor: dict, ctx: Context | None = None) -> tuple[bytes, Restoration]:
    """The exported payload bytes, restored from a re-saved copy, with the proof.

    A gzip-compressed file is decompressed as a stream: its bytes are counted and hashed as they come and
    kept only up to the file's own size plus 12 MiB, so a decompression bomb costs no more memory than a
    file of its own size; a syntax error in its first 64 KiB ends the read (P-PARSE). A larger content is
    the original when its size and SHA-256 are the descriptor's (FORMAT.md 3.2); otherwise no proof is offered.

    Args:
        payload: the payload file's bytes (maybe gzip-compressed, with a BOM, pretty-printed, CRLF...).
        descriptor: the decoded descriptor (``size_bytes``, ``content_digest``).
        ctx: the verification's context of these very bytes, whose decode is reused when no transport
            wrapper (gzip, BOM) had to be undone.

    Returns:
        ``(original bytes, Restoration)``; the bytes hash to the descriptor's ``content_digest``.

    Raises:
        NoProof: the payload does not decode, or its canonical re-encoding is not the bound content.
    """
    candidate, proof = _prove(payload, descriptor, ctx, want_bytes=True)
    return candidate, proof


def _prove(payload: bytes, descriptor: dict, ctx: Context | None, *, want_bytes: bool) -> tuple[bytes | None, Restoration]:
    """:func:`restore_original`; the bytes only when ``want_bytes`` (else ``None`` for a large gzip file)."""
    size, stated = descriptor.get("size_bytes"), descriptor.get("content_digest")
    u = _undo_transport(payload, size)
    if u.data is None:
        return _prove_large(payload, u, size, stated, want_bytes)
    undone, changes = u.data, u.changes
    if ctx is None or undone is not payload:
        ctx = Context(undone, None)
    value, err = ctx.pay_result
    if err is not None:
        raise NoProof(f"what the file holds does not decode (P-PARSE: {err.text()}), so there is nothing to re-encode")
    candidate = bytes(ctx.canonical)
    digest = "sha256:" + hashlib.sha256(candidate).hexdigest()
    if (len(candidate), digest) != (size, stated):
        raise NoProof(f"the canonical re-encoding of what the file holds is {len(candidate)} bytes with {digest}; the "
                      f"descriptor binds {size} bytes with {stated}: the content itself differs from the export (a "
                      "changed value, or one the reference reads differently), so the original cannot be proven")
    if not ctx.is_canonical:
        changes += [class_text(k) for k in diagnose_canonical(ctx).classes]
    return candidate, Restoration(tuple(changes), len(candidate), digest)


def _prove_large(payload: bytes, u: _Undone, size, stated, want_bytes: bool) -> tuple[bytes | None, Restoration]:
    """The proof for gzip content too large to keep (:data:`_SLACK`): its own size and SHA-256, read as a stream,
    are the descriptor's (FORMAT.md 3.2: the descriptor binds the exported bytes by both), or no proof."""
    if (u.size, u.digest) == (size, stated):
        data = None
        if want_bytes:  # the content itself, once: the descriptor bounds it (at most MAX_CONTENT_BYTES)
            data = zlib.decompressobj(16 + zlib.MAX_WBITS).decompress(payload, MAX_CONTENT_BYTES + 3)
            data = data[3:] if data[:3] == _BOM else data
        return data, Restoration(tuple(u.changes), u.size, stated)
    raise NoProof(f"the file is gzip-compressed and decompresses to {u.size} bytes, which are not the {size} bytes "
                  f"with {stated} that the descriptor binds; a re-saved copy that large (over the file's own size "
                  f"plus {_SLACK >> 20} MiB) is not re-encoded here, so the original cannot be proven")


def restoration_of(ctx: Context, report) -> Restoration | None:
    """The pipeline's analysis: a :class:`Restoration` when X-BYTES failed and the original is proven, else
    ``None`` (never raises for bad input). Uses the verification's own decode when the payload decoded."""
    if ctx.payload is None or ctx.descriptor is None or not report.for_rule("X-BYTES").failed:
        return None
    desc = ctx.desc_result[0]
    if not isinstance(desc, dict):
        return None
    try:
        return _prove(ctx.payload, desc, ctx, want_bytes=False)[1]
    except NoProof:
        return None
