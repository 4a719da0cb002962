"""``checks_descriptor`` holds FORMAT.md 6.1's rules, every one of them and nothing else."""

from tests.checkpoint.rules.sections import registered_by, rule_ids_by_section


def test_the_module_registers_exactly_section_6_1():
    assert set(registered_by("checks_descriptor")) == set(rule_ids_by_section()["6.1"])
    assert len(registered_by("checks_descriptor")) == 28
    assert registered_by("checks_descriptor")[:3] == ["D-PARSE", "D-SCHEMA", "D-FORMAT"]  # the host's parse first
