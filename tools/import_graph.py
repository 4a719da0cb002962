"""Figures of the package's import graph and sizes (issue 24): modules, import cycles (function-level
imports included), function-level imports, files over 600 lines and functions over 80 lines.

    python tools/import_graph.py [--json]

Reads the source with `ast` only; imports nothing from the package. Exit 0 always (a report, not a gate:
the gates are tests/test_layers.py and import-linter)."""

from __future__ import annotations

import ast
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PKG = ROOT / "inspector"


def module_name(path: Path) -> str:
    """'inspector/checkpoint/verify.py' -> 'inspector.checkpoint.verify' (packages by their __init__)."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def modules() -> dict[str, Path]:
    """Every module of the package, name -> path (without __main__)."""
    return {module_name(p): p for p in sorted(PKG.rglob("*.py")) if p.name != "__main__.py"}


def _resolve(name: str, is_pkg: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = name.split(".")
    if not is_pkg:
        base = base[:-1]
    if node.level > 1:
        base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def imports_of(name: str, path: Path, mods: dict[str, Path]) -> list[tuple[str, bool]]:
    """[(imported package module, at function level)] of one module; TYPE_CHECKING blocks are skipped."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out: list[tuple[str, bool]] = []
    is_pkg = path.name == "__init__.py"

    def visit(node: ast.AST, in_func: bool) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                continue
            deeper = in_func or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                for i, a in enumerate(child.names):
                    if a.name in mods or a.name.startswith("inspector."):
                        out.append((_nearest(a.name, mods), in_func and i == 0))
            elif isinstance(child, ast.ImportFrom):
                target = _resolve(name, is_pkg, child)
                if not target.startswith("inspector"):
                    continue
                for i, a in enumerate(child.names):
                    full = f"{target}.{a.name}"
                    # one function-level import per statement, however many names it takes
                    out.append((full if full in mods else _nearest(target, mods), in_func and i == 0))
            visit(child, deeper)

    visit(tree, False)
    return [(m, f) for m, f in out if m and m != name]


def _nearest(name: str, mods: dict[str, Path]) -> str:
    while name and name not in mods:
        name = name.rpartition(".")[0]
    return name


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    counter = 0
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter; counter += 1
        stack.append(root); on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w not in graph:
                    continue
                if w not in index:
                    index[w] = low[w] = counter; counter += 1
                    stack.append(w); on.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop(); on.discard(w); comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def functions_over(path: Path, limit: int) -> list[tuple[str, int]]:
    """[(qualified function name, lines)] of functions longer than `limit` lines (decorators excluded)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    out = []

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                n = child.end_lineno - child.lineno + 1
                if n > limit:
                    out.append((prefix + child.name, n))
                visit(child, prefix + child.name + ".")
            elif isinstance(child, ast.ClassDef):
                visit(child, prefix + child.name + ".")
    visit(tree, "")
    return out


def figures() -> dict:
    """The figures as a dict (see the module docstring)."""
    mods = modules()
    graph: dict[str, set[str]] = {}
    func_level = 0
    for name, path in mods.items():
        edges = imports_of(name, path, mods)
        func_level += sum(1 for _, f in edges if f)
        graph[name] = {m for m, _ in edges}
    long_files = {module_name(p): n for p in mods.values()
                  if (n := len(p.read_text(encoding="utf-8").splitlines())) > 600}
    long_funcs = {f"{module_name(p)}.{f}": n for p in mods.values() for f, n in functions_over(p, 80)}
    return {"modules": len(mods), "cycles": cycles(graph), "function_level_imports": func_level,
            "files_over_600": long_files,
            "functions_over_80": dict(sorted(long_funcs.items(), key=lambda kv: -kv[1]))}


if __name__ == "__main__":
    f = figures()
    if "--json" in sys.argv:
        print(json.dumps(f, indent=1))
    else:
        print(f"modules {f['modules']}, cycles {len(f['cycles'])}, function-level imports "
              f"{f['function_level_imports']}")
        for c in f["cycles"]:
            print("  cycle:", " ".join(c))
        for k, v in f["files_over_600"].items():
            print(f"  file {k}: {v} lines")
        for k, v in f["functions_over_80"].items():
            print(f"  function {k}: {v} lines")
