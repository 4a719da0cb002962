"""Every field of the descriptor (FORMAT.md 3.3, the typed layout ``schema.model.DESCRIPTOR``) has its three
homes: the descriptor the payload should have (``build_descriptor``, ``Report.expected_descriptor``) writes it;
each size and digest has its row in the digests pane (``Report.digests``); and the ticket's allow-list decides it
(shown in clear, or a size or digest with its own treatment), so a field added to the format cannot reach a
report as an unknown value, nor miss its recomputation."""

from __future__ import annotations

import json

from inspector.checkpoint import verify
from inspector.checkpoint.jsontext.pointer import split
from inspector.checkpoint.schema import model as S
from inspector.ticket.allowlist import allowlist
from tests.conftest import GOLDEN


def _leaves(t, prefix: str = "") -> list[str]:
    """The JSON Pointers of the leaf fields of struct ``t`` (an optional struct's fields included)."""
    out = []
    for f in t.fields:
        ft = f.type.inner if isinstance(f.type, S.Opt) else f.type
        pointer = f"{prefix}/{f.key}"
        out += _leaves(ft, pointer) if isinstance(ft, S.Struct) else [pointer]
    return out


LEAVES = _leaves(S.DESCRIPTOR)


def _at(doc, pointer: str):
    for key in split(pointer):
        doc = doc[key]
    return doc


def test_the_layout_has_the_fields_format_md_names():
    assert len(LEAVES) == 23
    assert {"/schema", "/format", "/media_type", "/size_bytes", "/content_digest", "/descriptor_digest",
            "/snapshot/evidence_digest", "/logical_resume/completed_tool_rounds", "/logical_resume/checkpoint_ms"} \
        <= set(LEAVES)


def test_every_field_is_written_recomputed_and_decided_by_the_allow_list():
    report = verify((GOLDEN / "payload-with-resume.json").read_bytes(),
                    (GOLDEN / "descriptor-with-resume.json").read_bytes())
    assert report.verified
    built = json.loads(report.expected_descriptor)
    stated = json.loads((GOLDEN / "descriptor-with-resume.json").read_bytes())
    rows = {d.pointer: d for d in report.digests}
    allow = allowlist()
    for pointer in LEAVES:
        assert _at(built, pointer) == _at(stated, pointer), pointer  # build_descriptor writes it, as exported
        name = pointer.rsplit("/", 1)[1]
        if name == "size_bytes" or name.endswith("_digest"):
            assert pointer in rows and rows[pointer].matches, pointer  # recomputed, in the digests pane
        decided = allow.allows("descriptor", pointer) or allow.withheld("descriptor", pointer) \
            or allow.file_digest("descriptor", pointer)
        assert decided, pointer
    assert set(rows) == {p for p in LEAVES if p.endswith(("/size_bytes", "_digest"))}
