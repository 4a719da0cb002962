"""A run record holding many events, in a short ``run_records`` array, is compared with the file and its
findings located without printing it whole (FORMAT.md 3.1 canonical comparison; 5 S-EVENT-COUNT's
locations): the typed fast path walks the fourth level and batches the events, and a location after the
events is found by msgspec's skip over them instead of by encoding them.

Before, verifying a payload whose first of two run records held a million events printed that record
twice, each a buffer of 253 MiB (``benchmarks/README.md``, events-1000000)."""

from __future__ import annotations

import orjson

from inspector.checkpoint import build_descriptor, decode, encode
from inspector.checkpoint.jsontext import canonical
from inspector.checkpoint.verify import verify
from tests.conftest import CASES_PINNED

PINNED = CASES_PINNED / "001-valid-rich-resume.payload.json"
N = 20_000


def _many_events(n: int) -> tuple[bytes, bytes]:
    """The pinned rich checkpoint with its other run's events replaced by ``n`` of its four smallest events,
    renumbered 1..n, and its ``event_count`` left at ``n`` (``benchmarks/gen_hostile.py``'s input)."""
    v = orjson.loads(PINNED.read_bytes())
    records = v["snapshot"]["run_records"]
    rec = next(r for r in records if r["snapshot"]["id"] != v["logical_resume"]["run_id"])
    pool = sorted((e for r in records for e in r["events"]), key=lambda e: len(orjson.dumps(e)))[:4]
    rec["events"] = [dict(pool[i % 4], sequence=i + 1) for i in range(n)]
    rec["snapshot"]["event_count"] = n
    payload = encode(v)
    return payload, encode(build_descriptor(decode(payload), payload))


class _Spy:
    """Stands for ``orjson`` in the canonical encoder: remembers the longest printing it made."""

    def __init__(self):
        self.longest = 0

    def __getattr__(self, name):
        return getattr(orjson, name)

    def dumps(self, *a, **k):
        out = orjson.dumps(*a, **k)
        self.longest = max(self.longest, len(out))
        return out


def test_a_run_record_of_many_events_is_never_printed_whole(monkeypatch):
    payload, descriptor = _many_events(N)
    record = orjson.loads(payload)["snapshot"]["run_records"][0]
    assert len(record["events"]) == N  # the large record is the first of the two: not the last element
    record_size = len(encode(record))
    spy = _Spy()
    monkeypatch.setattr(canonical, "orjson", spy)
    report = verify(payload, descriptor)

    failed = [f for f in report.findings if f.verdict.name == "FAIL"]
    assert [f.rule.id for f in failed] == ["S-EVENT-COUNT"]
    count_at = payload.index(b'"event_count":%d' % N) + len(b'"event_count":')
    last_seq = payload.rindex(b'"sequence":%d,' % N) + len(b'"sequence":')
    assert [(loc.pointer, loc.span) for loc in failed[0].locations] == [
        ("/snapshot/run_records/0/snapshot/event_count", (count_at, count_at + len(str(N)))),
        (f"/snapshot/run_records/0/events/{N - 1}/sequence", (last_seq, last_seq + len(str(N)))),
    ]
    # the largest canonical printing made while verifying is a batch of 64 events, not the record
    assert record_size > 1_800_000
    assert spy.longest < record_size // 100
