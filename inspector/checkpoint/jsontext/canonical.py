"""``canonical_json_v1``: the reference's canonical encoding (FORMAT.md 3.1).

``canonical_json_v1(doc) = serde_json::to_vec(sort_keys(serde_json::from_slice::<Value>(doc)))``:
parse with serde_json's exact rules (:mod:`.jsontext`), sort every object's keys by UTF-8
byte order (Python ``str`` order, which is code-point order and equals UTF-8 byte order),
keep array order, and print compactly with raw UTF-8 and serde_json's float layout.

Printing is delegated to orjson (``OPT_SORT_KEYS``), which agrees with serde_json 1.0.151
byte for byte on every value a parsed document can hold (strings, 64-bit integers, finite
floats including ``-0.0``); ``tests/checkpoint/test_canonical.py`` proves it against all
6,000 reference vectors and :func:`encode_reference` (a plain-Python model of serde_json's
writer) proves it on generated values.
"""

from __future__ import annotations

import math

import orjson

from inspector.checkpoint.jsontext.reader import SerdeError, parse_value

__all__ = ["canonicalize", "encode", "encode_reference", "format_f64", "CanonicalError"]


class CanonicalError(ValueError):
    """The document is rejected by serde_json.

    Attributes:
        serde: the underlying :class:`~.jsontext.SerdeError` (message, category, line,
            column, byte ``offset``).
    """

    def __init__(self, serde: SerdeError):
        super().__init__(str(serde))
        self.serde = serde

    @property
    def offset(self) -> int | None:
        """Byte offset of the offending byte (:attr:`~.jsontext.SerdeError.offset`; ``len(data)``
        for an ``eof`` error). serde_json's line/column may be a byte or more later."""
        return self.serde.offset

    @property
    def category(self) -> str:
        """serde_json's error category: ``syntax``, ``data`` or ``eof``."""
        return self.serde.category


def encode(value) -> bytes:
    """Compact, key-sorted serde_json bytes of an already parsed value.

    Args:
        value: ``dict``/``list``/``str``/``int`` (within [-2**63, 2**64-1])/``float``
            (finite)/``bool``/``None``.

    Returns:
        canonical JSON bytes (no trailing newline).

        A :class:`memoryview` stands for a text field of :func:`.typedfast.decode_typed`: a slice of the
        file holding a string token already proven canonical, printed verbatim.

    Raises:
        TypeError: for values outside the JSON data model (orjson's error).
    """
    return orjson.dumps(value, option=orjson.OPT_SORT_KEYS, default=_raw_token)


def _raw_token(o):
    """orjson's ``default``: a raw text slice (:func:`encode`) is printed as it is."""
    if type(o) is memoryview:
        return orjson.Fragment(o.tobytes())
    raise TypeError(type(o).__name__)


def canonicalize(data: bytes) -> bytes:
    """Return ``canonical_json_v1`` of the JSON document ``data`` (FORMAT.md 3.1).

    Raises:
        CanonicalError: serde_json rejects the document (BOM, NaN, invalid UTF-8, lone
            surrogate, depth over 127, number out of range, trailing characters, ...);
            carries serde_json's message, category and byte offset.
    """
    try:
        value = parse_value(data)
    except SerdeError as e:
        raise CanonicalError(e) from None
    return encode(value)


def format_f64(x: float, plus_exponent: bool = True) -> str:
    """serde_json 1.0.151 (zmij) spelling of a finite f64: ``1.0``, ``1e+16``, ``1e-7``.

    Shortest round-trip digits (Python ``repr``'s digits), laid out as ryu/zmij do:
    positional for decimal exponents in (-5, 16], else ``d.ddde±x`` with ``+`` on positive
    exponents (``plus_exponent=False`` gives the older ryu spelling ``1e20``, FORMAT.md 3.4).
    """
    if x == 0.0:
        return "-0.0" if math.copysign(1.0, x) < 0 else "0.0"
    sign = "-" if x < 0 else ""
    r = repr(abs(x))
    mantissa, _, exp = r.partition("e")
    exp10 = int(exp) if exp else 0
    if "." in mantissa:
        intpart, frac = mantissa.split(".")
    else:
        intpart, frac = mantissa, ""
    if frac == "0":
        frac = ""
    digits = (intpart + frac).lstrip("0")
    # value = 0.digits * 10**kk  (kk = position of the decimal point)
    kk = len(intpart.lstrip("0")) + exp10 if intpart.strip("0") else exp10 - (len(frac) - len(frac.lstrip("0")))
    digits = digits.rstrip("0") or "0"
    length = len(digits)
    k = kk - length
    if 0 <= k and kk <= 16:
        return sign + digits + "0" * k + ".0"
    if 0 < kk <= 16:
        return sign + digits[:kk] + "." + digits[kk:]
    if -5 < kk <= 0:
        return sign + "0." + "0" * (-kk) + digits
    e = kk - 1
    es = (("e+%d" if plus_exponent else "e%d") % e) if e >= 0 else ("e%d" % e)
    if length == 1:
        return sign + digits + es
    return sign + digits[0] + "." + digits[1:] + es


_ESC = {0x22: '\\"', 0x5C: "\\\\", 0x08: "\\b", 0x0C: "\\f", 0x0A: "\\n", 0x0D: "\\r", 0x09: "\\t"}


def _encode_str(s: str) -> str:
    out = ['"']
    for ch in s:
        o = ord(ch)
        if o in _ESC:
            out.append(_ESC[o])
        elif o < 0x20:
            out.append("\\u%04x" % o)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def encode_reference(value, plus_exponent: bool = True) -> bytes:
    """Plain-Python model of ``serde_json::to_vec(sort_keys(value))`` (slow; for tests).

    Same contract as :func:`encode`; exists so the orjson fast path can be checked against
    an independent, readable implementation of serde_json's writer.
    """

    def enc(v) -> str:
        if v is None:
            return "null"
        if v is True:
            return "true"
        if v is False:
            return "false"
        if isinstance(v, int):
            return str(v)
        if isinstance(v, float):
            return format_f64(v, plus_exponent)
        if isinstance(v, str):
            return _encode_str(v)
        if isinstance(v, list):
            return "[" + ",".join(enc(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{" + ",".join(_encode_str(k) + ":" + enc(v[k]) for k in sorted(v)) + "}"
        raise TypeError(type(v).__name__)

    return enc(value).encode("utf-8")
