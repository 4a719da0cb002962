"""Shared fixtures: paths to the format's ground truth, offscreen Qt for GUI tests.

Where the ground truth comes from (first match wins):

1. ``$CHECKPOINT_SHARED``, when set: an explicit path to a shared ground-truth folder (the layout of
   ``../shared``: ``fixtures/``, ``vectors/``, ``FORMAT.md``). Used for everything, so a newer copy can
   be tested before it is vendored.
2. ``tests/data/``: the vendored copy (golden pairs, ``cases/``, ``cases-pinned/``, the vectors), refreshed
   by ``tools/vendor_ground_truth.py`` with a SHA-256 manifest. A lone clone passes the tests with it.

``FORMAT_MD`` is ``$CHECKPOINT_SHARED/FORMAT.md``, else the copy vendored in ``tests/data``, else ``None``
and the tests that read it skip.

Every JSON output of an in-process command run is validated against its JSON Schema (:mod:`tests.schemacheck`):
a test whose output does not match fails.
"""

import json
import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

try:  # (jsonschema is a dev dependency; without it the outputs are not validated)
    import jsonschema  # noqa: F401
except ImportError:
    schemacheck = None
else:
    from tests import schemacheck

    schemacheck.install()  # before any test imports a command's module

ROOT = Path(__file__).resolve().parent.parent
VENDORED = ROOT / "tests" / "data"
_ENV_SHARED = os.environ.get("CHECKPOINT_SHARED")
#: Root of the ground truth used by the tests (an explicit ``$CHECKPOINT_SHARED`` wins over ``tests/data``).
SHARED = Path(_ENV_SHARED) if _ENV_SHARED else VENDORED
GOLDEN = SHARED / "fixtures" / "golden"
CASES = SHARED / "fixtures" / "cases"
CASES_PINNED = SHARED / "fixtures" / "cases-pinned"
SCENARIOS = SHARED / "fixtures" / "scenarios"
VECTORS = SHARED / "vectors" / "canonical-v1.jsonl"
SAMPLES = ROOT / "resources" / "samples"


def _format_md() -> Path | None:
    for base in ([Path(_ENV_SHARED)] if _ENV_SHARED else []) + [VENDORED, ROOT.parent / "shared"]:
        if (base / "FORMAT.md").is_file():
            return base / "FORMAT.md"
    return None


#: FORMAT.md of the ground truth: $CHECKPOINT_SHARED's, else the copy vendored in tests/data.
FORMAT_MD = _format_md()
needs_format_md = pytest.mark.skipif(FORMAT_MD is None, reason="FORMAT.md not found (vendored in tests/data: "
                                     "refresh with tools/vendor_ground_truth.py)")


def pytest_configure(config):
    if not (GOLDEN / "payload-with-resume.json").is_file():
        pytest.exit(f"the format's ground truth is missing: expected {GOLDEN} (tests/data/ is vendored in the "
                    "repository; CHECKPOINT_SHARED, when set, must point to a folder with fixtures/ and vectors/)",
                    returncode=2)


#: Set by .ci/run where the Rust reference is built: a test skipped for want of it (a reason naming oracle2)
#: fails instead, so that the differential tests cannot fall silent in CI.
REQUIRE_ORACLE = os.environ.get("CHECKPOINT_INSPECTOR_REQUIRE_ORACLE") == "1"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    if schemacheck is not None and schemacheck.FAILURES and (rep.when == "call" or not rep.failed):
        failures, schemacheck.FAILURES[:] = list(schemacheck.FAILURES), []
        rep.outcome = "failed"
        rep.longrepr = "a JSON output does not match its schema (inspector/jsonschemas): " + "; ".join(
            f"{name} at {pointer or '/'}: {message}" for name, pointer, message in failures[:5])
        return
    if REQUIRE_ORACLE and rep.skipped:
        reason = rep.longrepr[2] if isinstance(rep.longrepr, tuple) else str(rep.longrepr)
        if "oracle2" in reason:
            rep.outcome = "failed"
            rep.longrepr = (f"skipped for want of the Rust reference, which this run requires "
                            f"(CHECKPOINT_INSPECTOR_REQUIRE_ORACLE=1, ORACLE2={os.environ.get('ORACLE2')!r}): "
                            f"{reason}")


def fixture_pairs() -> list[tuple[Path, Path | None]]:
    """Every ``(payload, descriptor or None)`` file pair of ``cases/`` and ``cases-pinned/``, in name order."""
    out = []
    for folder in (CASES, CASES_PINNED):
        for p in sorted(folder.glob("*.payload.json")):
            d = p.with_name(p.name.replace(".payload.json", ".descriptor.json"))
            out.append((p, d if d.exists() else None))
    return out


def load_cases() -> list[dict]:
    """cases.jsonl rows (split on b"\\n" only)."""
    return [json.loads(line) for line in (CASES / "cases.jsonl").read_bytes().split(b"\n") if line.strip()]


@pytest.fixture
def golden():
    """Bytes of the golden files by short name."""
    return {p.stem: p.read_bytes() for p in GOLDEN.glob("*.json")}


def pytest_terminal_summary(terminalreporter):
    """One line: how many JSON outputs of in-process runs were validated against their schemas, by schema."""
    if schemacheck is not None and schemacheck.SEEN:
        seen = ", ".join(f"{name.removeprefix('checkpoint-inspector.')} {n}" for name, n in sorted(schemacheck.SEEN.items()))
        terminalreporter.write_line(f"JSON outputs validated against their schemas: {sum(schemacheck.SEEN.values())} ({seen})")
