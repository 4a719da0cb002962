"""JSON a script can depend on (docs/json-schemas.md): every JSON output names its schema and version, the
schemas ship in the package, each command's JSON on the fixtures validates against its schema (run here as a
user runs it, in a subprocess), the outputs the rest of the suite writes in-process are validated as they are
written (tests/schemacheck.py), and a schema file cannot change under the same version."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.conftest import CASES, CASES_PINNED, GOLDEN, ROOT, fixture_pairs

jsonschema = pytest.importorskip("jsonschema", reason="jsonschema is a dev dependency")

from inspector import jsonschemas  # noqa: E402

#: Each schema's SHA-256: a schema file that changes keeps no version. A changed output shape needs a new
#: version: a new name (``.v2``), a new file, and a new line here; the old line goes with the old file.
PINNED = {
    jsonschemas.VERIFY: "d379a532b7b153a36e06b2aba72bb2ac3380538d690c3aab2378af645b83bd74",
    jsonschemas.TIMELINE: "82d61a0a88897214e3793ad312447a01dff5a1669400cb3ce7b416d7803c6fb9",
    jsonschemas.DIFF: "c1309a091fea2b13897815f61ba0ea987b02c58843d106a85c6c1e5de31319bd",
    jsonschemas.SCAN: "4bdc94081eea71b905d62f6244b3b3787c0a453de832ff8395b156cbe85119c1",
    jsonschemas.SCAN_EVENT: "93a9cd0ab020a2bc9469958e349cb80b9d9e304540f2bf77c030cda5b560a38c",
    jsonschemas.TICKET: "a262ffd0c3f614bd19a788fbbf14775dce0873da9a70ca507aaf1dad73f09673",
    jsonschemas.AUDIT_RECORD: "fe129476eb7afbda8ffdb818ac6d7fc271663279178f95bd5c45a9d31e63bd35",
    jsonschemas.AUDIT_SUMMARY: "5997c3bf552f4ec5741513b85c77db236efec7dd4ce356cb188035951c7ae65d",
}


def _file(name: str):
    return ROOT / "inspector" / "jsonschemas" / jsonschemas.file_name(name)


def test_each_schema_is_a_valid_draft_2020_12_schema_named_for_its_output():
    assert set(PINNED) == set(jsonschemas.ALL)
    names = sorted(p.name for p in (ROOT / "inspector" / "jsonschemas").glob("*.schema.json"))
    assert names == sorted(jsonschemas.file_name(n) for n in jsonschemas.ALL)
    for name in jsonschemas.ALL:
        schema = jsonschemas.load(name)
        jsonschema.Draft202012Validator.check_schema(schema)
        assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
        assert schema["title"] == name
        assert schema["properties"]["schema"] == {"const": name} and "schema" in schema["required"]
        # a new member is a new shape: the output fails (each alternative's members closed, for a oneOf)
        closed = [schema] if "oneOf" not in schema else schema["oneOf"]
        assert all(s["additionalProperties"] is False for s in closed), name


def test_a_schema_file_never_changes_under_its_version():
    digests = {name: hashlib.sha256(_file(name).read_bytes()).hexdigest() for name in jsonschemas.ALL}
    assert digests == PINNED, ("a schema changed: give the output a new version (a new name and file) instead "
                               "of changing the old one")


def _run(*argv: str):
    p = subprocess.run([sys.executable, "-m", "inspector", *argv], cwd=ROOT, capture_output=True)
    return p.returncode, p.stdout


def _pairs():
    return [(GOLDEN / "payload-with-resume.json", GOLDEN / "descriptor-with-resume.json")] + fixture_pairs()


def _valid(name: str, data: bytes) -> dict:
    doc = json.loads(data)
    assert doc["schema"] == name
    errors = sorted(jsonschema.Draft202012Validator(jsonschemas.load(name)).iter_errors(doc), key=str)
    assert errors == [], [f"{list(e.absolute_path)}: {e.message[:200]}" for e in errors[:3]]
    return doc


def test_verify_timeline_report_and_diff_json_on_every_fixture_validate():
    pairs = _pairs()
    jobs = []
    for p, d in pairs:
        files = [str(p)] + ([str(d)] if d else [])
        jobs += [(jsonschemas.VERIFY, ("verify", "--format", "json", *files)),
                 (jsonschemas.TIMELINE, ("timeline", "--format", "json", *files)),
                 (jsonschemas.TICKET, ("report", "--format", "json", *files))]
        if d:
            jobs.append((jsonschemas.VERIFY, ("verify", "--format", "json", str(d))))
    for (a, _), (b, _) in zip(pairs, pairs[1:]):
        jobs.append((jsonschemas.DIFF, ("diff", "--format", "json", str(a), str(b))))
    with ThreadPoolExecutor(max_workers=2) as pool:
        results = list(pool.map(lambda job: (job[0], _run(*job[1])), jobs))
    seen = {}
    for name, (code, data) in results:
        if code in (0, 1) and data.strip():  # (refused, exit 2, or a payload timeline cannot decode: no JSON)
            _valid(name, data)
            seen[name] = seen.get(name, 0) + 1
    assert seen[jsonschemas.VERIFY] > 150 and seen[jsonschemas.DIFF] > 60 and seen[jsonschemas.TICKET] > 60
    assert seen[jsonschemas.TIMELINE] > 60


def test_scan_json_validates():
    for folder in (CASES, CASES_PINNED, GOLDEN):
        code, data = _run("scan", "--format", "json", str(folder))
        assert code in (0, 1)
        doc = _valid(jsonschemas.SCAN, data)
        assert doc["sessions"] or doc["other_files"]


def test_the_outputs_of_odd_inputs_validate(tmp_path):
    """What the fixtures do not show: a ticket for files that are not a checkpoint (exit 2), a diff of standard
    input (no URI), and the watch's lines: a payload judged alone once its wait for a descriptor is over, and a
    look that fails (the folder went away)."""
    (tmp_path / "empty.json").write_bytes(b"")
    code, data = _run("report", "--format", "json", str(tmp_path / "empty.json"))
    assert code == 2 and _valid(jsonschemas.TICKET, data)["verdict"] == "NOT A CHECKPOINT"
    payload = GOLDEN / "payload-with-resume.json"
    p = subprocess.run([sys.executable, "-m", "inspector", "diff", "--format", "json", str(payload), "-"], cwd=ROOT,
                       capture_output=True, stdin=open(GOLDEN / "payload-semantic-only.json", "rb"))
    assert p.returncode == 1 and _valid(jsonschemas.DIFF, p.stdout)["b"]["uri"] is None
    import shutil
    import time

    watched = tmp_path / "watched"
    watched.mkdir()
    shutil.copyfile(payload, watched / "a.payload.json")
    proc = subprocess.Popen([sys.executable, "-m", "inspector", "scan", str(watched), "--watch", "--format", "jsonl",
                             "--interval", "0.2", "--settle", "0.2", "--pair-wait", "0.5"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        lines = []
        deadline = time.monotonic() + 60
        while len(lines) < 2 and time.monotonic() < deadline:
            lines.append(json.loads(proc.stdout.readline()))
        shutil.rmtree(watched)  # the next look fails: one error line, and the watch goes on
        while time.monotonic() < deadline:
            line = json.loads(proc.stdout.readline())
            lines.append(line)
            if line["event"] == "error":
                break
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    events = [x["event"] for x in lines]
    assert events[:2] == ["export", "latest"] and events[-1] == "error", events
    assert lines[0]["descriptor"] is None  # judged alone
    for line in lines:
        _valid(jsonschemas.SCAN_EVENT, json.dumps(line).encode())


def test_an_output_with_a_new_member_fails_its_schema():
    code, data = _run("verify", "--format", "json", str(GOLDEN / "payload-with-resume.json"),
                      str(GOLDEN / "descriptor-with-resume.json"))
    doc = json.loads(data)
    doc["rules"][0]["extra"] = 1
    errors = list(jsonschema.Draft202012Validator(jsonschemas.load(jsonschemas.VERIFY)).iter_errors(doc))
    assert [list(e.absolute_path) for e in errors] == [["rules", 0]]
    assert "Additional properties are not allowed ('extra' was unexpected)" in errors[0].message


def test_the_schemas_ship_in_the_wheel_and_are_documented():
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "inspector.jsonschemas" in config["packages"]
    assert config["package-data"]["inspector.jsonschemas"] == ["*.schema.json"]
    doc = (ROOT / "docs" / "json-schemas.md").read_text()
    for name in jsonschemas.ALL:
        assert f"`{name}`" in doc and f"../inspector/jsonschemas/{jsonschemas.file_name(name)}" in doc
