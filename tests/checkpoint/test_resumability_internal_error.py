"""An engine defect in a rule leaves the verdict inconclusive, and the resumability answer says it
cannot decide (it read the report's internal errors before verify had set them, and said
"Resumable" beside an inconclusive verdict)."""

from inspector.checkpoint import verify
from inspector.checkpoint.rules import checks
from inspector.checkpoint.analysis.resumability import CANNOT_DECIDE, RESUMABLE
from tests.conftest import GOLDEN


def _pair():
    return ((GOLDEN / "payload-with-resume.json").read_bytes(), (GOLDEN / "descriptor-with-resume.json").read_bytes())


def test_golden_pair_is_resumable():
    report = verify(*_pair())
    assert report.verified and report.internal_errors == []
    assert report.resumability.answer == RESUMABLE


def test_rule_internal_error_makes_resumability_undecided(monkeypatch):
    def broken(ctx):
        raise RuntimeError("engine defect quoting nothing")

    monkeypatch.setitem(checks.CHECKS, "L-SOURCE-TERMINAL", broken)
    report = verify(*_pair())
    assert report.internal_errors == ["L-SOURCE-TERMINAL: RuntimeError"]
    assert report.inconclusive and not report.verified
    assert report.for_rule("L-SOURCE-TERMINAL").verdict.value == "not_evaluated"
    res = report.resumability
    assert res.answer == CANNOT_DECIDE
    assert [(r.kind, r.id) for r in res.reasons] == [("artifact", "inconclusive")]
    assert res.loadable_as_session is None
