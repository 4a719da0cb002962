"""House rule: public functions, classes and methods of the engine, CLI and ticket report have
docstrings (types, units, errors, FORMAT.md section). Checked from the source, no import needed."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "inspector"
PACKAGES = ("checkpoint", "cli", "ticket")


def _missing() -> list[str]:
    out = []
    files = [ROOT / "entry.py"] + [p for pkg in PACKAGES for p in sorted((ROOT / pkg).glob("*.py"))]
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if not isinstance(node, (ast.FunctionDef, ast.ClassDef)) or node.name.startswith("_"):
                continue
            if ast.get_docstring(node) is None:
                out.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
            if isinstance(node, ast.ClassDef):
                for m in node.body:
                    if isinstance(m, ast.FunctionDef) and not m.name.startswith("_") and ast.get_docstring(m) is None:
                        out.append(f"{path.relative_to(ROOT)}:{m.lineno} {node.name}.{m.name}")
    return out


def test_every_public_function_and_method_has_a_docstring():
    assert _missing() == []


def test_the_check_sees_the_files():
    # the walk reads the engine itself (a moved package would make the check above vacuous)
    assert (ROOT / "checkpoint" / "verify.py").is_file() and (ROOT / "ticket" / "redact.py").is_file()
