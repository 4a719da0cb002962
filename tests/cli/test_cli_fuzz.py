"""The CLI's verify/report/diff/describe/canon --diff in-process on mutated bytes of the rich pinned
case: whatever the bytes, a verdict or a usage error (exit 0/1/2), never a crash (exit 3), an internal
error, a traceback, a change to the input files, or payload content on stderr.

tests/checkpoint/test_robustness.py fuzzes ``verify()`` on the golden pair; this covers the front-ends
(report and its redacted copy, diff and its patch, canon --diff, describe) on the rich case, which has
every event, binding and policy type, and structural mutations the byte fuzzer rarely reaches (deep
nesting inside free ``Value`` fields, huge and odd numbers, structs as arrays, duplicate keys).
``CLI_FUZZ_EXAMPLES`` sets the number of examples (default 12 per test).
"""

import hashlib
import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings, strategies as st

from inspector.checkpoint import decode, encode, parse_value
from inspector.checkpoint.schema import model as S
from inspector.cli import main
from tests.checkpoint.test_robustness import _pointers, _set, rebind as _rebind
from tests.conftest import CASES_PINNED

PAYLOAD = (CASES_PINNED / "001-valid-rich-resume.payload.json").read_bytes()
DESCRIPTOR = (CASES_PINNED / "001-valid-rich-resume.descriptor.json").read_bytes()
SETTINGS = settings(max_examples=int(os.environ.get("CLI_FUZZ_EXAMPLES", "12")), deadline=None, derandomize=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.function_scoped_fixture])
#: A string of the payload's own content that no message of ours may quote on stderr.
SECRET = "pinned-secret-7f3a"


def rebind(payload: bytes) -> bytes:
    """The rich descriptor re-pointed at ``payload`` (outer size/digest + descriptor digest)."""
    return _rebind(payload, DESCRIPTOR)


def _state(paths):
    return {p: (hashlib.sha256(p.read_bytes()).hexdigest(), p.stat().st_mtime_ns) for p in paths}


def run_all(capsysbinary, payload: bytes, descriptor: bytes) -> None:
    """Every headless command on the pair; asserts the invariants of the module docstring."""
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        p, d, g = base / "m.payload.json", base / "m.descriptor.json", base / "g.payload.json"
        p.write_bytes(payload)
        d.write_bytes(descriptor)
        g.write_bytes(PAYLOAD)
        before = _state([p, d, g])
        runs = [["verify", p, d, "--format", "json"], ["verify", p, "--format", "sarif"], ["verify", d, p],
                ["report", p, d, "--format", "json", "--redacted-payload", base / "r1.json"],
                ["report", p, d, "--format", "html", "-o", base / "o.html"],
                ["describe", p], ["canon", "--diff", p], ["canon", p],
                ["diff", g, p, "--format", "json"], ["diff", p, g, "--format", "patch"], ["diff", p, g]]
        for argv in runs:
            code = main([str(a) for a in argv])
            out, err = capsysbinary.readouterr()
            text = err.decode("utf-8", "replace")
            assert code in (0, 1, 2), (argv[0], code, text[-400:])
            assert "internal error" not in text and "Traceback" not in text, (argv[0], text[-400:])
            assert SECRET not in text or argv[0] in ("canon", "describe", "diff"), (argv[0], text[-400:])
            if argv[0] == "report":
                assert SECRET.encode() not in out
            assert len(out) < 300 * len(payload) + (1 << 20), (argv[0], len(out))  # output linear in the input
        assert _state([p, d, g]) == before


def _with_secret(value):
    """The rich payload with a recognisable secret in a message's text (content that must stay inside)."""
    for m in value["logical_resume"]["messages"]:
        for block in m.get("content", []):
            if isinstance(block, dict) and isinstance(block.get("text"), str):
                block["text"] = SECRET
                return value
    raise AssertionError("no text block in the rich case")


def _value(data: bytes):
    """The payload as the reference reads it (typed: f32 fields stay f32), so ``encode`` gives canonical bytes."""
    return decode(data, S.PAYLOAD)


BASE = encode(_with_secret(_value(PAYLOAD)))
assert parse_value(BASE) is not None and encode(_value(BASE)) == BASE


def _get(value, pointer):
    for part in pointer.lstrip("/").split("/"):
        value = value[int(part)] if isinstance(value, list) else value[part]
    return value


POINTERS = [p for p in _pointers(_value(BASE)) if p]
OBJECTS = [p for p in POINTERS if isinstance(_get(_value(BASE), p), dict)]


#: JSON texts spliced in place of a value: nesting past serde's 127 levels, numbers serde refuses
#: or reads oddly, structs written as arrays, duplicate keys, odd strings.
ODD = st.sampled_from([
    b"[" * 10000 + b"]" * 10000, b'{"a":' * 3000 + b"1" + b"}" * 3000, b"[" * 127 + b"]" * 127,
    b"9" * 5000, b"-" + b"9" * 5000, b"1e400", b"-1e400", b"-0", b"-0.0", b"0." + b"0" * 5000 + b"1",
    b"1" + b"0" * 400 + b".5e-400", b"18446744073709551616", b"-9223372036854775809", b"4294967296",
    b"[]", b"{}", b'[1,"x",null]', b'{"a":1,"a":2}', b'"\\ud800"', b'"\\u0000"', b'"\xff"', b"null", b"true",
    b'"' + b"x" * 70000 + b'"', b'"2026-13-45T99:99:99Z"', b"1.0", b"0.1", b"3.4028236e38",
])


def _splice(value, pointer, text: bytes) -> bytes:
    marker = "\u2603splice\u2603"
    _set(value, pointer, marker)
    return encode(value).replace(('"' + marker + '"').encode(), text, 1)


@SETTINGS
@given(st.data())
def test_cli_never_crashes_on_byte_mutations(capsysbinary, data):
    pos = data.draw(st.integers(0, len(BASE)))
    mutated = BASE[:pos] + data.draw(st.binary(max_size=4)) + BASE[pos + data.draw(st.integers(0, 4)):]
    run_all(capsysbinary, mutated, rebind(mutated))


@SETTINGS
@given(st.sampled_from(POINTERS), ODD)
def test_cli_never_crashes_on_odd_values_at_any_field(capsysbinary, pointer, text):
    mutated = _splice(_value(BASE), pointer, text)
    run_all(capsysbinary, mutated, rebind(mutated))


@SETTINGS
@given(st.sampled_from(OBJECTS), ODD)
def test_cli_never_crashes_on_odd_values_under_an_unknown_key(capsysbinary, pointer, text):
    """An unknown key's value is skipped by serde unchecked (deep, out of range, invalid UTF-8 all pass)."""
    value = _value(BASE)
    _get(value, pointer)["zzzz_unknown"] = None
    mutated = _splice(value, pointer + "/zzzz_unknown", text)
    run_all(capsysbinary, mutated, rebind(mutated))


def test_struct_as_array_and_duplicate_keys(capsysbinary):
    """Every object of the rich case written as the array of its values (serde's struct-as-seq), and
    with its first key repeated: verdicts, never crashes."""
    for pointer in OBJECTS[:: max(1, len(OBJECTS) // 12)]:
        v = _value(BASE)
        node = _get(v, pointer)
        as_array = encode(list(node.values())) if _encodable(list(node.values())) else None
        if as_array is not None:
            mutated = _splice(v, pointer, as_array)
            run_all(capsysbinary, mutated, rebind(mutated))
        if node:
            k = next(iter(node))
            dup = encode(node)[:-1] + b"," + encode({k: node[k]})[1:]
            mutated = _splice(_value(BASE), pointer, dup)
            run_all(capsysbinary, mutated, rebind(mutated))


def _encodable(v) -> bool:
    try:
        encode(v)
        return True
    except TypeError:
        return False
