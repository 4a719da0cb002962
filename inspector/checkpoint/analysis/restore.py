"""The original restored, when it can be proven (issue 26).

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
from inspector.checkpoint.digest import MAX_CONTENT_BYTES
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


def _undo_transport(data: bytes) -> tuple[bytes, list[str]]:
    changes = []
    if data[:2] == _GZIP:
        d = zlib.decompressobj(16 + zlib.MAX_WBITS)
        try:
            out = d.decompress(data, MAX_CONTENT_BYTES + 1)
        except zlib.error:
            raise NoProof("the file is gzip-compressed but does not decompress") from None
        if len(out) > MAX_CONTENT_BYTES or d.unconsumed_tail:
            raise NoProof(f"the file is gzip-compressed and decompresses to more than {MAX_CONTENT_BYTES} bytes")
        data = out
        changes.append("gzip compression")
    if data[:3] == _BOM:
        data = data[3:]
        changes.append("a UTF-8 byte order mark at the start")
    return data, changes


def restore_original(payload: bytes, descriptor: dict, ctx: Context | None = None) -> tuple[bytes, Restoration]:
    """The exported payload bytes, restored from a re-saved copy, with the proof.

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
    undone, changes = _undo_transport(payload)
    if ctx is None or undone is not payload:
        ctx = Context(undone, None)
    value, err = ctx.pay_result
    if err is not None:
        raise NoProof(f"what the file holds does not decode (P-PARSE: {err.text()}), so there is nothing to re-encode")
    candidate = bytes(ctx.canonical)
    digest = "sha256:" + hashlib.sha256(candidate).hexdigest()
    size, stated = descriptor.get("size_bytes"), descriptor.get("content_digest")
    if (len(candidate), digest) != (size, stated):
        raise NoProof(f"the canonical re-encoding of what the file holds is {len(candidate)} bytes with {digest}; the "
                      f"descriptor binds {size} bytes with {stated}: the content itself differs from the export (a "
                      "changed value, or one the reference reads differently), so the original cannot be proven")
    if not ctx.is_canonical:
        changes += [class_text(k) for k in diagnose_canonical(ctx).classes]
    return candidate, Restoration(tuple(changes), len(candidate), digest)


def restoration_of(ctx: Context, report) -> Restoration | None:
    """The pipeline's analysis: a :class:`Restoration` when X-BYTES failed and the original is proven, else
    ``None`` (never raises for bad input). Uses the verification's own decode when the payload decoded."""
    if ctx.payload is None or ctx.descriptor is None or not report.for_rule("X-BYTES").failed:
        return None
    desc = ctx.desc_result[0]
    if not isinstance(desc, dict):
        return None
    try:
        return restore_original(ctx.payload, desc, ctx)[1]
    except NoProof:
        return None
