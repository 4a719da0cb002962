"""serde's and serde_json's error texts, and the value forms they are built from.

``invalid type: X, expected Y``, ``invalid value``, ``unknown field``/``unknown variant`` with
serde's ``expected one of`` lists, integer width checks (``expected i32``), Rust ``{:?}`` of a
string, and the f32 widening of FORMAT.md 3.1. Shared by the streaming decode (:mod:`.typed`),
the buffered-content decode (:mod:`.typed_content`) and the fast path (:mod:`.fastpath`).
"""

from __future__ import annotations

import bisect
import math
import struct

from inspector.checkpoint.schema import model as S
from inspector.checkpoint.jsontext.canonical import format_f64
from inspector.checkpoint.jsontext.reader import SerdeError
from inspector.checkpoint.jsontext.rust_debug import ESCAPED_RANGES
from inspector.checkpoint.slotted import KEY, VARIANT, Text, fmt, ours, value as _slot

__all__ = ["widen_f32", "rust_debug_str", "CMap", "INT_RANGES"]

U32_MAX = (1 << 32) - 1
U64_MAX = (1 << 64) - 1
I64_MAX = (1 << 63) - 1
I64_MIN = -(1 << 63)
#: Accepted range of each integer width (serde's primitive visitors).
INT_RANGES = {
    "u16": (0, (1 << 16) - 1), "u32": (0, U32_MAX), "u64": (0, U64_MAX), "usize": (0, U64_MAX),
    "i32": (-(1 << 31), (1 << 31) - 1), "i64": (I64_MIN, I64_MAX),
}


def widen_f32(x: float) -> float | None:
    """``x as f32`` widened back to f64 (what an f32 field re-encodes as); None if not finite."""
    try:
        y = struct.unpack("<f", struct.pack("<f", x))[0]
    except OverflowError:
        return None
    return y if math.isfinite(y) else None


def rust_debug_str(s: str) -> str:
    """Rust ``{:?}`` of a string: double-quoted with Rust's ``escape_debug`` rules.

    ``\\t \\r \\n \\\\ \\" \\0`` get their short escapes; every other character that
    Rust does not print raw (non-printable, Grapheme_Extend) becomes ``\\u{hex}``. Which ones
    is decided by Rust's own tables (:mod:`.rust_debug`, generated from the reference's
    toolchain), so messages such as ``run "cafe\\u{301}"`` match the reference verbatim.
    """
    out = ['"']
    for ch in s:
        short = _SHORT_ESCAPES.get(ch)
        if short is not None:
            out.append(short)
            continue
        o = ord(ch)
        i = bisect.bisect_right(_ESC_STARTS, o) - 1
        if i >= 0 and o <= ESCAPED_RANGES[i][1]:
            out.append("\\u{%x}" % o)
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


_SHORT_ESCAPES = {"\t": "\\t", "\r": "\\r", "\n": "\\n", "\\": "\\\\", '"': '\\"', "\0": "\\0"}
_ESC_STARTS = [a for a, _b in ESCAPED_RANGES]


def _one_of(names) -> str:
    names = list(names)
    if len(names) == 1:
        return "`%s`" % names[0]
    if len(names) == 2:
        return "`%s` or `%s`" % tuple(names)
    return "one of " + ", ".join("`%s`" % n for n in names)


def _unknown_field(key: str, names) -> SerdeError:
    k = _slot(key, role=KEY)  # the key as read: a slot (serde's text gives no place, only line/column)
    if not names:
        return SerdeError(fmt("unknown field `{}`, there are no fields", k))
    return SerdeError(fmt("unknown field `{}`, expected {}", k, ours(_one_of(names))))


def _unknown_variant(v: str, names) -> SerdeError:
    val = _slot(v, role=VARIANT)
    if not names:
        return SerdeError(fmt("unknown variant `{}`, there are no variants", val))
    return SerdeError(fmt("unknown variant `{}`, expected {}", val, ours(_one_of(names))))


class CMap(list):
    """serde ``Content::Map``: a list of ``(key, value)`` pairs (duplicates kept)."""


def _unexpected(v) -> Text:
    """serde_json's ``JsonUnexpected`` display of a value, the value itself a slot (of no known
    place: serde's text gives a line and column only)."""
    if v is None:
        return Text("null")
    if v is True or v is False:
        return fmt("boolean `{}`", _slot(v, form=lambda b: "true" if b else "false"))
    if isinstance(v, int):
        return fmt("integer `{}`", _slot(v, form=lambda i: "%d" % i))
    if isinstance(v, float):
        return fmt("floating point `{}`", _slot(v, form=format_f64))
    if isinstance(v, str):
        return "string " + _slot(v, form=rust_debug_str)
    if isinstance(v, list) and not isinstance(v, CMap):
        return Text("sequence")
    return Text("map")


def _invalid_type(v, expecting: str) -> SerdeError:
    return SerdeError(fmt("invalid type: {}, expected {}", _unexpected(v), ours(expecting)))


def _invalid_value(v, expecting: str) -> SerdeError:
    return SerdeError(fmt("invalid value: {}, expected {}", _unexpected(v), ours(expecting)))


def _number(t: S.Prim, v):
    """A primitive number visitor (serde's impls) applied to a parsed number ``v``."""
    name = t.name
    if name == "f64":
        return float(v)
    if name == "f32":
        return widen_f32(float(v))
    if isinstance(v, float):
        raise _invalid_type(v, t.expecting)
    lo, hi = INT_RANGES[name]
    if v < lo or v > hi:
        raise _invalid_value(v, t.expecting)
    return v
