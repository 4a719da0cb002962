"""No code opens a user-named path except through the one safe reader (inspector/checkpoint/safeopen.py).

A FIFO with no writer blocks ``open()`` for good, a device never ends: every read of a path the user named goes
through :func:`inspector.checkpoint.safeopen.open_regular` (``O_NONBLOCK``, decided on ``fstat`` of the opened
descriptor). This walks the syntax tree of every module in ``inspector/`` and lists each call that opens or
reads a file (``open``, ``os.open``, ``io.open``, ``os.fdopen``, ``.read_bytes()``, ``.read_text()``,
``.open(...)`` with arguments): each must be a new file made with mode ``"x"`` (it never opens an existing
FIFO or device: ``O_EXCL`` fails on any existing name), or be in :data:`ALLOWED` with its reason."""

import ast

from tests.conftest import ROOT

PACKAGE = ROOT / "inspector"

#: (module path under inspector/, enclosing function, call) -> why it is safe. Nothing else may open a file.
ALLOWED = {
    ("audit/spill.py", "add", "open"): "a spill file the audit made itself in its own new work folder (append)",
    ("audit/spill.py", "_lines", "open"): "a spill file the audit wrote itself, read back",
    ("audit/publish.py", "pending", "open"): "COMMIT.json, written by the audit in its own journal",
    ("audit/publish.py", "_chunks", "open"): "an output the audit staged in its own journal",
    ("audit/publish.py", "_same", "open"): "a staged output and the name it was linked or copied to by the audit",
    ("checkpoint/safeopen.py", "open_regular", "os.open"): "the safe reader itself (O_NONBLOCK, fstat checked)",
    ("checkpoint/safeopen.py", "open_file", "os.fdopen"): "wraps a descriptor open_regular checked",
    ("cli/common.py", "_devnull_onto", "os.open"): "os.devnull, for writing: not a user path",
    ("session/writing.py", "write_new_file", "os.open"): "a new file (O_CREAT | O_EXCL): never an existing FIFO or device",
    ("ticket/credentials.py", "rules", ".read_text"): "gitleaks.toml (package data)",
    ("session/sources.py", "_read_url", ".open"): "a remote object through fsspec; a file:// URL is read with the safe reader",
    ("selftest.py", "_sample", ".read_bytes"): "a bundled sample (package data)",
    ("gui/app.py", "_app_icon", ".read_bytes"): "the bundled icons (package data)",
    ("checkpoint/rules/catalogue.py", "_data", ".read_text"): "the rule catalogue (package data)",
    ("checkpoint/rules/catalogue.py", "catalogue_version", ".read_bytes"): "the rule catalogue (package data)",
    ("checkpoint/rules/consequences.py", "declared_causes", ".read_text"): "consequences.toml (package data)",
    ("ticket/allowlist.py", "allowlist", ".read_text"): "allowlist.toml (package data)",
    ("ticket/gate.py", "_classes", ".read_text"): "allowlist.toml (package data)",
    ("licenses.py", "*", ".read_text"): "the licence texts shipped with the program and its distributions",
    ("entry.py", "main", "open"): "os.devnull, for writing, in place of a missing standard error",
    ("jsonschemas/__init__.py", "load", ".read_text"): "a JSON Schema of an output (package data)",
}


def _name(call: ast.Call) -> str | None:
    f = call.func
    if isinstance(f, ast.Name) and f.id == "open":
        return "open"
    if isinstance(f, ast.Attribute):
        if isinstance(f.value, ast.Name) and f.value.id in ("os", "io", "codecs", "builtins") \
                and f.attr in ("open", "fdopen"):
            return f"{f.value.id}.{f.attr}"
        if f.attr in ("read_bytes", "read_text"):
            return f".{f.attr}"
        if f.attr == "open" and (call.args or call.keywords):  # Path.open(mode); a dialog's .open() has none
            return ".open"
    return None


def _new_file_only(call: ast.Call) -> bool:
    """``open(path, "x...")``: creates a new file, fails on any existing name (never opens a FIFO)."""
    mode = call.args[1] if len(call.args) > 1 else next((k.value for k in call.keywords if k.arg == "mode"), None)
    return isinstance(mode, ast.Constant) and isinstance(mode.value, str) and "x" in mode.value


def _calls():
    for path in sorted(PACKAGE.rglob("*.py")):
        rel = path.relative_to(PACKAGE).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        stack = [(tree, "<module>")]
        while stack:
            node, fn = stack.pop()
            for child in ast.iter_child_nodes(node):
                inner = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else fn
                if isinstance(child, ast.Call):
                    name = _name(child)
                    if name is not None:
                        yield rel, fn, name, child
                stack.append((child, inner))


def test_every_file_open_in_inspector_is_the_safe_reader_or_allowed():
    found = set()
    bad = []
    for rel, fn, name, call in _calls():
        if name == "open" and _new_file_only(call):
            continue
        key = (rel, fn, name)
        if key in ALLOWED or (rel, "*", name) in ALLOWED:
            found.add(key if key in ALLOWED else (rel, "*", name))
            continue
        bad.append(f"inspector/{rel}:{call.lineno} {fn}: {name}(...)")
    assert bad == [], "open a user-named path with inspector.checkpoint.safeopen (or allow it here, with why)"
    assert found == set(ALLOWED), f"allowed call sites that no longer exist: {sorted(set(ALLOWED) - found)}"


def test_the_guard_sees_a_bare_open():
    tree = ast.parse("def f(p):\n    with open(p, 'rb') as fh:\n        return fh.read()\n"
                     "def g(p):\n    return open(p, 'xb')\n")
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and _name(n) == "open"]
    assert [(c.lineno, _new_file_only(c)) for c in sorted(calls, key=lambda c: c.lineno)] == [(2, False), (5, True)]
