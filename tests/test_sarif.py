"""One SARIF shape (``inspector.sarif``) for the two SARIF outputs: ``verify --format sarif`` (exact) and ``report
--format sarif`` (redacted). On every reference case they name the same failed rules and the same root cause, in
logs of one skeleton."""

from __future__ import annotations

import json

import pytest

from inspector import sarif
from inspector.cli.main import main as cli_main
from tests.conftest import CASES

PAIRS = sorted(p.name.removesuffix(".payload.json") for p in CASES.glob("*.payload.json")
               if (CASES / p.name.replace(".payload.", ".descriptor.")).exists())


def _sarif(capsys, command, case):
    code = cli_main([command, str(CASES / f"{case}.payload.json"), str(CASES / f"{case}.descriptor.json"),
                     "--format", "sarif"])
    out, err = capsys.readouterr()
    return code, json.loads(out)


def test_the_cases_are_there():
    assert len(PAIRS) == 54 and "01-valid" in PAIRS


@pytest.mark.parametrize("case", PAIRS)
def test_verify_and_report_name_the_same_failed_rules_in_one_skeleton(capsys, case):
    code_v, exact = _sarif(capsys, "verify", case)
    code_r, redacted = _sarif(capsys, "report", case)
    assert code_v == code_r
    for log in (exact, redacted):
        assert (log["$schema"], log["version"], len(log["runs"])) == (sarif.SCHEMA, "2.1.0", 1)
        assert log["runs"][0]["tool"]["driver"]["name"] == "checkpoint-inspector"
    results = exact["runs"][0]["results"], redacted["runs"][0]["results"]
    assert [list(r) for r in results[0]] == [["ruleId", "level", "message", "locations", "properties"]] * len(results[0])
    assert [list(r) for r in results[1]] == [["ruleId", "level", "message", "properties"]] * len(results[1])
    assert sorted(r["ruleId"] for r in results[0]) == sorted(r["ruleId"] for r in results[1])
    assert [r["ruleId"] for r in results[0] if r["properties"]["root_cause"]] == \
        [r["ruleId"] for r in results[1] if r["properties"]["root_cause"]]
    assert bool(results[0]) == (code_v == 1)


def test_a_truncated_payloads_root_cause_is_the_same_in_both(capsys):
    """A pinned case: the truncated payload fails P-PARSE at the root in both logs (FORMAT.md 3.1)."""
    got = {}
    for command in ("verify", "report"):
        code, log = _sarif(capsys, command, "54-p-truncated")
        got[command] = (code, [r["ruleId"] for r in log["runs"][0]["results"] if r["properties"]["root_cause"]])
    assert got == {"verify": (1, ["P-PARSE"]), "report": (1, ["P-PARSE"])}
