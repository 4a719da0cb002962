"""serde_json 1.0.151's number reading (``parse_integer`` .. ``f64_from_parts``, ``ignore_integer``)
as a mixin of :class:`~.jsontext.Reader`: the not-correctly-rounded decimal -> f64 conversion
of serde_json without ``float_roundtrip``, u64/i64 results, overflow into f64, and the error
positions of ``invalid number`` / ``number out of range`` (FORMAT.md 3.1).
"""

from __future__ import annotations

import re

__all__ = ["NumberReader", "INVALID_NUMBER", "NUMBER_OUT_OF_RANGE"]

U64_MAX = (1 << 64) - 1
I32_MAX = (1 << 31) - 1
I32_MIN = -(1 << 31)
_POW10 = [float("1e%d" % k) for k in range(309)]
_DIGITS = re.compile(rb"[0-9]*")

EOF_VALUE = "EOF while parsing a value"
INVALID_NUMBER = "invalid number"
NUMBER_OUT_OF_RANGE = "number out of range"


class NumberReader:
    """The number methods of serde_json's ``Deserializer``; mixed into :class:`~.jsontext.Reader`,
    which provides ``data``, ``n``, ``i``, ``error`` and ``peek_error``."""

    __slots__ = ()

    def _peek_or_null(self) -> int:
        return self.data[self.i] if self.i < self.n else 0

    def parse_integer(self, positive: bool) -> int | float:
        """serde_json ``parse_integer``: u64 digits, overflowing into the f64 path."""
        if self.i >= self.n:
            raise self.error(EOF_VALUE)
        c = self.data[self.i]
        self.i += 1
        if c == 0x30:
            if 0x30 <= self._peek_or_null() <= 0x39:
                raise self.peek_error(INVALID_NUMBER)
            return self._parse_number(positive, 0)
        if not 0x31 <= c <= 0x39:
            raise self.error(INVALID_NUMBER)
        # Fast path: the whole run of digits fits in u64.
        j = _DIGITS.match(self.data, self.i).end()
        digits = self.data[self.i - 1 : j]
        if len(digits) <= 19:
            self.i = j
            return self._parse_number(positive, int(digits))
        significand = c - 0x30
        while True:
            d = self._peek_or_null()
            if 0x30 <= d <= 0x39:
                digit = d - 0x30
                if _overflow(significand, digit, U64_MAX):
                    return self._parse_long_integer(positive, significand)
                self.i += 1
                significand = significand * 10 + digit
            else:
                return self._parse_number(positive, significand)

    def _parse_number(self, positive: bool, significand: int) -> int | float:
        c = self._peek_or_null()
        if c == 0x2E:
            return self._parse_decimal(positive, significand, 0)
        if c in (0x65, 0x45):
            return self._parse_exponent(positive, significand, 0)
        if positive:
            return significand
        as_i64 = significand - (1 << 64) if significand >= (1 << 63) else significand
        neg = ((-as_i64 + (1 << 63)) % (1 << 64)) - (1 << 63)
        if neg >= 0:
            return -float(significand)
        return neg

    def _parse_decimal(self, positive: bool, significand: int, exp_before: int) -> float:
        self.i += 1
        exp_after = 0
        data = self.data
        while True:
            d = data[self.i] if self.i < self.n else 0
            if not 0x30 <= d <= 0x39:
                break
            digit = d - 0x30
            if _overflow(significand, digit, U64_MAX):
                return self._parse_decimal_overflow(positive, significand, exp_before + exp_after)
            self.i += 1
            significand = significand * 10 + digit
            exp_after -= 1
        if exp_after == 0:
            if self.i < self.n:
                raise self.peek_error(INVALID_NUMBER)
            raise self.peek_error(EOF_VALUE)
        exponent = exp_before + exp_after
        if self._peek_or_null() in (0x65, 0x45):
            return self._parse_exponent(positive, significand, exponent)
        return self._f64_from_parts(positive, significand, exponent)

    def _parse_exponent(self, positive: bool, significand: int, starting_exp: int) -> float:
        self.i += 1
        c = self._peek_or_null()
        positive_exp = True
        if c == 0x2B:
            self.i += 1
        elif c == 0x2D:
            self.i += 1
            positive_exp = False
        if self.i >= self.n:
            raise self.error(EOF_VALUE)
        c = self.data[self.i]
        self.i += 1
        if not 0x30 <= c <= 0x39:
            raise self.error(INVALID_NUMBER)
        exp = c - 0x30
        while True:
            c = self._peek_or_null()
            if not 0x30 <= c <= 0x39:
                break
            self.i += 1
            digit = c - 0x30
            if _overflow(exp, digit, I32_MAX):
                return self._parse_exponent_overflow(positive, significand == 0, positive_exp)
            exp = exp * 10 + digit
        final = starting_exp + exp if positive_exp else starting_exp - exp
        final = max(I32_MIN, min(I32_MAX, final))
        return self._f64_from_parts(positive, significand, final)

    def _parse_exponent_overflow(self, positive: bool, zero_significand: bool, positive_exp: bool) -> float:
        if not zero_significand and positive_exp:
            raise self.error(NUMBER_OUT_OF_RANGE)
        self.i = _DIGITS.match(self.data, self.i).end()
        return 0.0 if positive else -0.0

    def _parse_decimal_overflow(self, positive: bool, significand: int, exponent: int) -> float:
        self.i = _DIGITS.match(self.data, self.i).end()
        if self._peek_or_null() in (0x65, 0x45):
            return self._parse_exponent(positive, significand, exponent)
        return self._f64_from_parts(positive, significand, exponent)

    def _parse_long_integer(self, positive: bool, significand: int) -> float:
        j = _DIGITS.match(self.data, self.i).end()
        exponent = j - self.i
        self.i = j
        c = self._peek_or_null()
        if c == 0x2E:
            return self._parse_decimal(positive, significand, exponent)
        if c in (0x65, 0x45):
            return self._parse_exponent(positive, significand, exponent)
        return self._f64_from_parts(positive, significand, exponent)

    def _f64_from_parts(self, positive: bool, significand: int, exponent: int) -> float:
        f = float(significand)
        while True:
            mag = abs(exponent) if exponent != I32_MIN else None
            if mag is not None and mag < 309:
                if exponent >= 0:
                    f *= _POW10[mag]
                    if f == float("inf"):
                        raise self.error(NUMBER_OUT_OF_RANGE)
                else:
                    f /= _POW10[mag]
                break
            if f == 0.0:
                break
            if exponent >= 0:
                raise self.error(NUMBER_OUT_OF_RANGE)
            f /= 1e308
            exponent += 308
        return f if positive else -f

    def ignore_integer(self) -> None:
        """serde_json ``ignore_integer`` (+ decimal/exponent): syntax only, no value."""
        c = self.data[self.i] if self.i < self.n else 0
        self.i += 1 if self.i < self.n else 0
        if c == 0x30:
            if 0x30 <= self._peek_or_null() <= 0x39:
                raise self.peek_error(INVALID_NUMBER)
        elif 0x31 <= c <= 0x39:
            self.i = _DIGITS.match(self.data, self.i).end()
        else:
            raise self.error(INVALID_NUMBER)
        c = self._peek_or_null()
        if c == 0x2E:
            self.i += 1
            j = _DIGITS.match(self.data, self.i).end()
            if j == self.i:
                raise self.peek_error(INVALID_NUMBER)
            self.i = j
            c = self._peek_or_null()
        if c in (0x65, 0x45):
            self.i += 1
            if self._peek_or_null() in (0x2B, 0x2D):
                self.i += 1
            c = self.data[self.i] if self.i < self.n else 0
            if self.i < self.n:
                self.i += 1
            if not 0x30 <= c <= 0x39:
                raise self.error(INVALID_NUMBER)
            self.i = _DIGITS.match(self.data, self.i).end()


def _overflow(a: int, b: int, c: int) -> bool:
    """serde_json's ``overflow!(a * 10 + b, c)``."""
    return a >= c // 10 and (a > c // 10 or b > c % 10)
