"""``normalize_timestamp``'s fast path (text already in chrono's ``AutoSi`` form is returned as is)
agrees with the full parser on every input: generated timestamps near and far from that form, the
fast path's own pattern, and every cost-record timestamp of the fixtures (FORMAT.md 4.13)."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.checkpoint.schema.timestamp import (
    _CANONICAL, INVALID, OUT_OF_RANGE, TOO_LONG, TOO_SHORT, TimestampError, format_timestamp,
    normalize_timestamp, parse_timestamp,
)

ROOT = Path(__file__).resolve().parents[3]
FIXTURE_DIRS = [Path("/work/shared/fixtures"), ROOT / "tests" / "data" / "fixtures"]


def _outcome(fn, s):
    try:
        return "ok", fn(s)
    except TimestampError as e:
        return "error", str(e)


def _slow(s: str) -> str:
    return format_timestamp(*parse_timestamp(s))


def _agree(s: str) -> None:
    assert _outcome(normalize_timestamp, s) == _outcome(_slow, s), s


_two = st.integers(0, 99).map("{:02d}".format)
_fraction = st.one_of(st.just(""), st.text("0123456789", max_size=12).map(lambda d: "." + d),
                      st.sampled_from([".000", ".000000", ".000000000", ".100", ".000100", ".000000001",
                                       ".120", ".123000", ".123456000", ".5", ".1234567890"]))
_near = st.builds(
    lambda y, mo, d, sep, h, mi, se, fr, tz, tail: f"{y}-{mo}-{d}{sep}{h}:{mi}:{se}{fr}{tz}{tail}",
    st.one_of(st.integers(0, 9999).map("{:04d}".format), st.sampled_from(["0000", "1600", "1900", "2000", "2024",
                                                                          "2100", "9999", "999", "12345"])),
    st.one_of(st.integers(0, 13).map("{:02d}".format), st.just("1")),
    st.one_of(st.integers(0, 32).map("{:02d}".format), st.sampled_from(["28", "29", "30", "31", "٣"])),
    st.sampled_from(["T", "T", "T", "t", " ", "_"]),
    st.one_of(st.integers(0, 25).map("{:02d}".format), st.just("2")), _two, st.one_of(_two, st.just("60")),
    _fraction,
    st.sampled_from(["Z", "Z", "Z", "z", "+00:00", "-00:00", "+05:30", "-23:59", "+24:00", "+05:60", "", "+05"]),
    st.sampled_from(["", "", "", "Z", " ", "\n", "0"]),
)


@settings(max_examples=2000, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(_near)
def test_fast_path_agrees_with_the_parser_near_chronos_form(s):
    _agree(s)


@settings(max_examples=800, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.from_regex(_CANONICAL, fullmatch=True))
def test_fast_path_agrees_with_the_parser_on_its_own_pattern(s):
    # the pattern admits 02-30, 04-31, 1900-02-29...: the day check must send those to the parser
    _agree(s)


@settings(max_examples=500, deadline=None, derandomize=True)
@given(st.text(max_size=40))
def test_fast_path_agrees_with_the_parser_on_any_text(s):
    _agree(s)


@pytest.mark.parametrize("text, expected", [
    ("2026-09-01T10:00:00Z", "2026-09-01T10:00:00Z"),
    ("2024-02-29T23:59:60.123Z", "2024-02-29T23:59:60.123Z"),
    ("0000-01-01T00:00:00.000000001Z", "0000-01-01T00:00:00.000000001Z"),
    ("2026-09-01T10:00:00.500Z", "2026-09-01T10:00:00.500Z"),
    ("2026-09-01T10:00:00.5Z", "2026-09-01T10:00:00.500Z"),
    ("2026-09-01T10:00:00.123000Z", "2026-09-01T10:00:00.123Z"),
    ("2026-09-01T10:00:00.000Z", "2026-09-01T10:00:00Z"),
    ("2026-09-01T12:00:00+02:00", "2026-09-01T10:00:00Z"),
    ("2026-09-01t10:00:00z", "2026-09-01T10:00:00Z"),
])
def test_re_encodings(text, expected):
    assert normalize_timestamp(text) == expected
    assert _slow(text) == expected


@pytest.mark.parametrize("text, error", [
    ("2023-02-29T00:00:00Z", OUT_OF_RANGE), ("1900-02-29T00:00:00Z", OUT_OF_RANGE),
    ("2026-04-31T00:00:00Z", OUT_OF_RANGE), ("2026-09-01T24:00:00Z", OUT_OF_RANGE),
    ("2026-09-01T10:00:00", TOO_SHORT), ("2026-09-01T10:00:00ZZ", TOO_LONG),
    ("2026-09-01T10:00:0٣Z", INVALID),
])
def test_rejections(text, error):
    with pytest.raises(TimestampError) as e:
        normalize_timestamp(text)
    assert str(e.value) == error


def _fixture_timestamps() -> list[str]:
    found = []
    for folder in FIXTURE_DIRS:
        for path in sorted(folder.rglob("*.json")):
            try:
                doc = orjson.loads(path.read_bytes())
            except orjson.JSONDecodeError:
                continue
            stack = [doc]
            while stack:
                v = stack.pop()
                if isinstance(v, dict):
                    for k, x in v.items():
                        if k == "timestamp" and isinstance(x, str):
                            found.append(x)
                        else:
                            stack.append(x)
                elif isinstance(v, list):
                    stack.extend(v)
    return found


def test_fixture_timestamps_agree_and_take_the_fast_path():
    stamps = _fixture_timestamps()
    assert len(stamps) >= 100
    fast = 0
    for s in stamps:
        _agree(s)
        if _CANONICAL.fullmatch(s):
            fast += 1
            assert normalize_timestamp(s) is s  # returned as is: the parser did not run
    assert fast >= 100
