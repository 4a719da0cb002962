"""Every P-CANONICAL difference named by its own class: a canonical payload re-printed with
any mix of whitespace, CRLF line breaks, another key order, escaped characters and other number
spellings is diagnosed with exactly the classes applied, and turning those classes' changes off again
gives the canonical bytes back (the classes named are the whole explanation)."""

from __future__ import annotations

import json

import orjson
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from inspector.checkpoint import Context, encode
from inspector.checkpoint.diagnosis.diagnose import diagnose_canonical
from tests.conftest import CASES, CASES_PINNED

CLASSES = ("whitespace", "crlf", "key-order", "escape-form", "number-spelling")


def _base() -> dict:
    """cases-pinned 001 with a float inside a tool input (free-form: any spelling reads the same)."""
    doc = orjson.loads((CASES_PINNED / "001-valid-rich-resume.payload.json").read_bytes())
    block = doc["snapshot"]["session"]["messages"][1]["content"][1]
    block["input"] = dict(block["input"], tiny=1e-05)
    return doc


BASE = _base()
CANONICAL = encode(BASE)


class Printer:
    """Prints a decoded payload as canonical JSON does (sorted keys, the engine's leaves), except for the
    changes switched on: ``ws`` (a space after the first ``ws`` separators), ``crlf`` (CRLF after the
    first ``crlf`` opening braces), ``reorder`` (the keys of the session config reversed), ``escape``
    (the first letter of the first message's text as ``\\u00XX``), ``respell`` (``0.00001`` as ``1e-05``)."""

    def __init__(self, ws=0, crlf=0, reorder=False, escape=False, respell=False):
        self.ws, self.crlf, self.reorder, self.escape, self.respell = ws, crlf, reorder, escape, respell

    def print(self, doc) -> bytes:
        out: list[bytes] = []
        stack = [("value", doc, "")]
        while stack:
            what, v, ptr = stack.pop()
            if what == "raw":
                out.append(v)
                continue
            if isinstance(v, dict):
                keys = sorted(v)  # code point order: UTF-8 byte order, as serde_json sorts
                if self.reorder and ptr == "/snapshot/session/config":
                    keys = keys[::-1]
                items = []
                for i, k in enumerate(keys):
                    if i:
                        items.append(("raw", self._sep(b","), None))
                    items.append(("raw", encode(k) + self._sep(b":"), None))
                    items.append(("value", v[k], f"{ptr}/{k}"))
                stack.append(("raw", b"}", None))
                stack.extend(reversed(items))
                stack.append(("raw", self._open(), None))
            elif isinstance(v, list):
                items = []
                for i, c in enumerate(v):
                    if i:
                        items.append(("raw", self._sep(b","), None))
                    items.append(("value", c, f"{ptr}/{i}"))
                stack.append(("raw", b"]", None))
                stack.extend(reversed(items))
                stack.append(("raw", b"[", None))
            else:
                out.append(self._leaf(v, ptr))
        return b"".join(out)

    def _sep(self, s: bytes) -> bytes:
        if self.ws > 0:
            self.ws -= 1
            return s + b" "
        return s

    def _open(self) -> bytes:
        if self.crlf > 0:
            self.crlf -= 1
            return b"{\r\n"
        return b"{"

    def _leaf(self, v, ptr) -> bytes:
        text = encode(v)
        if self.respell and isinstance(v, float) and text == b"0.00001":
            return b"1e-05"
        if self.escape and ptr == "/snapshot/session/messages/0/content/0/text":
            first = v[0]
            assert first.isascii() and first.isalpha()
            return b'"\\u%04x' % ord(first) + text[2:]
        return text


def test_the_printer_without_changes_is_canonical():
    assert Printer().print(BASE) == CANONICAL


def _diagnose(data: bytes) -> list[str]:
    ctx = Context(data, None)
    assert not ctx.is_canonical
    return sorted(diagnose_canonical(ctx).classes)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(applied=st.sets(st.sampled_from(CLASSES), min_size=1), ws=st.integers(1, 40), crlf=st.integers(1, 8))
def test_named_classes_are_exactly_the_ones_applied(applied, ws, crlf):
    options = {"ws": ws if "whitespace" in applied else 0, "crlf": crlf if "crlf" in applied else 0,
               "reorder": "key-order" in applied, "escape": "escape-form" in applied,
               "respell": "number-spelling" in applied}
    data = Printer(**options).print(BASE)
    assert orjson.loads(data) == orjson.loads(CANONICAL)  # the same document, spelled otherwise
    named = _diagnose(data)
    assert named == sorted(applied)
    # the named classes are the whole explanation: with their changes off, the bytes are canonical
    off = {"whitespace": "ws", "crlf": "crlf", "key-order": "reorder", "escape-form": "escape",
           "number-spelling": "respell"}
    fixed = dict(options)
    for c in named:
        fixed[off[c]] = 0 if off[c] in ("ws", "crlf") else False
    assert Printer(**fixed).print(BASE) == CANONICAL


def test_pretty_printed_case_names_the_number_spelling_beside_whitespace():
    """cases/28-p-pretty: re-saved pretty-printed, and 1e-05 in a tool input is written 0.00001 by the
    reference: both classes are named (whitespace alone hid the number: re-compacting still fails)."""
    data = (CASES / "28-p-pretty.payload.json").read_bytes()
    diag = diagnose_canonical(Context(data, None))
    assert diag.classes == ["whitespace", "number-spelling"]
    notes = [str(n) for n in diag.notes]
    assert "whitespace between tokens (the reference writes compact JSON): first at byte 1 (703 places)" in notes
    assert ("number spelled differently from the reference: first at byte 5314 at "
            "/snapshot/session/messages/1/content/1/input/tiny (2 places); 1e-05 is written 0.00001") in notes
    compact = json.dumps(json.loads(data), separators=(",", ":"), ensure_ascii=False).encode()
    assert sorted(diagnose_canonical(Context(compact, None)).classes) in (["number-spelling"],
                                                                          ["key-order", "number-spelling"])
