"""``LlmCostRecord.timestamp``: the reference's stand-in for ``chrono::DateTime<Utc>`` (FORMAT.md 4.13).

Reads ``YYYY-MM-DD(T|t| )HH:MM:SS[.digits](Z|z|±HH:MM)`` with any offset and converts it to UTC
(fraction digits after the ninth are ignored); writes chrono's ``SecondsFormat::AutoSi`` form
with ``Z`` and 0, 3, 6 or 9 fraction digits. So ``+00:00``, another offset or a non-minimal
fraction re-encodes differently (P-CANONICAL). Error texts are chrono's ``ParseErrorKind``
Display texts, exactly as the reference's ``UtcTimestamp::parse`` returns them.
"""

from __future__ import annotations

import re

__all__ = ["parse_timestamp", "normalize_timestamp", "OUT_OF_RANGE", "INVALID", "TOO_SHORT", "TOO_LONG"]

OUT_OF_RANGE = "input is out of range"
INVALID = "input contains invalid characters"
TOO_SHORT = "premature end of input"
TOO_LONG = "trailing input"


class TimestampError(ValueError):
    """A timestamp the reference rejects; ``str(e)`` is chrono's text."""


def _days_from_civil(year: int, month: int, day: int) -> int:
    y = year - 1 if month <= 2 else year
    era = y // 400  # floor division: Rust spells it (y - 399) / 400 for negative y
    yoe = y - era * 400
    doy = (153 * (month - 3 if month > 2 else month + 9) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146_097 + doe - 719_468


def _civil_from_days(days: int) -> tuple[int, int, int]:
    z = days + 719_468
    era = z // 146_097  # floor division, as Rust's (z - 146_096) / 146_097 for negative z
    doe = z - era * 146_097
    yoe = (doe - doe // 1460 + doe // 36_524 - doe // 146_096) // 365
    y = yoe + era * 400
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    d = doy - (153 * mp + 2) // 5 + 1
    m = mp + 3 if mp < 10 else mp - 9
    return (y + 1 if m <= 2 else y), m, d


def _days_in_month(year: int, month: int) -> int:
    if month in (1, 3, 5, 7, 8, 10, 12):
        return 31
    if month in (4, 6, 9, 11):
        return 30
    return 29 if (year % 4 == 0 and year % 100 != 0) or year % 400 == 0 else 28


def parse_timestamp(s: str) -> tuple[int, int, int, bool]:
    """Parse like the reference: ``(days since 1970-01-01, second of the UTC day, nanos, leap)``.

    Raises:
        TimestampError: with chrono's text (``premature end of input``, ...).
    """
    b = s.encode("utf-8")
    n = len(b)
    i = 0

    def digits(count: int) -> int:
        nonlocal i
        v = 0
        for _ in range(count):
            if i >= n:
                raise TimestampError(TOO_SHORT)
            c = b[i]
            if not 0x30 <= c <= 0x39:
                raise TimestampError(INVALID)
            v = v * 10 + c - 0x30
            i += 1
        return v

    def lit(chars: bytes) -> int:
        nonlocal i
        if i >= n:
            raise TimestampError(TOO_SHORT)
        c = b[i]
        if c not in chars:
            raise TimestampError(INVALID)
        i += 1
        return c

    year = digits(4)
    lit(b"-")
    month = digits(2)
    lit(b"-")
    day = digits(2)
    lit(b"Tt ")
    hour = digits(2)
    lit(b":")
    minute = digits(2)
    lit(b":")
    second = digits(2)
    nanos = 0
    if i < n and b[i] == 0x2E:
        i += 1
        start = i
        while i < n and 0x30 <= b[i] <= 0x39:
            if i - start < 9:
                nanos = nanos * 10 + b[i] - 0x30
            i += 1
        count = i - start
        if count == 0:
            raise TimestampError(TOO_SHORT if i >= n else INVALID)
        if count < 9:
            nanos *= 10 ** (9 - count)
    sign = lit(b"Zz+-")
    offset = 0
    if sign in (0x2B, 0x2D):
        oh = digits(2)
        lit(b":")
        om = digits(2)
        if oh > 23 or om > 59:
            raise TimestampError(OUT_OF_RANGE)
        offset = oh * 3600 + om * 60
        if sign == 0x2D:
            offset = -offset
    if i != n:
        raise TimestampError(TOO_LONG)
    if not 1 <= month <= 12 or day == 0 or day > _days_in_month(year, month):
        raise TimestampError(OUT_OF_RANGE)
    if hour > 23 or minute > 59 or second > 60:
        raise TimestampError(OUT_OF_RANGE)
    leap = second == 60
    local = _days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + min(second, 59)
    utc = local - offset
    return utc // 86_400, utc % 86_400, nanos, leap


def format_timestamp(days: int, secs: int, nanos: int, leap: bool) -> str:
    """chrono ``to_rfc3339_opts(SecondsFormat::AutoSi, true)`` of a parsed timestamp."""
    y, m, d = _civil_from_days(days)
    year = "%04d" % y if 0 <= y <= 9999 else "%+05d" % y
    sec = secs % 60 + (1 if leap else 0)
    out = "%s-%02d-%02dT%02d:%02d:%02d" % (year, m, d, secs // 3600, secs // 60 % 60, sec)
    if nanos == 0:
        pass
    elif nanos % 1_000_000 == 0:
        out += ".%03d" % (nanos // 1_000_000)
    elif nanos % 1_000 == 0:
        out += ".%06d" % (nanos // 1_000)
    else:
        out += ".%09d" % nanos
    return out + "Z"


#: chrono's own ``AutoSi`` form, which re-encodes unchanged: ``YYYY-MM-DDTHH:MM:SS``, a fraction of
#: 3, 6 or 9 digits whose last group of three is not ``000`` (else it would be shorter), ``Z``.
#: Months 01-12, days 01-31, hours 00-23, minutes 00-59, seconds 00-60 (60: a leap second); a
#: day past 28 is checked against its month by :func:`normalize_timestamp`. ASCII digits only.
_CANONICAL = re.compile(
    r"[0-9]{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12][0-9]|3[01])"
    r"T(?:[01][0-9]|2[0-3]):[0-5][0-9]:(?:[0-5][0-9]|60)"
    r"(?:\.(?:[0-9]{3}){0,2}(?:[0-9][0-9][1-9]|[0-9][1-9][0-9]|[1-9][0-9][0-9]))?Z")


def normalize_timestamp(s: str) -> str:
    """The reference's re-encoding of timestamp text ``s``; raises :class:`TimestampError`.

    Text already in chrono's form (:data:`_CANONICAL`: what A3S Code writes, the common case) is
    its own re-encoding and comes back as is, without parsing; anything else goes through the full
    parser (:func:`parse_timestamp`, :func:`format_timestamp`)."""
    if _CANONICAL.fullmatch(s) is not None and (
            s[8:10] <= "28" or int(s[8:10]) <= _days_in_month(int(s[:4]), int(s[5:7]))):
        return s
    return format_timestamp(*parse_timestamp(s))
