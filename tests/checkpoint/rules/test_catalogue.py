"""The rule catalogue is complete and joined one-to-one with the checks (FORMAT.md 6)."""

import re

from inspector.checkpoint import verify
from inspector.checkpoint import catalogue
from inspector.checkpoint.rules.catalogue import PREFIX
from inspector.checkpoint.rules.checks import CHECKS
from tests.conftest import FORMAT_MD, needs_format_md

FORMAT_IDS = set()
for m in re.finditer(r"^\| ([A-Z]+-[A-Z0-9-]+)(?: / ([A-Z]+-[A-Z0-9-]+))?(?: \(host JSON only\))? \|",
                     FORMAT_MD.read_text() if FORMAT_MD else "", re.M):
    FORMAT_IDS.update(x for x in m.groups() if x)


@needs_format_md
def test_catalogue_ids_are_exactly_the_format_md_rule_table():
    ids = [r.id for r in catalogue()]
    assert len(ids) == len(set(ids)) == 75
    assert set(ids) == FORMAT_IDS


def test_every_evaluable_rule_has_exactly_one_check_and_others_none():
    evaluable = {r.id for r in catalogue() if not r.not_evaluated}
    assert set(CHECKS) == evaluable
    # FORMAT.md 10's open items touch no rule (only P-CANONICAL notes such as yolo_lanes order):
    # every rule is evaluated.
    assert [r.id for r in catalogue() if r.not_evaluated] == []


def test_codes_are_reference_codes():
    for r in catalogue():
        assert r.code is None or r.code in PREFIX, r.id
    assert [r.id for r in catalogue() if r.code is None] == ["D-PARSE"]


def test_requirements_refer_to_earlier_rules():
    seen = set()
    for r in catalogue():
        assert set(r.requires) <= seen, r.id
        seen.add(r.id)


def test_report_has_one_finding_per_rule_in_order():
    report = verify(b"{}", None)
    assert [f.rule.id for f in report.findings] == [r.id for r in catalogue()]
    assert report.root_cause.rule.id == "P-PARSE"
    assert report.root_cause.message == "invalid session checkpoint payload: missing field `schema` at line 1 column 2"
