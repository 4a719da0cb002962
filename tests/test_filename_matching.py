"""Each module has its mirrored test file (after mitmproxy's ``test/filename_matching.py``).

``inspector/<dir>/<name>.py`` is tested in ``tests/<dir>/test_<name>.py`` or ``tests/<dir>/test_<name>_<aspect>.py``
(the window's tests press keys rather than import the widget they reach, so the name is the contract). Where ``tests/<dir>`` does not exist (the window's ``widgets/``, ``models/`` and
``controllers/`` subpackages share ``tests/gui/``), the closest existing parent stands in for it. A module whose tests
live in a file named for a feature (``tests/gui/test_spoken.py`` drives several widgets) is listed in
:data:`COVERED_BY` with that file, and the listing is checked both ways: the named file exists and imports the
module or names one of its public classes or functions, and the entry goes as soon as a mirrored file exists.
:data:`DRIVEN_BY` lists the modules whose home reaches them only through a front end (a key press, a command), the
ones most in want of a test of their own. CONTRIBUTING.md ("One floor's tests") says where a new
module's tests go.
"""

from __future__ import annotations

import ast
import re
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "inspector"
TESTS = ROOT / "tests"

# module (relative to the repository) -> the test file (relative to tests/) that is its home
COVERED_BY = {
    "inspector/checkpoint/jsontext/fastindex.py": "checkpoint/jsontext/test_lazyjson.py",
    "inspector/audit/core.py": "audit/test_audit.py",
    "inspector/audit/output.py": "audit/test_scale.py",
    "inspector/audit/publish.py": "audit/test_scale.py",
    "inspector/audit/run.py": "audit/test_scale.py",
    "inspector/audit/spill.py": "audit/test_scale.py",
    "inspector/audit/summary.py": "audit/test_audit.py",
    "inspector/checkpoint/analysis/compare_output.py": "checkpoint/analysis/test_compare.py",
    "inspector/checkpoint/analysis/compare_text.py": "checkpoint/analysis/test_compare.py",
    "inspector/checkpoint/analysis/pipeline.py": "session/test_staged.py",
    "inspector/checkpoint/analysis/resumability.py": "checkpoint/analysis/test_lint.py",
    "inspector/checkpoint/artifact.py": "checkpoint/test_sdk_export.py",
    "inspector/checkpoint/digest.py": "checkpoint/test_verify_fixtures.py",
    "inspector/checkpoint/jsontext/reader.py": "checkpoint/jsontext/test_canonical.py",
    "inspector/checkpoint/report.py": "checkpoint/test_verify_fixtures.py",
    "inspector/checkpoint/rules/runevents.py": "checkpoint/rules/test_rule_speedups.py",
    "inspector/checkpoint/schema/kinds.py": "checkpoint/diagnosis/test_hazards_in_step.py",
    "inspector/checkpoint/schema/model.py": "checkpoint/schema/test_typed_content_stack.py",
    "inspector/checkpoint/schema/serde_errors.py": "checkpoint/schema/test_typed_content_stack.py",
    "inspector/checkpoint/schema/timestamp.py": "checkpoint/read/test_timestamp_fast.py",
    "inspector/checkpoint/slotted.py": "ticket/test_gate.py",
    "inspector/cli/common.py": "cli/test_pairing.py",
    "inspector/cli/render.py": "cli/test_main.py",
    "inspector/cli/watch.py": "cli/test_scan.py",
    "inspector/entry.py": "cli/test_entry.py",
    "inspector/gui/about.py": "gui/test_install_integration.py",
    "inspector/gui/canon_view.py": "gui/test_digest_labels.py",
    "inspector/gui/dialogs.py": "gui/test_open_dialog.py",
    "inspector/gui/fonts.py": "gui/test_one_escaping.py",
    "inspector/gui/handoff_wire.py": "gui/test_single_instance.py",
    "inspector/gui/models/digests.py": "gui/test_models.py",
    "inspector/gui/models/json_tree.py": "gui/test_models.py",
    "inspector/gui/roles.py": "gui/test_document_state.py",
    "inspector/gui/style.py": "gui/test_focus_contrast.py",
    "inspector/gui/widgets/details.py": "gui/test_window.py",
    "inspector/gui/widgets/hex_field.py": "gui/test_bytes_pane.py",
    "inspector/gui/widgets/hex_view.py": "gui/test_bytes_pane.py",
    "inspector/gui/widgets/panes.py": "gui/test_verdicts_caption.py",
    "inspector/gui/widgets/timeline_paint.py": "gui/test_timeline_lod.py",
    "inspector/gui/widgets/transcript.py": "gui/test_resume_panes.py",
    "inspector/licenses.py": "installers/test_licences.py",
    "inspector/platform_check.py": "installers/test_platform_check.py",
    "inspector/selftest.py": "installers/test_selftest.py",
    "inspector/session/annotate.py": "audit/test_audit.py",
    "inspector/session/compare_loading.py": "session/test_routing.py",
    "inspector/session/documents.py": "session/test_engine.py",
    "inspector/session/drops.py": "gui/test_inputs.py",
    "inspector/session/edits.py": "gui/test_editing.py",
    "inspector/session/hex_search.py": "session/test_filebytes.py",
    "inspector/session/history.py": "gui/test_history.py",
    "inspector/session/manifest.py": "audit/test_audit_sources.py",
    "inspector/session/pathnames.py": "gui/test_dialog_names.py",
    "inspector/session/sources.py": "sources/test_sources.py",
    "inspector/session/tree_item.py": "checkpoint/schema/test_typed_paths.py",
    "inspector/session/writing.py": "audit/test_faults.py",
    "inspector/ticket/allowlist.py": "ticket/test_credentials_ids.py",
    "inspector/ticket/jsonstack.py": "ticket/test_redact_walk.py",
    "inspector/ticket/model.py": "ticket/test_no_content_leaves.py",
    "inspector/ticket/render.py": "ticket/test_no_content_leaves.py",
}

# module -> the test that reaches it only through a front end or the package's API (the window's tests press keys,
# the CLI's run the command, the rules' tests verify mutated pairs): the file must exist, nothing more is checked
DRIVEN_BY = {
    "inspector/checkpoint/analysis/generation.py": "cli/test_generation.py",
    "inspector/checkpoint/diagnosis/newer.py": "cli/test_generation.py",
    "inspector/checkpoint/evaluate.py": "checkpoint/test_stages.py",
    "inspector/checkpoint/jsontext/number.py": "checkpoint/jsontext/test_canonical.py",
    "inspector/checkpoint/jsontext/rust_debug.py": "checkpoint/schema/test_typed_content_stack.py",
    "inspector/checkpoint/jsontext/spans.py": "checkpoint/jsontext/test_errors_locations.py",
    "inspector/checkpoint/rules/registry.py": "checkpoint/rules/test_catalogue.py",
    "inspector/checkpoint/schema/pins.py": "checkpoint/schema/test_typed_content_stack.py",
    "inspector/cli/audit.py": "audit/test_audit.py",
    "inspector/cli/commands.py": "cli/test_main.py",
    "inspector/cli/restore.py": "checkpoint/analysis/test_restore.py",
    "inspector/gui/controllers/comparing.py": "gui/test_compare_view.py",
    "inspector/gui/controllers/watching.py": "gui/test_watch_folder.py",
    "inspector/gui/docstate.py": "gui/test_document_state.py",
    "inspector/gui/jobwindow.py": "gui/test_jobs.py",
    "inspector/gui/models/table.py": "gui/test_folder_table.py",
    "inspector/gui/presenting.py": "gui/test_window.py",
    "inspector/gui/selection.py": "gui/test_bytes_pane.py",
    "inspector/gui/widgets/find_bar.py": "gui/test_find.py",
    "inspector/gui/widgets/keys.py": "gui/test_pane_keys.py",
    "inspector/gui/widgets/raw_editor.py": "gui/test_editing.py",
    "inspector/gui/widgets/timeline_text.py": "gui/test_spoken.py",
}


# tests named after a module that sit outside its mirror on purpose -> why
MISPLACED = {
    "tests/cli/test_entry.py": "the console entry point is the CLI's; tests/cli runs in the headless job",
    "tests/gui/test_history.py": "recent files as the window shows them (File menu, Ctrl+R); needs Qt",
    "tests/installers/test_platform_check.py": "the frozen app's start-up check, tested with the installers",
    "tests/installers/test_selftest.py": "the packaged app's --self-test, tested with the installers",
    "tests/sources/test_sources.py": "the source seam has its own directory with the loopback servers",
}


def _modules() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if p.name not in ("__init__.py", "__main__.py"))


def _dotted(module: Path) -> str:
    return ".".join(module.relative_to(ROOT).with_suffix("").parts)


@cache
def _imports(test_file: Path) -> frozenset[str]:
    """Every dotted name ``test_file`` imports, anywhere in it: ``from a.b import c`` gives ``a.b`` and ``a.b.c``."""
    names = set()
    for node in ast.walk(ast.parse(test_file.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return frozenset(names)


def _mirror_dir(module: Path) -> Path:
    """``tests/<dir>`` for ``inspector/<dir>/<name>.py``, or its closest existing parent."""
    d = TESTS.joinpath(*module.parent.relative_to(PACKAGE).parts)
    while not d.is_dir():
        d = d.parent
    return d


def _mirrored(module: Path) -> list[Path]:
    """The test files in the module's mirrored directory named after it."""
    d = _mirror_dir(module)
    return [t for t in (d / f"test_{module.stem}.py", *sorted(d.glob(f"test_{module.stem}_*.py"))) if t.is_file()]


@cache
def _public_names(module: Path) -> frozenset[str]:
    """The module's top-level public classes and functions."""
    tree = ast.parse(module.read_text(encoding="utf-8"))
    return frozenset(n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))
                     and not n.name.startswith("_"))


def _reaches(test_file: Path, module: Path) -> bool:
    """``test_file`` imports ``module`` or names one of its public classes or functions."""
    if _dotted(module) in _imports(test_file):
        return True
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", test_file.read_text(encoding="utf-8")))
    return bool(words & _public_names(module))


def test_every_module_has_its_mirrored_test_file():
    missing = [str(m.relative_to(ROOT)) for m in _modules()
               if not _mirrored(m) and str(m.relative_to(ROOT)) not in COVERED_BY | DRIVEN_BY]
    assert missing == [], "add tests/<dir>/test_<name>.py for these (or list the feature test that is their home)"


@pytest.mark.parametrize("module", sorted(COVERED_BY | DRIVEN_BY))
def test_each_listed_home_is_real_and_still_needed(module):
    path = ROOT / module
    assert path.is_file(), f"{module} is gone: drop its entry"
    assert _mirrored(path) == [], f"{module} has its mirrored test file now: drop its entry"
    assert not (module in COVERED_BY and module in DRIVEN_BY)
    home = TESTS / (COVERED_BY | DRIVEN_BY)[module]
    assert home.is_file()
    if module in COVERED_BY:
        assert _reaches(home, path), f"{COVERED_BY[module]} neither imports {module} nor names what it defines"
    else:
        assert not _reaches(home, path), f"{DRIVEN_BY[module]} reaches {module} directly: move it to COVERED_BY"


def test_a_test_named_after_one_module_sits_in_that_modules_mirror():
    """``tests/x/test_<name>.py`` for a module that exists once, in another directory, is misplaced."""
    by_stem: dict[str, list[Path]] = {}
    for m in _modules():
        by_stem.setdefault(m.stem, []).append(m)
    misplaced = []
    for t in sorted(TESTS.rglob("test_*.py")):
        owners = by_stem.get(t.stem[len("test_"):], [])
        if len(owners) == 1 and _dotted(owners[0]) in _imports(t) and _mirror_dir(owners[0]) != t.parent:
            misplaced.append(str(t.relative_to(ROOT)))
    assert sorted(set(misplaced) - MISPLACED.keys()) == []
    assert sorted(MISPLACED.keys() - set(misplaced)) == [], "listed as misplaced but not (any more): drop the entry"


def test_the_check_sees_the_tree():
    """The walk is not vacuous: it finds the package's modules, and a mirrored pair it must accept."""
    modules = _modules()
    assert len(modules) > 150
    assert _mirrored(PACKAGE / "checkpoint" / "roles.py") == [TESTS / "checkpoint" / "test_roles.py"]
    assert _mirror_dir(PACKAGE / "gui" / "widgets" / "keys.py") == TESTS / "gui"
