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

PENDING = {
    "009-durable-retrieval-unknown",
    "010-durable-schema-6",
    "011-durable-v1-current-retrieval",
    "012-durable-v4-context-v1",
    "013-durable-tenant-blank",
    "014-durable-scope-empty",
    "015-durable-semantic-revision-null",
    "016-durable-semantic-dot-product",
    "017-durable-semantic-min-score",
    "018-durable-semantic-fusion",
    "019-durable-v5-shadow",
    "020-durable-v4-with-semantic",
    "021-durable-active-no-policy",
    "022-durable-recall-max-results-0",
    "023-durable-recall-score-negative",
    "024-durable-tenant-absent",
    "025-durable-tenant-case",
    "026-durable-principal-absent",
    "027-durable-principal-space",
    "028-order-durable-before-cognitive",
    "029-cognitive-schema",
    "030-cognitive-package-upper",
    "031-cognitive-version-space",
    "032-cognitive-digest-upper",
    "033-cognitive-read-schema",
    "034-cognitive-format-long",
    "035-cognitive-knowledge-generation-zero",
    "036-cognitive-limits-results",
    "037-cognitive-limits-document",
    "038-cognitive-generation-mismatch",
    "039-run-cognitive-schema",
    "040-run-cognitive-limits",
    "041-run-cognitive-citation",
    "042-run-cognitive-digest",
    "043-run-capability-schema",
    "044-run-capability-set-schema",
    "045-run-capability-ceiling-schema",
    "046-run-capability-use-schema",
    "047-run-capability-use-revision",
    "048-event-cognitive-schema",
    "049-event-cognitive-invalid-in-legacy-run",
    "050-event-cognitive-digest",
    "051-event-cognitive-run-generation",
    "052-event-cognitive-run-limits",
    "053-event-cognitive-run-second",
    "054-event-cognitive-legacy-version",
    "055-event-cognitive-legacy-third",
    "056-toolend-binding-null",
    "057-toolend-binding-missing-field",
    "058-toolend-binding-string",
    "059-toolend-binding-schema",
    "060-toolend-binding-algorithm",
    "061-toolend-binding-digest-format",
    "062-toolend-binding-digest-stale",
    "063-toolend-binding-other-policy",
    "064-toolend-evidence-absent",
    "065-toolend-evidence-renamed",
    "066-toolend-evidence-null",
    "067-toolend-evidence-unknown-field",
    "068-toolend-evidence-missing-field",
    "069-toolend-evidence-schema",
    "070-toolend-evidence-no-algorithm",
    "071-order-toolend-before-count",
    "072-loop-capability-schema",
    "073-loop-capability-catalog",
    "074-loop-capability-use-schema",
}


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
