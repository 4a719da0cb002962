"""One story for a verdict (inspector/checkpoint/analysis/story.py): a proven restore leads the plain words and
drops what it disproves (FORMAT.md 3.1, 3.2), in the core and in every ticket format; a cross-binding rule's two
values read Stated (the descriptor's) then Recomputed (the payload's), the digests table's words and order."""

from __future__ import annotations

import hashlib
import html
import json
import tomllib
from importlib import resources

import orjson
import pytest

from inspector.checkpoint import InputFile, catalogue, rule, verify
from inspector.checkpoint.analysis.story import RESTORE_NEXT_STEP, comparison, plain_of, plain_verdict
from inspector.ticket import build_ticket
from inspector.ticket.render import render
from tests.conftest import CASES, GOLDEN

P, D = (GOLDEN / "payload-with-resume.json").read_bytes(), (GOLDEN / "descriptor-with-resume.json").read_bytes()
PRETTY = orjson.dumps(orjson.loads(P), option=orjson.OPT_INDENT_2)
RESTORED_HEADLINE = ("The payload file is the exported checkpoint, re-saved or converted after export: what it holds "
                     "is unchanged, and the original can be restored exactly (its size and SHA-256 match the "
                     "descriptor).")


def _case(name):
    return (CASES / f"{name}.payload.json").read_bytes(), (CASES / f"{name}.descriptor.json").read_bytes()


def test_a_proven_restore_leads_the_verdict_and_drops_what_it_disproves():
    report = verify(PRETTY, D)
    assert report.root_cause.rule.id == "X-BYTES" and report.restoration is not None
    v = plain_verdict(report)
    assert (v.word, v.headline, v.next_step) == ("NOT VERIFIED", RESTORED_HEADLINE, RESTORE_NEXT_STEP)
    plain = plain_of(report.root_cause, report)
    assert plain.causes == ("whitespace between tokens (the reference writes compact JSON)",)
    assert "different checkpoints" not in v.headline and "ask the customer" not in v.next_step.lower()


def test_the_restore_story_only_when_x_bytes_is_the_root_cause_and_the_front_end_can_restore():
    """A descriptor that fails its own digest (D-DIGEST, the root cause) proves nothing: the X-BYTES that follows
    keeps its own words, though the canonical form matches the descriptor's size and digest."""
    d = json.loads(D)
    d["descriptor_digest"] = "sha256:" + "0" * 64
    report = verify(PRETTY, json.dumps(d).encode())
    assert report.root_cause.rule.id == "D-DIGEST" and report.for_rule("X-BYTES").failed
    x = report.for_rule("X-BYTES")
    assert plain_of(x, report) is rule("X-BYTES").plain
    assert plain_verdict(report).headline == rule("D-DIGEST").plain.meaning
    restorable = verify(PRETTY, D)
    assert plain_of(restorable.root_cause, restorable, restorable=False) is rule("X-BYTES").plain


def test_without_a_proof_the_rule_speaks_for_itself():
    changed = P.replace(b'"prompt":"continue"', b'"prompt":"continuE"')
    report = verify(changed, D)
    assert report.root_cause.rule.id == "X-BYTES" and report.restoration is None
    v = plain_verdict(report)
    assert (v.headline, v.next_step) == (rule("X-BYTES").plain.meaning, rule("X-BYTES").plain.next_step)
    assert plain_of(report.root_cause, report) is rule("X-BYTES").plain


def test_x_bytes_reads_stated_then_recomputed():
    payload, descriptor = _case("25-p-flip-byte")
    x = verify(payload, descriptor).for_rule("X-BYTES")
    assert comparison(x) == (("Stated", json.loads(descriptor)["content_digest"]),
                             ("Recomputed", "sha256:" + hashlib.sha256(payload).hexdigest()))
    assert str(comparison(x)[0][1]) == "sha256:52c836615a8774bfb03d128b15038ee4d90b86eb7d180165ff51f9554f85ff29"


def test_x_descriptor_reads_the_descriptors_value_first():
    x = verify(*_case("13-ds-size-zero")).for_rule("X-DESCRIPTOR")
    assert [(label, str(v)) for label, v in comparison(x)] == [("Stated", "0"), ("Recomputed", "6822")]


def test_any_other_rule_reads_expected_then_actual():
    f = verify(*_case("53-p-snapshot-version")).root_cause
    assert f.rule.compares == "expected"
    assert [label for label, _ in comparison(f)] == ["Expected", "Actual"]
    assert comparison(verify(P, D).for_rule("X-BYTES")) == ()  # a pass compared nothing


def test_the_cross_binding_rules_are_the_ones_that_say_so():
    raw = tomllib.loads(resources.files("inspector.checkpoint.rules").joinpath("rules.toml").read_text("utf-8"))
    stated = {r["id"] for r in raw["rule"] if r.get("compares") == "stated"}
    assert stated == {"X-BYTES", "X-DESCRIPTOR", "X-SNAPSHOT-EVIDENCE", "X-LOGICAL-EVIDENCE"}
    assert {r.id for r in catalogue() if r.compares == "stated"} == stated


@pytest.mark.parametrize("fmt", ["text", "markdown", "html", "json"])
def test_every_ticket_format_tells_the_restore_story_and_the_stated_value_first(fmt):
    report = verify(PRETTY, D)
    ticket = build_ticket(report, InputFile("p.json", len(PRETTY), PRETTY, "payload"),
                          InputFile("d.json", len(D), D, "descriptor"), date="2026-01-01T00:00:00Z")
    out = render(ticket, fmt)
    if fmt == "json":
        t = json.loads(out)
        assert (t["headline"], t["next_step"]) == (RESTORED_HEADLINE, RESTORE_NEXT_STEP)
        assert [c["label"] for c in t["root_cause"]["compared"]] == ["Stated", "Recomputed"]
        assert t["root_cause"]["causes"] == ["whitespace between tokens (the reference writes compact JSON)"]
        return
    shown = {"text": out, "markdown": out.replace("\\", ""), "html": html.unescape(out)}[fmt]
    assert RESTORED_HEADLINE in shown and RESTORE_NEXT_STEP in shown
    assert "different checkpoints" not in shown and "Ask the customer to send both files again" not in shown
    root = shown[shown.index("Root cause"):]
    words = ("stated:", "recomputed:") if fmt == "text" else ("Stated", "Recomputed")
    assert root.index(words[0]) < root.index(words[1]) and "xpected" not in root.split("ikely causes")[0]


def test_every_value_is_written_once_so_the_json_redaction_count_is_its_markers():
    """The JSON ticket says how many values it redacted; each is written once (``compared`` names the fields that
    hold the two values rather than copying them: the count was 18 with 20 markers)."""
    payload, descriptor = _case("25-p-flip-byte")
    ticket = build_ticket(verify(payload, descriptor), InputFile("p.json", len(payload), payload, "payload"),
                          InputFile("d.json", len(descriptor), descriptor, "descriptor"), date="2026-01-01T00:00:00Z")
    out = render(ticket, "json")
    t = json.loads(out)
    assert [c["field"] for c in t["root_cause"]["compared"]] == ["actual", "expected"]
    assert out.count("[redacted: ") == t["redaction"]["values_redacted"] == 18


def _at(doc, pointer: str):
    for part in [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]:
        if not isinstance(doc, dict) or part not in doc:
            return None
        doc = doc[part]
    return doc


def test_on_every_fixture_the_stated_value_is_the_descriptors_own():
    """Proven by the fixtures, not by reading the checks: wherever a cross-binding rule fails on a pair of cases/,
    the value shown as Stated is the descriptor's value at the place the finding points to."""
    from inspector.checkpoint.rules.registry import short_json

    seen = set()
    for p in sorted(CASES.glob("*.payload.json")):
        d = p.with_name(p.name.replace(".payload.", ".descriptor."))
        if not d.exists():
            continue
        desc_bytes = d.read_bytes()
        try:
            desc = json.loads(desc_bytes)
        except ValueError:
            continue
        for f in verify(p.read_bytes(), desc_bytes).failed():
            if f.rule.compares != "stated":
                continue
            loc = f.locations[0]
            assert loc.source == "descriptor", (p.name, f.rule.id)
            value = _at(desc, loc.pointer)
            stated = str(comparison(f)[0][1])
            if stated == "absent":  # a field the descriptor lacks: the finding points to the object that lacks it
                assert isinstance(value, dict) and str(comparison(f)[1][1]) != "absent", (p.name, f.rule.id)
            else:
                assert stated in (str(value), short_json(value)), (p.name, f.rule.id, loc.pointer, stated)
            seen.add(f.rule.id)
    assert seen == {"X-BYTES", "X-DESCRIPTOR", "X-SNAPSHOT-EVIDENCE", "X-LOGICAL-EVIDENCE"}
