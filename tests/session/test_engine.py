"""The window's door to the engine reads a small payload once (FORMAT.md 3.1: the read that decides the verdicts
gives the trees' spans).

``analyse_bytes`` (every payload up to the process threshold, every sandbox recompute) used to read a payload
three times: the exact parser, whose value was thrown away, the tokenizer for the trees' index, then ``verify``.
Now ``verify_indexed`` fills the index from the fast reader that proved the file; the tokenizer and the exact
parser read only a payload no fast reader proved. The index must be the tokenizer's, container for container,
and the report ``verify``'s.
"""

from __future__ import annotations

import importlib.util
import sys
import threading

import orjson
import pytest

from inspector import checkpoint
from inspector.checkpoint.rules import context as context_module
from inspector.session import engine
from inspector.session.documents import Side
from inspector.checkpoint.jsontext.lazyjson import BIG, build_index
from tests.conftest import GOLDEN, ROOT

GOLDEN_D = GOLDEN / "descriptor-with-resume.json"


def _generated() -> bytes:
    """A canonical payload of about 600 kB from the benchmark generator (runs with events: containers of 64 KiB
    and more, so the index is not empty)."""
    mod = sys.modules.get("_gen_checkpoint")
    if mod is None:
        spec = importlib.util.spec_from_file_location("_gen_checkpoint", ROOT / "benchmarks" / "gen_checkpoint.py")
        mod = importlib.util.module_from_spec(spec)
        sys.modules["_gen_checkpoint"] = mod
        spec.loader.exec_module(mod)
    return checkpoint.encode(mod.build(600_000, 3))


def _forms() -> dict[str, bytes]:
    canon = _generated()
    pretty = orjson.dumps(orjson.loads(canon), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)
    return {"canonical": canon, "pretty": pretty, "pretty-crlf": pretty.replace(b"\n", b"\r\n")}


FORMS = _forms()


def _analyse(data: bytes, monkeypatch) -> tuple:
    """``analyse_bytes`` of ``data`` with the golden descriptor, on a worker thread (as the window runs it),
    counting the payload's reads: ``(analysis, {reader: calls on the payload's bytes})``."""
    reads = {"parse_value": 0, "build_index": 0, "read_payload": 0}

    def spy(name, real):
        def wrapper(first, *a, **kw):
            if first is data:
                reads[name] += 1
            return real(first, *a, **kw)
        return wrapper

    monkeypatch.setattr(checkpoint, "parse_value", spy("parse_value", checkpoint.parse_value))
    monkeypatch.setattr(engine, "build_index", spy("build_index", engine.build_index))
    monkeypatch.setattr(context_module, "read_payload", spy("read_payload", context_module.read_payload))
    descriptor = GOLDEN_D.read_bytes()
    sides = (Side("payload", "p.json", data, len(data), None), Side("descriptor", "d.json", descriptor, len(descriptor), None))
    out = []
    worker = threading.Thread(target=lambda: out.append(engine.analyse_bytes(*sides)))
    worker.start()
    worker.join()
    return out[0], reads


@pytest.mark.parametrize("form", list(FORMS))
def test_a_payload_a_fast_reader_proves_is_read_once(form, monkeypatch):
    data = FORMS[form]
    analysis, reads = _analyse(data, monkeypatch)
    # a CRLF printing's offsets are not the printing's: read as before, by the exact parser and the tokenizer
    crlf = int(form == "pretty-crlf")
    assert reads == {"parse_value": crlf, "build_index": crlf, "read_payload": 1}
    index = analysis.payload.index
    assert index is not None and len(index) >= 3  # the root, the run records, the events of a run
    assert index == build_index(data, big=BIG)  # the tokenizer's index, container for container
    assert analysis.payload.parse_error is None
    alone = checkpoint.verify(data, GOLDEN_D.read_bytes(), views=True)
    assert [(f.rule.id, f.verdict, f.message) for f in analysis.report.findings] == \
        [(f.rule.id, f.verdict, f.message) for f in alone.findings]
    assert analysis.report.root_cause.rule.id == alone.root_cause.rule.id == "X-BYTES"  # (not this descriptor's payload)
    assert ("P-CANONICAL" in [f.rule.id for f in analysis.report.failed()]) == (form != "canonical")
    timeline, alone_timeline = analysis.report.views[0], alone.views[0]
    assert timeline.event_total == alone_timeline.event_total > 100
    assert [lane.seq for lane in timeline.lanes] == [lane.seq for lane in alone_timeline.lanes]


def _escaped() -> bytes:
    """The canonical payload with one letter of a string value written as a ``\\u`` escape: the same value, which
    only the exact decoder proves (the fast readers compare the file with a printing that has no escape)."""
    canon = FORMS["canonical"]
    at = canon.index(b'"user"') + 1  # a role's first letter
    return canon[:at] + b"\\u0075" + canon[at + 1:]


def test_a_payload_only_the_exact_decoder_reads_is_indexed_by_the_tokenizer(monkeypatch):
    data = _escaped()
    analysis, reads = _analyse(data, monkeypatch)
    assert reads == {"parse_value": 1, "build_index": 1, "read_payload": 1}
    assert analysis.payload.index == build_index(data, big=BIG) and len(analysis.payload.index) >= 3
    assert analysis.payload.parse_error is None
    assert [f.rule.id for f in analysis.report.failed() if f.rule.id.startswith("P-")] == ["P-CANONICAL"]


def test_json_serde_rejects_is_checked_by_the_exact_parser_then_indexed(monkeypatch):
    data = b'{"logical_resume":null,' + FORMS["canonical"][1:]  # a duplicate field: serde rejects it (P-PARSE)
    analysis, reads = _analyse(data, monkeypatch)
    assert reads == {"parse_value": 1, "build_index": 1, "read_payload": 1}
    assert analysis.payload.index == build_index(data, big=BIG) and len(analysis.payload.index) >= 3
    assert analysis.payload.parse_error is None  # JSON: the trees show it
    assert analysis.report.for_rule("P-PARSE").failed
    alone = checkpoint.verify(data, GOLDEN_D.read_bytes())
    assert [(f.rule.id, f.verdict) for f in analysis.report.findings] == [(f.rule.id, f.verdict) for f in alone.findings]


def test_a_payload_that_is_not_json_has_the_exact_parser_s_error_and_no_index(monkeypatch):
    canon = FORMS["canonical"]
    data = canon[: len(canon) // 2]
    analysis, reads = _analyse(data, monkeypatch)
    assert reads == {"parse_value": 1, "build_index": 0, "read_payload": 1}
    assert analysis.payload.index is None
    message, offset = analysis.payload.parse_error
    assert offset == len(data)  # the document ended there: no byte is wrong
    assert message.startswith("EOF while parsing")


def test_a_value_the_typed_read_skips_is_still_checked_for_the_trees(monkeypatch):
    """Serde's typed read skips an unknown key's value without looking inside (P-PARSE passes); the exact parser
    still finds the number out of range there, and the trees say where (the verdicts alone prove no JSON)."""
    canon = FORMS["canonical"]
    at = canon.index(b'"snapshot":{') + len(b'"snapshot":{')
    data = canon[:at] + b'"zzz_unknown":1' + b"0" * 400 + b"," + canon[at:]
    analysis, reads = _analyse(data, monkeypatch)
    assert reads == {"parse_value": 1, "build_index": 0, "read_payload": 1}
    assert analysis.payload.index is None
    message, offset = analysis.payload.parse_error
    assert message.startswith("number out of range at line 1 column ")
    assert offset == at + len(b'"zzz_unknown":')
    assert not analysis.report.for_rule("P-PARSE").failed  # (the verdicts are the reference's: serde skipped it)
