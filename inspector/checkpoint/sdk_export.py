"""The SDK export wrapper: one file that holds a whole checkpoint (FORMAT.md 1).

Hosts built on the Node, Python or Go SDK receive each export in their sink as one JSON object, the
cross-language wrapper ``SdkSessionCheckpointExportV1`` (``core/src/session_checkpoint.rs``, serde
``rename_all = "camelCase"``, no ``deny_unknown_fields``)::

    {"descriptor": <the descriptor object>, "contentBase64": "<standard base64, with padding, of the payload>"}

:func:`unwrap` recognises it by content and gives back the pair it holds: the payload (the decoded
content bytes; the 256 MiB ceiling applies to them) and the descriptor (the bytes of the descriptor
object exactly as the file spells them). Offsets and spans then refer to those, as for two files.
:func:`wrap` writes the wrapper for a payload and its descriptor.

The base64 is read as Rust's ``base64`` crate's ``STANDARD`` engine reads it: the standard alphabet,
``=`` padding required, no whitespace, and no stray bits in the last character (a decoded value must
encode back to the same text).
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

from inspector.checkpoint.constants import MAX_CONTENT_BYTES
from inspector.checkpoint.diagnostic import InspectorError
from inspector.checkpoint.jsontext.reader import SerdeError, parse_value

__all__ = ["FORM", "WRAPPER_MAX_BYTES", "ExportError", "Unwrapped", "looks_like_export", "may_be_export", "is_export",
           "unwrap",
           "wrap"]

#: How the inputs name this form (``InputFile.form``).
FORM = "SDK export wrapper"
#: The largest wrapper worth reading: the base64 of a 256 MiB payload plus 1 MiB for the descriptor.
WRAPPER_MAX_BYTES = 4 * -(-MAX_CONTENT_BYTES // 3) + (1 << 20)

_KEY_DESCRIPTOR, _KEY_CONTENT = "descriptor", "contentBase64"
#: The start of a wrapper as the SDKs write it (either member first; whitespace allowed).
_HEAD = re.compile(rb'\A[ \t\r\n]*\{[ \t\r\n]*"(?:descriptor|contentBase64)"[ \t\r\n]*:')
_B64 = re.compile(r"\A[A-Za-z0-9+/]*={0,2}\Z")


class ExportError(InspectorError):
    """A file in the SDK export form whose content cannot be taken out (bad base64, not an object...): a clear
    verdict for the user (the CLI exits 2), never a crash."""


@dataclass(frozen=True)
class Unwrapped:
    """The pair an SDK export wrapper holds.

    ``payload``: the decoded content bytes, or ``None`` when they would exceed the 256 MiB ceiling
    (``payload_size`` then says how many bytes they are, and P-BOUND fails from the size); ``payload_size``:
    their size in bytes; ``descriptor``: the descriptor object's bytes exactly as the file spells them;
    ``descriptor_offset``: where those bytes start in the wrapper file.
    """

    payload: bytes | None
    payload_size: int
    descriptor: bytes
    descriptor_offset: int


def looks_like_export(head: bytes) -> bool:
    """Does a file starting with ``head`` (its first bytes) open the way an SDK export wrapper does (its first
    member ``descriptor`` or ``contentBase64``)?"""
    return _HEAD.match(head) is not None


def may_be_export(data: bytes) -> bool:
    """Could a file holding ``data`` (the whole file, or the first bytes of it that a caller has) be an SDK export
    wrapper: it opens like one, or names ``contentBase64`` anywhere (a wrapper whose first member is another one,
    of any size; serde ignores unknown members). Only the unescaped key ``"contentBase64"`` counts: text that
    mentions it inside a string is escaped (``\\"contentBase64\\"``) and is not searched for."""
    return looks_like_export(data[:256]) or b'"contentBase64"' in data


def is_export(data: bytes) -> bool:
    """Is ``data`` (a file's whole content) an SDK export wrapper (FORMAT.md 1): :func:`unwrap` takes a pair out of
    it, or refuses it as that form (:class:`ExportError`)? A payload that names ``contentBase64`` only inside a
    nested object is not one. Parses ``data`` only when :func:`may_be_export` says it could be one."""
    if not may_be_export(data):
        return False
    try:
        return unwrap(data) is not None
    except ExportError:
        return True


def unwrap(data: bytes) -> Unwrapped | None:
    """The pair held by ``data`` when it is an SDK export wrapper, else ``None`` (not that form).

    The wrapper is read as serde_json reads it (:func:`~inspector.checkpoint.jsontext.reader.parse_value`):
    a JSON object with a ``descriptor`` object and a ``contentBase64`` string; other members are ignored,
    as the Rust struct ignores them.

    Raises:
        ExportError: the file is in this form (an object with both members) but ``contentBase64`` is not
            a string of standard padded base64, or ``descriptor`` is not an object; or the file opens as a
            wrapper (its first member is one of the two) but is not complete JSON, or lacks a member.
    """
    opens_as_one = looks_like_export(data[:256])
    if not opens_as_one and not may_be_export(data):
        return None
    try:
        value, root = parse_value(data, nodes=True)
    except SerdeError as e:
        if opens_as_one:  # (taken for a payload, it got "unknown field `descriptor`": the wrong cause)
            raise ExportError(f"the file opens as an SDK export wrapper but serde_json does not read it: "
                              f"{e.text()}") from None
        return None  # not JSON: the file is whatever else it is (its rules say why)
    if not isinstance(value, dict) or _KEY_DESCRIPTOR not in value or _KEY_CONTENT not in value:
        if opens_as_one and isinstance(value, dict):
            missing = _KEY_CONTENT if _KEY_DESCRIPTOR in value else _KEY_DESCRIPTOR
            raise ExportError(f"the SDK export wrapper has no `{missing}` member (serde: missing field `{missing}`)")
        return None
    for key in (_KEY_DESCRIPTOR, _KEY_CONTENT):
        if sum(1 for k, _s, _n in root.children if k == key) > 1:  # serde derive refuses a repeated field
            raise ExportError(f"the SDK export wrapper has a duplicate field `{key}`")
    text, desc_node = value[_KEY_CONTENT], root.child(_KEY_DESCRIPTOR)
    if not isinstance(value[_KEY_DESCRIPTOR], dict):
        raise ExportError("the SDK export wrapper's `descriptor` is not a JSON object")
    if not isinstance(text, str):
        raise ExportError("the SDK export wrapper's `contentBase64` is not a string")
    size = _decoded_size(text)
    descriptor = data[desc_node.start:desc_node.end]
    if size > MAX_CONTENT_BYTES:
        return Unwrapped(None, size, descriptor, desc_node.start)
    return Unwrapped(_decode(text), size, descriptor, desc_node.start)


def _decoded_size(text: str) -> int:
    """How many bytes ``text`` decodes to (checked for the alphabet and the padding first)."""
    if len(text) % 4 or not _B64.match(text):
        where = next((i for i, c in enumerate(text) if c not in _ALPHABET), None)
        if where is not None:
            raise ExportError(f"the SDK export wrapper's `contentBase64` is not base64: character {where + 1} of "
                              f"{len(text)} is not in the standard alphabet")
        raise ExportError(f"the SDK export wrapper's `contentBase64` is not padded base64: its length, {len(text)} "
                          "characters, is not a multiple of 4 or its `=` padding is misplaced")
    return len(text) // 4 * 3 - len(text[-2:]) + len(text[-2:].rstrip("="))


_ALPHABET = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=")


def _decode(text: str) -> bytes:
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise ExportError("the SDK export wrapper's `contentBase64` is not valid padded base64") from None
    if base64.b64encode(data).decode("ascii") != text:  # stray bits in the last character: Rust's STANDARD refuses
        raise ExportError("the SDK export wrapper's `contentBase64` is not canonical base64 (its last character "
                          "carries bits the content does not have)")
    return data


def wrap(payload: bytes, descriptor: bytes) -> bytes:
    """The SDK export wrapper of ``payload`` (its bytes) and ``descriptor`` (the bytes of its descriptor object,
    e.g. ``describe``'s canonical output): ``{"descriptor":…,"contentBase64":"…"}`` in the Rust struct's member
    order, compact, no trailing newline."""
    return b'{"descriptor":' + descriptor.strip() + b',"contentBase64":"' + base64.b64encode(payload) + b'"}'
