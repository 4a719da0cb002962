"""``checks_loop`` holds FORMAT.md 6.4's rules but L-CAPABILITY-VALID (a binding's ``validate()``: in
``checks_bindings``)."""

from tests.checkpoint.rules.sections import registered_by, rule_ids_by_section


def test_the_module_registers_section_6_4_but_the_capability_binding():
    assert set(registered_by("checks_loop")) == set(rule_ids_by_section()["6.4"]) - {"L-CAPABILITY-VALID"}
    assert len(registered_by("checks_loop")) == 11


def test_the_four_sections_are_the_catalogue():
    from inspector.checkpoint import catalogue

    sections = rule_ids_by_section()
    assert sorted(sections) == ["6.1", "6.2", "6.3", "6.4"]
    assert sorted(r for ids in sections.values() for r in ids) == sorted(r.id for r in catalogue())
