"""Staged verdicts (hash before parse): ``verify(on_stage=...)`` never contradicts its report.

For every case of ``fixtures/cases`` and ``fixtures/cases-pinned`` (and each case's payload alone),
the partial verdicts given before the report must be the report's: the stages come in order
(``bytes`` before any parse, then ``structure``), each finding of a stage is the report's finding
of that rule (same verdict, message, expected, actual, locations), a root cause named early is the
report's root cause, and the report itself is exactly the unstaged one.
"""

import json

import pytest

from inspector.checkpoint import STAGE_BYTES, STAGE_STRUCTURE, Stage, verify
from inspector.checkpoint.rules.context import Context
from tests.conftest import CASES, CASES_PINNED


def _rows(folder):
    return [(folder, json.loads(line)) for line in (folder / "cases.jsonl").read_bytes().split(b"\n") if line.strip()]


ROWS = _rows(CASES) + _rows(CASES_PINNED)


def _key(f):
    return (f.rule.id, f.verdict, f.detail, f.expected, f.actual, f.blocked_by, f.order, f.occurrences)


def _staged(payload, descriptor):
    stages: list[Stage] = []
    parsed_at_bytes_stage = []
    real_parse = Context._parse_payload

    def watch_parse(self):
        parsed_at_bytes_stage.append(not stages)
        return real_parse(self)

    Context._parse_payload = watch_parse
    try:
        report = verify(payload, descriptor, on_stage=stages.append)
    finally:
        Context._parse_payload = real_parse
    return stages, report, parsed_at_bytes_stage


def _check_consistent(stages, report, plain):
    # the report is exactly the one verify gives without stages
    assert [_key(f) for f in report.findings] == [_key(f) for f in plain.findings]
    assert [f.locations for f in report.findings] == [f.locations for f in plain.findings]
    assert [f.notes for f in report.findings] == [f.notes for f in plain.findings]
    assert (report.root_cause and _key(report.root_cause)) == (plain.root_cause and _key(plain.root_cause))
    final = {f.rule.id: f for f in report.findings}
    for stage in stages:
        for f in stage.findings:
            g = final[f.rule.id]
            assert _key(f) == _key(g), f.rule.id
            assert set(f.notes) <= set(g.notes)
            assert [(loc.source, loc.pointer) for loc in f.locations] == [(loc.source, loc.pointer) for loc in g.locations]
            assert all(a.span is None or a.span == b.span for a, b in zip(f.locations, g.locations))
        if stage.root_cause is not None:
            assert report.root_cause is not None and _key(stage.root_cause) == _key(report.root_cause)
        for row in stage.digests:
            same = next(r for r in report.digests if r.label == row.label)
            assert (row.stated, row.recomputed) == (same.stated, same.recomputed)
    # once a stage names a root cause, every later stage names the same one
    named = [s.root_cause.rule.id for s in stages if s.root_cause is not None]
    assert len(set(named)) <= 1


@pytest.mark.parametrize("folder,case", ROWS, ids=[f"{f.name}/{c['id']}" for f, c in ROWS])
def test_stages_agree_with_the_report(folder, case):
    payload = (folder / case["payload"]).read_bytes()
    descriptor = (folder / case["descriptor"]).read_bytes()
    stages, report, parsed_early = _staged(payload, descriptor)
    plain = verify(payload, descriptor)
    assert [s.name for s in stages] == [STAGE_BYTES, STAGE_STRUCTURE]
    assert parsed_early == [False], "the payload was parsed before the bytes stage was given"
    _check_consistent(stages, report, plain)
    bytes_stage = stages[0]
    rc = report.root_cause
    if rc is not None and rc.rule.rank <= next(f.rule.rank for f in report.findings if f.rule.id == "X-BYTES"):
        # a descriptor or byte failure is known, with its message, before any parse
        assert bytes_stage.root_cause is not None and bytes_stage.root_cause.rule.id == rc.rule.id
        assert bytes_stage.headline.startswith(f"NOT VERIFIED: {rc.rule.id} failed — {rc.message}")
    else:
        assert bytes_stage.root_cause is None
        assert bytes_stage.headline == "Bytes match the descriptor (size and content digest); checking structure…"
    if rc is not None and rc.rule.id in ("P-PARSE", "P-SCHEMA"):
        assert stages[1].root_cause is not None and stages[1].root_cause.rule.id == rc.rule.id
    # the bytes stage holds exactly the rules ranked before P-PARSE
    assert [f.rule.id for f in bytes_stage.findings] == [
        f.rule.id for f in report.findings if f.rule.rank < report.for_rule("P-PARSE").rule.rank]


@pytest.mark.parametrize("folder,case", ROWS[::7], ids=[f"{f.name}/{c['id']}" for f, c in ROWS[::7]])
def test_stages_of_a_payload_alone(folder, case):
    payload = (folder / case["payload"]).read_bytes()
    stages, report, parsed_early = _staged(payload, None)
    _check_consistent(stages, report, verify(payload, None))
    assert [s.name for s in stages] == [STAGE_BYTES, STAGE_STRUCTURE]
    assert stages[0].headline == "Payload read and hashed; checking structure…"


def test_x_bytes_stage_has_the_digests_before_any_parse():
    folder, case = next((f, c) for f, c in ROWS if c["rule"] == "X-BYTES")
    payload = (folder / case["payload"]).read_bytes()
    descriptor = (folder / case["descriptor"]).read_bytes()
    stages, report, parsed_early = _staged(payload, descriptor)
    assert parsed_early == [False]
    first = stages[0]
    assert first.root_cause.rule.id == "X-BYTES"
    assert first.root_cause.message == case["message"]
    rows = {r.label: r for r in first.digests}
    assert rows["payload content_digest"].recomputed == case["payload_sha256"]
    assert rows["payload size_bytes"].recomputed == len(payload)
    # the note on the payload's own form needs the parse: it comes with the report only
    assert len(report.root_cause.notes) == len(first.root_cause.notes) + 1


def test_descriptor_alone_has_no_stages():
    folder, case = ROWS[0]
    stages = []
    verify(None, (folder / case["descriptor"]).read_bytes(), on_stage=stages.append)
    assert stages == []


@pytest.mark.parametrize("name", ["01-valid", "25-p-flip-byte"])
def test_first_stage_with_the_callers_digest_reads_only_the_length(name, tmp_path):
    """``first_stage(payload_digest=...)`` (the window hashed the file by streaming it) is the same stage
    as hashing the bytes, and touches nothing but the payload's length: an ``mmap`` of the file serves."""
    import hashlib
    import mmap

    from inspector.checkpoint import first_stage

    p = next(CASES.glob(f"{name}*.payload.json"))
    d = p.with_name(p.name.replace(".payload.json", ".descriptor.json")).read_bytes()
    data = p.read_bytes()
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    with open(p, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
        got = first_stage(mapped, d, payload_digest=digest)
    want = first_stage(data, d)
    assert [_key(f) for f in got.findings] == [_key(f) for f in want.findings]
    assert (got.root_cause and got.root_cause.rule.id) == (want.root_cause and want.root_cause.rule.id)
    assert [(r.label, r.stated, r.recomputed) for r in got.digests] == [
        (r.label, r.stated, r.recomputed) for r in want.digests]
    x_bytes = next(f for f in got.findings if f.rule.id == "X-BYTES")
    assert x_bytes.failed == (name == "25-p-flip-byte")
    # the digest given is the one judged (a wrong one fails X-BYTES on the same bytes)
    wrong = first_stage(data, d, payload_digest="sha256:" + "0" * 64)
    assert next(f for f in wrong.findings if f.rule.id == "X-BYTES").failed
