"""The audit's verdicts on the 54 reference cases, the 102 ``cases-pinned`` cases and the golden pairs equal
``verify --format json``'s on the same files, record by record: verified, the root cause's rule id, code and
message (the record's as the ticket's gate renders it: equal where nothing was redacted, and equal around each
marker where something was), the generation (FORMAT.md 3.4), the lint kinds and the resumability answer."""

from __future__ import annotations

import collections
import json
import re
import shutil
from pathlib import Path

import pytest

pytest.importorskip("dask.distributed", reason="the audit needs Dask (the audit extra)")

from inspector.cli.main import main  # noqa: E402
from tests.audit.conftest import records  # noqa: E402
from tests.conftest import CASES, CASES_PINNED, GOLDEN  # noqa: E402

_MARKER = re.compile(r"\[redacted: [^\]]*\]")


def _verify_json(capsys, tmp_path, files: list[str]) -> dict:
    if len(files) == 1:  # (alone: verify would look for its other half beside it)
        alone = tmp_path / "alone" / Path(files[0]).name
        alone.parent.mkdir(exist_ok=True)
        shutil.copy(files[0], alone)
        files = [str(alone)]
    capsys.readouterr()
    main(["verify", "--format", "json", *files])
    got = json.loads(capsys.readouterr().out)
    for f in files:
        if "/alone/" in f:
            Path(f).unlink()
    return got


@pytest.mark.parametrize("folder,pairs,verified,redacted,generations", [
    (CASES, 54, 9, 3, {None: 54}), (CASES_PINNED, 102, 8, 9, {None: 89, "rejected-by-newer": 13}),
    (GOLDEN, 2, 2, 0, {None: 2})], ids=["cases", "cases-pinned", "golden"])
def test_the_audit_says_what_verify_says_of_every_case(folder, pairs, verified, redacted, generations, tmp_path,
                                                       capsys, cluster):
    out = tmp_path / "r.jsonl"
    main(["audit", str(folder), "--out", str(out), "--scheduler", cluster.scheduler_address, "--batch", "16"])
    recs = [r for r in records(out) if r["checkpoint"]]
    payload_files = sorted(str(p) for p in folder.iterdir() if p.name not in ("README.md", "cases.jsonl")
                           and "payload" in p.name)
    assert len(payload_files) == pairs  # (every case has its payload; the golden pairs are named payload-*)
    assert sorted(r["payload"] for r in recs if r["payload"]) == payload_files
    marked = 0
    for r in recs:
        files = [f for f in (r["payload"], r["descriptor"]) if f]
        want = _verify_json(capsys, tmp_path, files)
        rc = want["root_cause"]
        where = f"{files}"
        assert r["verified"] is want["verified"], where
        assert (r["root_cause"] or {}).get("rule") == (rc or {}).get("rule"), where
        assert (r["root_cause"] or {}).get("code") == (rc or {}).get("code"), where
        if rc is not None:
            shown = r["root_cause"]["message"]
            if _MARKER.search(shown):
                marked += 1
                pattern = ".+".join(re.escape(piece) for piece in _MARKER.split(shown))
                assert re.fullmatch(pattern, rc["message"], re.S), where
            else:
                assert shown == rc["message"], where
        assert r["generation"] == (want["generation"] or {}).get("detected"), where
        assert r["lint"] == sorted({x["kind"] for x in want["lint"]}), where
        assert r["resumability"] == (want["resumability"] or {}).get("answer"), where
        assert r["sha256"] == (want["inputs"]["payload"] or {}).get("sha256"), where
    # every case is a pair of its folder (none alone), and the verdicts are the cases' own
    assert all(r["payload"] and r["descriptor"] for r in recs)
    assert (len(recs), sum(r["verified"] for r in recs), marked) == (pairs, verified, redacted)
    assert collections.Counter(r["generation"] for r in recs) == generations
