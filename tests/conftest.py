"""Shared fixtures: paths to the shared ground truth, offscreen Qt for GUI tests."""

import json
import os
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("CHECKPOINT_SHARED", ROOT.parent / "shared"))
GOLDEN = SHARED / "fixtures" / "golden"
CASES = SHARED / "fixtures" / "cases"
VECTORS = SHARED / "vectors" / "canonical-v1.jsonl"
SAMPLES = ROOT / "resources" / "samples"


def pytest_configure(config):
    if not (SHARED / "FORMAT.md").exists():
        pytest.exit(f"the format's ground truth is missing: expected {SHARED} (clone this repository next to "
                    "shared/, or set CHECKPOINT_SHARED to its path)", returncode=2)


def load_cases() -> list[dict]:
    """cases.jsonl rows (split on b"\\n" only)."""
    return [json.loads(line) for line in (CASES / "cases.jsonl").read_bytes().split(b"\n") if line.strip()]


@pytest.fixture
def golden():
    """Bytes of the golden files by short name."""
    return {p.stem: p.read_bytes() for p in GOLDEN.glob("*.json")}
