"""cases-pinned/: the reference's verdict on the turn-2 typed layouts and the 15 binding rules.

FORMAT.md 4.7-4.16 and 6.3 (catalogs C, D, S, R, T); fixtures/cases-pinned/README.md. For every
case the root cause must match ``cases.jsonl`` exactly: rule id, error code and full message.

``PENDING`` lists the cases the engine does not get right yet. They are strict xfails: a case
that starts passing fails the suite until its id is removed here, so the list only shrinks.
"""

import json

import pytest

from inspector.checkpoint import verify
from tests.conftest import CASES_PINNED

PENDING: set[str] = set()  # every case matches the reference


def _rows() -> list[dict]:
    return [json.loads(line) for line in (CASES_PINNED / "cases.jsonl").read_bytes().split(b"\n") if line.strip()]


ROWS = _rows()


@pytest.mark.parametrize("case", [
    pytest.param(c, marks=pytest.mark.xfail(strict=True, reason="not yet matched")) if c["id"] in PENDING else c
    for c in ROWS], ids=[c["id"] for c in ROWS])
def test_pinned_case_root_cause_matches_reference(case):
    report = verify((CASES_PINNED / case["payload"]).read_bytes(), (CASES_PINNED / case["descriptor"]).read_bytes())
    rc = report.root_cause
    if case["ok"]:
        assert rc is None and report.verified, rc and (rc.rule.id, rc.message)
        return
    assert rc is not None
    assert (rc.rule.id, rc.rule.code, rc.message) == (case["rule"], case["code"], case["message"])
    assert rc.locations, "a failure always has a location"


def test_pinned_case_count():
    assert len(ROWS) == 102
    assert sum(c["ok"] for c in ROWS) == 8
    assert PENDING <= {c["id"] for c in ROWS}
