"""House rule: public functions, classes and methods of the engine, the CLI, the ticket report, the session layer
and the audit have docstrings (types, units, errors, FORMAT.md section). Checked from the source, no import needed,
in every module of those packages and their subpackages (it used to read the top level only: 26 of 76 files). A
method that implements a documented method of its base class (``LocalFolder.read`` of ``Source.read``) has its
base's docstring."""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1] / "inspector"
PACKAGES = ("checkpoint", "cli", "ticket", "session", "audit")


def _files() -> list[Path]:
    return [ROOT / "entry.py"] + [p for pkg in PACKAGES for p in sorted((ROOT / pkg).rglob("*.py"))
                                  if "__pycache__" not in p.parts]


def _classes(files) -> dict[str, tuple[list[str], set[str]]]:
    """Every class of ``files`` by name: its base names and the names of its documented methods."""
    out = {}
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ClassDef):
                bases = [b.id if isinstance(b, ast.Name) else b.attr if isinstance(b, ast.Attribute) else ""
                         for b in node.bases]
                documented = {m.name for m in node.body if isinstance(m, ast.FunctionDef) and ast.get_docstring(m)}
                out.setdefault(node.name, (bases, documented))
    return out


def _inherited(classes, name: str, method: str, seen=()) -> bool:
    bases, _ = classes.get(name, ([], set()))
    for base in bases:
        if base in seen:
            continue
        if method in classes.get(base, ([], set()))[1] or _inherited(classes, base, method, seen + (name,)):
            return True
    return False


def _missing() -> list[str]:
    files = _files()
    classes = _classes(files)
    out = []
    for path in files:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            if not isinstance(node, (ast.FunctionDef, ast.ClassDef)) or node.name.startswith("_"):
                continue
            if ast.get_docstring(node) is None:
                out.append(f"{path.relative_to(ROOT)}:{node.lineno} {node.name}")
            if isinstance(node, ast.ClassDef):
                for m in node.body:
                    if (isinstance(m, ast.FunctionDef) and not m.name.startswith("_") and ast.get_docstring(m) is None
                            and not _inherited(classes, node.name, m.name)):
                        out.append(f"{path.relative_to(ROOT)}:{m.lineno} {node.name}.{m.name}")
    return out


def test_every_public_function_and_method_has_a_docstring():
    assert _missing() == []


def test_the_check_sees_the_files():
    # the walk reads the engine itself, its subpackages too (a moved package would make the check above vacuous)
    files = _files()
    assert (ROOT / "checkpoint" / "verify.py") in files and (ROOT / "ticket" / "redact.py") in files
    assert (ROOT / "checkpoint" / "rules" / "registry.py") in files and (ROOT / "session" / "sources.py") in files
    assert len(files) > 100


def test_code_cites_the_format_not_a_tracker():
    """Comments and docstrings cite FORMAT.md sections, not issue numbers of a tracker no reader of the repository
    has (there were 88 such references in 60 files)."""
    import re

    # (rules.toml and plain.toml are the versioned catalogue: a byte changed there changes the catalogue version
    # every report names, so their comments change with a rule, not alone)
    catalogue = {ROOT / "checkpoint" / "rules" / "rules.toml", ROOT / "checkpoint" / "rules" / "plain.toml"}
    found = [f"{p.relative_to(ROOT)}:{n}" for p in sorted(ROOT.rglob("*")) if p.suffix in (".py", ".toml")
             and "__pycache__" not in p.parts and p not in catalogue
             for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
             if re.search(r"\bissues? \d+\b", line)]
    assert found == []
