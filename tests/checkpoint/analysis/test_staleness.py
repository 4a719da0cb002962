"""What a change makes stale in the descriptor (FORMAT.md 3.2), held to the descriptor the reference builds.

Each case changes the golden with-resume payload at one place, builds the descriptor the reference's
``build_descriptor`` makes for the old and the new bytes (pinned by the golden descriptor), and takes the
descriptor fields that differ: :func:`invalidates_payload` must name exactly those (a container pointer such as
``/snapshot`` stands for every field under it).
"""

from __future__ import annotations

import orjson
import pytest

from inspector.checkpoint import encode
from inspector.checkpoint.analysis.staleness import invalidates_descriptor, invalidates_payload
from inspector.checkpoint.rules.context import build_descriptor
from tests.conftest import GOLDEN

PAYLOAD = (GOLDEN / "payload-with-resume.json").read_bytes()


def _leaves(d: dict, prefix: str = "") -> dict[str, object]:
    out = {}
    for k, v in d.items():
        if isinstance(v, dict):
            out.update(_leaves(v, f"{prefix}/{k}"))
        else:
            out[f"{prefix}/{k}"] = v
    return out


def _stale(change) -> tuple[set[str], bool]:
    """The descriptor leaves that differ after ``change`` edits the decoded payload; whether the size moved."""
    old = orjson.loads(PAYLOAD)
    new = orjson.loads(PAYLOAD)
    change(new)
    new_bytes = encode(new)
    a = _leaves(build_descriptor(old, PAYLOAD))
    b = _leaves(build_descriptor(new, new_bytes))
    return {k for k in a.keys() | b.keys() if a.get(k) != b.get(k)}, len(new_bytes) != len(PAYLOAD)


def _named(pointers: tuple[str, ...]) -> set[str]:
    """``pointers`` with the container pointers spelled out as the leaves the golden descriptor has under them."""
    leaves = set(_leaves(orjson.loads((GOLDEN / "descriptor-with-resume.json").read_bytes())))
    out = set()
    for p in pointers:
        under = {leaf for leaf in leaves if leaf.startswith(p + "/")}
        out |= under or {p}
    return out


def _set(path, value):
    def change(payload):
        node = payload
        for token in path[:-1]:
            node = node[token]
        node[path[-1]] = value
    return change


CASES = {
    # identity fields feed their evidence field as well as the component's digests
    "snapshot session id": (("snapshot", "session", "id"), "session-other-id-0000000000000000"),
    "logical resume turn": (("logical_resume", "turn"), 7),
    "logical resume run id": (("logical_resume", "run_id"), "run-other"),
    "logical checkpoint_ms": (("logical_resume", "checkpoint_ms"), 1),
    # a change inside a component that no evidence field names: its digests and sizes, the file's digests
    "snapshot message text": (("snapshot", "session", "messages", 0, "content", 0, "text"), "a different text"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_named_fields_are_the_ones_that_change(name):
    path, value = CASES[name]
    stale, size_changes = _stale(_set(path, value))
    assert stale, "the change must move the descriptor"
    assert _named(invalidates_payload(path, size_changes)) == stale


def test_same_size_change_keeps_the_sizes():
    path = ("logical_resume", "turn")
    old = orjson.loads(PAYLOAD)["logical_resume"]["turn"]
    stale, size_changes = _stale(_set(path, old + 1 if old % 10 != 9 else old - 1))
    assert size_changes is False
    assert "/size_bytes" not in stale and "/logical_resume/size_bytes" not in stale
    assert invalidates_payload(path, False) == (
        "/logical_resume/completed_tool_rounds", "/logical_resume/content_digest", "/logical_resume/evidence_digest",
        "/content_digest", "/descriptor_digest")


def test_whole_payload_and_descriptor_edits():
    assert invalidates_payload((), True) == ("/snapshot", "/logical_resume", "/size_bytes", "/content_digest",
                                             "/descriptor_digest")
    assert invalidates_descriptor(()) == ("/descriptor_digest",)
    assert invalidates_descriptor(("descriptor_digest",)) == ()
    assert invalidates_descriptor(("snapshot", "session_id")) == ("/snapshot/evidence_digest", "/descriptor_digest")
    assert invalidates_descriptor(("snapshot", "evidence_digest")) == ("/descriptor_digest",)
    assert invalidates_descriptor(("size_bytes",)) == ("/descriptor_digest",)
