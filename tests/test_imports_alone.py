"""Every module of the package imports alone in a fresh interpreter (issue 24: `import
inspector.session.edits` raised ImportError on an import cycle hidden by the usual import order)."""

from __future__ import annotations

import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.conftest import ROOT


def _modules() -> list[str]:
    out = []
    for path in sorted((ROOT / "inspector").rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__main__":
            continue
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out.append(".".join(parts))
    return out


def test_every_module_imports_alone():
    pytest.importorskip("PySide6")  # the window's modules need Qt
    modules = _modules()
    assert len(modules) > 100

    def load(name: str):
        p = subprocess.run([sys.executable, "-c", f"import {name}"], cwd=ROOT, capture_output=True, text=True,
                           env={"QT_QPA_PLATFORM": "offscreen", "PATH": "/usr/bin:/bin"})
        return name, p.returncode, p.stderr.strip().splitlines()[-1:] if p.returncode else []

    with ThreadPoolExecutor(max_workers=2) as pool:
        failed = [(n, err) for n, code, err in pool.map(load, modules) if code]
    assert failed == []
