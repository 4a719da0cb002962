"""The format's constants (inspector/checkpoint/constants.py) are FORMAT.md 2's table, value for value."""

from __future__ import annotations

import re

from inspector.checkpoint import constants
from tests.conftest import SHARED

#: FORMAT.md 2's names (the reference's) -> ours.
NAMES = {
    "SESSION_CHECKPOINT_DESCRIPTOR_SCHEMA_V1": "DESCRIPTOR_SCHEMA",
    "SESSION_CHECKPOINT_PAYLOAD_SCHEMA_V1": "PAYLOAD_SCHEMA",
    "SESSION_SNAPSHOT_EVIDENCE_SCHEMA_V1": "SNAPSHOT_EVIDENCE_SCHEMA",
    "SESSION_LOGICAL_RESUME_EVIDENCE_SCHEMA_V1": "LOGICAL_EVIDENCE_SCHEMA",
    "SESSION_CHECKPOINT_FORMAT_V1": "FORMAT",
    "SESSION_CHECKPOINT_MEDIA_TYPE_V1": "MEDIA_TYPE",
    "SESSION_CHECKPOINT_ENCODING_V1": "ENCODING",
    "SESSION_CHECKPOINT_LOGICAL_RESUME_SEMANTICS_V1": "RESUME_SEMANTICS",
    "SESSION_CHECKPOINT_MAX_CONTENT_BYTES": "MAX_CONTENT_BYTES",
    "snapshot evidence digest domain (private)": "SNAPSHOT_DOMAIN",
    "logical-resume evidence digest domain (private)": "LOGICAL_DOMAIN",
    "descriptor digest domain (private)": "DESCRIPTOR_DOMAIN",
    "MAX_ID_BYTES": "MAX_ID_BYTES",
}


def _table() -> dict[str, str]:
    text = (SHARED / "FORMAT.md").read_text(encoding="utf-8")
    section = text.split("\n## 2. Constants", 1)[1].split("\n## 3.", 1)[0]
    rows = re.findall(r"^\| (.+?) \| (.+?) \|$", section, re.MULTILINE)
    return {name: value for name, value in rows if name not in ("Name", "---")}


def test_every_constant_is_format_md_2_s_value():
    table = _table()
    assert set(NAMES) <= set(table), set(NAMES) - set(table)
    for theirs, ours in NAMES.items():
        cell = table[theirs]
        value = getattr(constants, ours)
        if isinstance(value, int):
            assert cell.split()[0] == str(value), theirs
        else:
            assert cell == f"`{value}`", theirs
    assert sorted(NAMES.values()) == sorted(constants.__all__)  # nothing here that FORMAT.md 2 does not name


def test_the_engine_names_each_constant_once():
    """The floors above take the constants from here: no other module of the engine spells one."""
    from pathlib import Path

    import inspector.checkpoint as engine

    root = Path(engine.__file__).parent
    spelled = {getattr(constants, n): n for n in constants.__all__ if isinstance(getattr(constants, n), str)}
    found = []
    for path in root.rglob("*.py"):
        if path.name == "constants.py":
            continue
        text = path.read_text(encoding="utf-8")
        found += [(path.name, name) for value, name in spelled.items() if f'"{value}"' in text]
    assert found == []
