"""Plain language for every rule: plain.toml covers the catalogue exactly, and `explain` shows it."""

import re
import tomllib
from importlib import resources

import pytest

from inspector.checkpoint import catalogue
from inspector.checkpoint.rules.catalogue import catalogue_version, plain_texts
from inspector.cli import main

RAW = tomllib.loads(resources.files("inspector.checkpoint.rules").joinpath("plain.toml").read_text("utf-8"))


def test_every_catalogue_rule_has_plain_language_and_nothing_else_does():
    ids = [r.id for r in catalogue()]
    assert set(RAW["rule"]) == set(ids)
    for r in catalogue():
        p = r.plain
        assert p is not None, r.id
        # one sentence: starts with a capital, ends with a period, no second sentence inside
        assert re.fullmatch(r"[A-Z][^\n]*\.", p.meaning), r.id
        assert not re.search(r"\. [A-Z]", p.meaning), (r.id, p.meaning)
        assert p.causes and all(c and c[0].islower() and not c.endswith(".") for c in p.causes), r.id
        assert re.fullmatch(r"[A-Z][^\n]*\.", p.next_step), r.id


def test_the_fifteen_binding_rules_are_covered():
    binding = {"S-DURABLE-VALID", "S-DURABLE-TENANT", "S-DURABLE-PRINCIPAL", "S-COGNITIVE", "S-RUN-COGNITIVE",
               "S-RUN-CAPABILITY", "S-EVENT-COGNITIVE-VALID", "S-EVENT-COGNITIVE-RUN", "S-EVENT-COGNITIVE-LEGACY",
               "S-TOOLEND-BINDING-PARSE", "S-TOOLEND-BINDING-INVALID", "S-TOOLEND-EVIDENCE-MISSING",
               "S-TOOLEND-EVIDENCE-PARSE", "S-TOOLEND-EVIDENCE-MISMATCH", "L-CAPABILITY-VALID"}
    assert binding <= {r.id for r in catalogue() if r.plain is not None}


def test_x_bytes_says_what_support_repeats():
    p = next(r for r in catalogue() if r.id == "X-BYTES").plain
    assert p.meaning == ("The payload file is not the one the descriptor was made for: it was changed after export, "
                         "or the two files come from different checkpoints.")
    assert "not opened in an editor" in p.next_step


def test_report_texts():
    texts = plain_texts()
    assert [t.split(":")[0] for t in texts["not_proven"]] == [
        "Integrity is not authenticity", "A digest is not a signature", "Host facts the artifact cannot prove"]
    assert texts["not_a_checkpoint"] == "This is not a checkpoint file."
    assert re.fullmatch(rf"{len(catalogue())} rules, sha256:[0-9a-f]{{16}}", catalogue_version())


@pytest.mark.parametrize("rule", [r.id for r in catalogue()])
def test_explain_prints_the_plain_text_of_every_rule(rule, capsysbinary):
    assert main(["explain", rule.lower()]) == 0
    out = capsysbinary.readouterr().out.decode()
    r = next(x for x in catalogue() if x.id == rule)
    assert out.startswith(f"{rule}: {r.title}\n\n  In plain words: {r.plain.meaning}\n  Likely causes:\n")
    for c in r.plain.causes:
        assert f"\n    - {c}\n" in out
    assert f"\n  Next step: {r.plain.next_step}\n" in out
    assert f"  message:   {r.prefix}{r.message}\n" in out  # the reference text stays beside it
