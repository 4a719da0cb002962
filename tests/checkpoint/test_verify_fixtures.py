"""The shared fixtures: golden pins and every case's reference verdict (FORMAT.md 9, fixtures/README.md)."""

import pytest

from inspector.checkpoint import Verdict, content_digest, verify
from tests.conftest import CASES, GOLDEN, load_cases

PINS = {
    "with-resume": dict(
        size=2090, content="sha256:122347d3f89487c21d788c9dda54b5883f4e79459aae7b6e4bfd5728049312e0",
        snap_size=1449, snap_content="sha256:8e08a5afbc93ae80421ee0a6d366b5b435fcb908a2698a2f4d00c63e862b7b10",
        snap_evidence="sha256:bcf4108a8ebc5c94c2722d25c513e58a2926e8bd6def80ddae8d6a2aff77363d",
        lr_size=560, lr_content="sha256:d114b0ee11cd2e9e855ef04929f9f3683310ff0d45ddd4179dd5eb8411dc595d",
        lr_evidence="sha256:76b51a55eecc62343df274dba53d051bfff4961541d36214458d6b1c5f9ad5ee",
        descriptor="sha256:8492af9da1760810869d7e0e25e8b3f7850e31152056596fed3c74872efa1b44"),
    "semantic-only": dict(
        size=1315, content="sha256:b38d9d92d26696ace3bd37966a2d450a8d9d855d5090ddad3f59d58646775c2a",
        snap_size=1252, snap_content="sha256:57c1e9ed322541220502b05d83017071baae522cd5d030a1509e18f808b532cb",
        snap_evidence="sha256:13b737c3373cdee2a0e055a963430ccfefc5199bf986dbcf178d573a9851ef14",
        descriptor="sha256:3b4f6308155695c91438823c27fddc8c5d47c8ed11fc48a37bd0bf08f18df8e6"),
}


@pytest.mark.parametrize("name", sorted(PINS))
def test_golden_pins_reproduced(name):
    pin = PINS[name]
    payload = (GOLDEN / f"payload-{name}.json").read_bytes()
    descriptor = (GOLDEN / f"descriptor-{name}.json").read_bytes()
    report = verify(payload, descriptor)
    assert report.verified and report.root_cause is None
    rows = {row.label: row for row in report.digests}
    assert all(row.matches in (True, None) for row in report.digests)
    assert rows["payload size_bytes"].recomputed == pin["size"] == len(payload)
    assert rows["payload content_digest"].recomputed == pin["content"] == content_digest(payload)
    assert rows["snapshot size_bytes"].recomputed == pin["snap_size"]
    assert rows["snapshot content_digest"].recomputed == pin["snap_content"]
    assert rows["snapshot evidence_digest"].recomputed == pin["snap_evidence"]
    assert rows["descriptor_digest"].recomputed == pin["descriptor"]
    if "lr_size" in pin:
        assert rows["logical resume size_bytes"].recomputed == pin["lr_size"]
        assert rows["logical resume content_digest"].recomputed == pin["lr_content"]
        assert rows["logical resume evidence_digest"].recomputed == pin["lr_evidence"]
    else:
        assert "logical resume evidence_digest" not in rows
    # describe: the descriptor it should have, byte for byte
    assert report.expected_descriptor == descriptor


def test_older_upstream_pin_is_reproduced_and_recognised_as_earlier_generation():
    """Removing retained_artifact_uris reproduces the b49e2b2/b5ab240 pin (FORMAT.md 9)."""
    payload = (GOLDEN / "payload-with-resume.json").read_bytes()
    older = payload.replace(b'"retained_artifact_uris":[],', b"")
    assert len(older) == 2062
    assert content_digest(older) == "sha256:9e66c6ab9896727d3094ec9278974001e80a70c25b199b4706efd7e1c6520302"
    report = verify(older, None)
    rows = {row.label: row for row in report.digests}
    assert rows["descriptor_digest"].recomputed != "sha256:6d01924f9b243433fde22496958090f8017d87695af7dd3646c306675b97e8a4"
    f = report.for_rule("P-CANONICAL")
    assert f.verdict is Verdict.FAIL
    assert any("earlier reference generation" in n for n in f.notes)
    assert any("field missing from the file that the reference always writes" in n for n in f.notes)


CASE_ROWS = load_cases()


@pytest.mark.parametrize("case", CASE_ROWS, ids=[c["id"] for c in CASE_ROWS])
def test_case_root_cause_matches_reference(case):
    report = verify((CASES / case["payload"]).read_bytes(), (CASES / case["descriptor"]).read_bytes())
    rc = report.root_cause
    if case["ok"]:
        assert rc is None and report.verified
        return
    assert rc is not None
    assert (rc.rule.id, rc.rule.code, rc.message) == (case["rule"], case["code"], case["message"])
    assert rc.locations, "a failure always has a location"


def test_case_count():
    assert len(CASE_ROWS) == 54
    assert sum(c["ok"] for c in CASE_ROWS) == 9


def test_older_upstream_pin_reproduced_positively_from_its_own_snapshot_bytes():
    """The b49e2b2/b5ab240 pin: evidence and descriptor digests over the older snapshot bytes."""
    from inspector.checkpoint import DESCRIPTOR_DOMAIN, SNAPSHOT_DOMAIN, domain_digest, parse_value
    from inspector.checkpoint.digest import descriptor_digest_input, snapshot_evidence_input

    payload = (GOLDEN / "payload-with-resume.json").read_bytes()
    older = payload.replace(b'"retained_artifact_uris":[],', b"")
    descriptor = parse_value((GOLDEN / "descriptor-with-resume.json").read_bytes())
    _, root = parse_value(older, nodes=True)
    snap = root.find("/snapshot")
    snap_bytes = older[snap.start:snap.end]  # the component appears verbatim in the payload
    ev = dict(descriptor["snapshot"], size_bytes=len(snap_bytes), content_digest=content_digest(snap_bytes))
    ev["evidence_digest"] = domain_digest(SNAPSHOT_DOMAIN, snapshot_evidence_input(ev))
    assert ev["evidence_digest"] == "sha256:0388b0c594c04f00f13b3a6954754385b847f0f68e0d72382e7edf89903653f0"
    desc = dict(descriptor, snapshot=ev, size_bytes=len(older), content_digest=content_digest(older))
    assert domain_digest(DESCRIPTOR_DOMAIN, descriptor_digest_input(desc)) == \
        "sha256:6d01924f9b243433fde22496958090f8017d87695af7dd3646c306675b97e8a4"
    # the logical evidence is unchanged between the generations
    assert descriptor["logical_resume"]["evidence_digest"] == \
        "sha256:76b51a55eecc62343df274dba53d051bfff4961541d36214458d6b1c5f9ad5ee"


def test_missing_default_field_points_where_the_reference_writes_it():
    payload = (GOLDEN / "payload-with-resume.json").read_bytes()
    older = payload.replace(b'"retained_artifact_uris":[],', b"")
    f = verify(older, None).for_rule("P-CANONICAL")
    i = older.index(b'"run_records"')  # retained_artifact_uris sorts just before run_records
    assert f.locations[0].pointer == "/snapshot/retained_artifact_uris"
    assert f.locations[0].span == (i, i + 1)
    assert "first differing byte: offset %d" % (i + 2) in f.notes  # both keys start with "r
