"""The one door to a payload: a proven fast read, else the exact typed decode (FORMAT.md 3.1, P-PARSE).

Every caller that wants a payload's typed value or its ``serde_json::Value`` comes through here; none
chooses a reader. The order is decided once:

1. :func:`.typedfast.decode_typed` (only when the caller takes large text fields as raw ``memoryview``
   slices of the file): msgspec's typed read, proven equal to the exact decode;
2. :func:`.fastpath.decode_fast`: orjson and a validator compiled from the schema, proven equal;
3. :func:`inspector.checkpoint.schema.typed.decode`: the exact serde emulation, which decides every
   case the fast readers cannot prove (and every error, with serde's message and position).

A fast reader that proves the value but finds the file not canonical (pretty-printed, re-ordered)
raises ``NotCanonical`` carrying the value; the door returns it with ``is_canonical=False``.
"""

from __future__ import annotations

from dataclasses import dataclass

from inspector.checkpoint.jsontext.canonical import canonicalize, encode
from inspector.checkpoint.jsontext.reader import SerdeError, parse_value
from inspector.checkpoint.jsontext.spanindex import INDEX_BIG  # (containers of 64 KiB or more get their children's spans)
from inspector.checkpoint.read.fastpath import NotCanonical, NotFast, decode_fast
from inspector.checkpoint.read.relaid import layout_spans
from inspector.checkpoint.read.typedfast import decode_typed, text_of
from inspector.checkpoint.schema import model as S
from inspector.checkpoint.schema.kinds import VALUE
from inspector.checkpoint.schema.typed import decode

__all__ = ["PayloadRead", "read_payload", "read_value", "read_value_form", "canonical_form", "layout_spans", "text_of"]



@dataclass
class PayloadRead:
    """What the door read from one payload file.

    ``value``: the typed payload in serialized form (``dict``), or ``None`` when serde rejects it;
    ``error``: that rejection (:class:`~inspector.checkpoint.jsontext.reader.SerdeError`, P-PARSE), else
    ``None``; ``is_canonical``: ``True``/``False`` when a fast reader proved it, ``None`` when the exact
    decode read it (the caller compares the re-encoding); ``canonical``: the canonical bytes when known
    without re-encoding (the file itself, or the fast reader's re-encoding), else ``None``.
    """

    value: dict | None
    error: SerdeError | None = None
    is_canonical: bool | None = None
    canonical: bytes | None = None


def read_payload(data: bytes, *, spans: dict | None = None, raw_text: bool = False,
                 index_wanted: bool = False) -> PayloadRead:
    """Read a payload's bytes as the reference's ``serde_json::from_slice::<SessionCheckpointPayloadV1>``.

    Args:
        data: the payload file bytes.
        spans: a dict the fast readers fill with the byte spans of large containers' children
            (``{start: ("object", end, starts, ends, key_starts, keys)}``); emptied when no fast reader
            proved the file.
        raw_text: allow the typed fast read, whose large text fields are ``memoryview`` slices of ``data``.
        index_wanted: record the children of every container of :data:`INDEX_BIG` bytes or more (a
            front-end's tree index), not only those locations need.

    Returns:
        a :class:`PayloadRead`. Never raises for bad input: serde's rejection is ``.error``.
    """
    if spans is None:
        spans = {}
    if raw_text:
        try:
            value = decode_typed(data, S.PAYLOAD, spans=spans, big=INDEX_BIG if index_wanted else None)
        except NotCanonical as e:  # read as serde reads it; pretty-printed
            return PayloadRead(e.value, None, False, e.canonical)
        except NotFast:
            pass
        else:
            return PayloadRead(value, None, True, data)
    try:
        value = decode_fast(data, S.PAYLOAD, spans=spans)
    except NotCanonical as e:  # read exactly as serde reads it, but not canonical (pretty-printed...)
        return PayloadRead(e.value, None, False, None)
    except NotFast:
        spans.clear()
    else:
        return PayloadRead(value, None, True, data)
    try:
        return PayloadRead(decode(data, S.PAYLOAD))
    except SerdeError as e:
        return PayloadRead(None, e)


def read_value(data: bytes, kind: str = "payload"):
    """``data`` read as ``diff`` compares it (FORMAT.md 3.1), at C speed when provable: the value of
    :func:`read_value_form` (a proven payload's typed value, else ``serde_json::Value``).

    Raises:
        SerdeError: serde_json rejects the document (message, byte offset).
    """
    return read_value_form(data, kind)[0]


def read_value_form(data: bytes, kind: str = "payload") -> tuple:
    """``(value, canonical)``: ``data`` read as ``diff`` compares it (FORMAT.md 3.1), and ``True`` when a fast
    reader proved ``data`` exactly the canonical printing of that value (its components are then slices of it).

    A payload (``kind``) the typed fast reader proves, canonical or another printing ``NotCanonical`` accepts, is
    its typed value: the reference's own reading (an ``f32`` field's text narrowed to f32, where serde's ``Value``
    keeps the double its parser makes of it, FORMAT.md 3.1), the same for a file and its pretty-printed copy, and
    the one the descriptor's digests cover. Anything else, payload or descriptor, is ``serde_json::Value``:
    :func:`.fastpath.decode_fast` with the free-form ``Value`` schema when it proves serde's reading (each float as
    serde's own parser reads its text), else the exact serde_json emulation
    (:func:`~inspector.checkpoint.jsontext.reader.parse_value`: a duplicate key, ``-0``, an integer beyond 64 bits,
    odd whitespace, every error).

    Raises:
        SerdeError: serde_json rejects the document (message, byte offset).
    """
    if kind == "payload":
        try:
            return decode_fast(data, S.PAYLOAD), True
        except NotCanonical as e:  # the typed value, proven; not its canonical printing
            return e.value, False
        except NotFast:
            pass
    try:
        return decode_fast(data, VALUE, serde_floats=True), True
    except NotCanonical as e:
        return e.value, False
    except NotFast:
        pass
    return parse_value(data), False


def canonical_form(data: bytes) -> bytes:
    """``canonical_json_v1`` of the JSON document ``data`` (FORMAT.md 3.1): ``data`` itself when a fast read
    proves it canonical, the canonical encoding of the proven value when it is another accepted printing, else
    :func:`~inspector.checkpoint.jsontext.canonical.canonicalize` (the exact serde_json emulation). The bytes are
    the same every way.

    Raises:
        CanonicalError: serde_json rejects the document (message, category, byte offset).
    """
    try:
        decode_fast(data, VALUE, serde_floats=True)
    except NotCanonical as e:
        return encode(e.value)
    except NotFast:
        return canonicalize(data)
    return bytes(data)
