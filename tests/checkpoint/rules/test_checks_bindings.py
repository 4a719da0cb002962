"""``checks_bindings`` holds the rules whose check is a binding's ``validate()`` (FORMAT.md 6.3 catalogs C, D, S,
R and T): the snapshot's binding invariants and 6.4's L-CAPABILITY-VALID (catalog R on the loop checkpoint)."""

from tests.checkpoint.rules.sections import registered_by, rule_ids_by_section


def test_the_module_registers_the_binding_rules_of_6_3_and_6_4():
    rules = registered_by("checks_bindings")
    assert rules == [
        "S-DURABLE-VALID", "S-DURABLE-TENANT", "S-DURABLE-PRINCIPAL", "S-COGNITIVE", "S-RUN-COGNITIVE", "S-RUN-CAPABILITY",
        "S-EVENT-COGNITIVE-VALID", "S-EVENT-COGNITIVE-RUN", "S-EVENT-COGNITIVE-LEGACY", "S-TOOLEND-BINDING-PARSE",
        "S-TOOLEND-BINDING-INVALID", "S-TOOLEND-EVIDENCE-MISSING", "S-TOOLEND-EVIDENCE-PARSE",
        "S-TOOLEND-EVIDENCE-MISMATCH", "L-CAPABILITY-VALID"]
    sections = rule_ids_by_section()
    assert set(rules[:-1]) <= set(sections["6.3"]) and rules[-1] in sections["6.4"]
