"""``checks_snapshot`` holds FORMAT.md 6.3's invariants that are not a binding's ``validate()`` (those are in
``checks_bindings``), and 6.2's P-SESSION-ID, checked after them."""

from tests.checkpoint.rules.sections import registered_by, rule_ids_by_section


def test_the_module_registers_the_snapshot_invariants_and_the_session_id_check():
    snapshot = registered_by("checks_snapshot")
    assert snapshot == ["S-VERSION", "S-SESSION-MATCH", "S-TRANSFORM-POLICY", "S-IMMUTABLE", "S-RUN-DUP", "S-RUN-OWNER",
                        "S-EVENT-SEQ", "S-EVENT-COUNT-OVERFLOW", "S-EVENT-COUNT", "S-SUBAGENT-OWNER", "P-SESSION-ID"]
    section = set(rule_ids_by_section()["6.3"])
    assert set(snapshot) - {"P-SESSION-ID"} <= section
    # with the bindings' checks, the whole of 6.3 and nothing of it twice
    bindings = set(registered_by("checks_bindings")) - {"L-CAPABILITY-VALID"}
    assert (set(snapshot) - {"P-SESSION-ID"}) | bindings == section
    assert not set(snapshot) & bindings
