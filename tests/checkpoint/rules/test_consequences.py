"""Consequences that are consequences (inspector/checkpoint/rules/consequences.toml): a failure is
labelled a consequence of another only when a declared dependency says fixing that one would change
it; every other failure is independent."""

from __future__ import annotations

import json

import pytest

from inspector.checkpoint import verify
from inspector.checkpoint.rules.catalogue import catalogue
from inspector.checkpoint.rules.consequences import declared_causes
from inspector.cli import render
from tests.conftest import CASES, CASES_PINNED, fixture_pairs


def _report(folder, name):
    return verify((folder / f"{name}.payload.json").read_bytes(), (folder / f"{name}.descriptor.json").read_bytes())


def test_independent_failure_is_not_called_a_consequence():
    """cases-pinned/071: the tool_end evidence mismatch and the event count are two separate edits."""
    r = _report(CASES_PINNED, "071-order-toolend-before-count")
    assert r.root_cause.rule.id == "S-TOOLEND-EVIDENCE-MISMATCH"
    rel = r.relation(r.for_rule("S-EVENT-COUNT"))
    assert (rel.kind, rel.caused_by) == ("independent", None)
    row = next(x for x in json.loads(render.to_json(r))["rules"] if x["id"] == "S-EVENT-COUNT")
    assert (row["relation"], row["caused_by"], row["because"]) == ("independent", None, None)
    assert "  FAIL          S-EVENT-COUNT                event_count covers every retained event (independent: " \
           "fixing the root cause does not fix it)" in render.to_text(r)


def test_rebuilt_descriptor_is_a_consequence_of_changed_bytes():
    """cases/25: one payload byte flipped after export: the rebuilt descriptor and the logical-resume
    evidence differ because of it."""
    r = _report(CASES, "25-p-flip-byte")
    assert r.root_cause.rule.id == "X-BYTES"
    for rid in ("X-DESCRIPTOR", "X-LOGICAL-EVIDENCE"):
        rel = r.relation(r.for_rule(rid))
        assert (rel.kind, rel.caused_by) == ("consequence", "X-BYTES"), rid
    row = next(x for x in json.loads(render.to_json(r))["rules"] if x["id"] == "X-DESCRIPTOR")
    assert row["relation"] == "consequence" and row["caused_by"] == "X-BYTES"
    assert row["because"].startswith("the descriptor is compared whole with the one rebuilt from the payload")
    root = next(x for x in json.loads(render.to_json(r))["rules"] if x["id"] == "X-BYTES")
    assert (root["relation"], root["caused_by"]) == ("root_cause", None)


def test_a_consequence_of_another_failure_names_it():
    """cases-pinned/028: the durable binding fails first; the session's cognitive binding fails on its
    own (independent), and the run's cognitive match fails because of that binding."""
    r = _report(CASES_PINNED, "028-order-durable-before-cognitive")
    assert r.root_cause.rule.id == "S-DURABLE-VALID"
    assert r.relation(r.for_rule("S-COGNITIVE")).kind == "independent"
    rel = r.relation(r.for_rule("L-COGNITIVE-MATCH"))
    assert (rel.kind, rel.caused_by) == ("consequence", "S-COGNITIVE")


def test_declared_dependencies_name_only_catalogue_rules():
    ids = {r.id for r in catalogue()}
    table = declared_causes()
    assert set(table) <= ids
    assert {c for causes in table.values() for c, _why in causes} <= ids


@pytest.mark.parametrize("payload, descriptor", fixture_pairs(), ids=lambda p: getattr(p, "stem", "none"))
def test_every_failing_rule_of_every_case_has_the_declared_relation(payload, descriptor):
    """Over every fixture case: the root cause is the root cause; a failure is a consequence exactly
    when one of its declared causes failed too (the root cause preferred as caused_by); else independent."""
    r = verify(payload.read_bytes(), descriptor.read_bytes() if descriptor else None)
    failed = r.failed()
    ids = [f.rule.id for f in failed]
    table = declared_causes()
    for f in failed:
        rel = r.relation(f)
        if f is r.root_cause:
            assert rel.kind == "root_cause"
            continue
        causes = [c for c, _why in table.get(f.rule.id, ()) if c in ids]
        if not causes:
            assert (rel.kind, rel.caused_by) == ("independent", None), f.rule.id
        else:
            want = r.root_cause.rule.id if r.root_cause.rule.id in causes else min(causes, key=ids.index)
            assert (rel.kind, rel.caused_by) == ("consequence", want), f.rule.id
