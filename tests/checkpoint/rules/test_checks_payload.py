"""``checks_payload`` holds FORMAT.md 6.2's rules but P-SESSION-ID, which runs after the S-rules (6.2's own row
says so) and lives with them in ``checks_snapshot``."""

from tests.checkpoint.rules.sections import registered_by, rule_ids_by_section


def test_the_module_registers_section_6_2_but_the_session_id_check():
    assert set(registered_by("checks_payload")) == set(rule_ids_by_section()["6.2"]) - {"P-SESSION-ID"}
    assert registered_by("checks_payload") == [
        "P-BOUND", "P-LENGTH-REPR", "X-BYTES", "P-PARSE", "P-SCHEMA", "E-ENCODING", "P-CANONICAL", "X-DESCRIPTOR",
        "X-SNAPSHOT-EVIDENCE", "X-LOGICAL-EVIDENCE"]
    assert "P-SESSION-ID" in registered_by("checks_snapshot")
