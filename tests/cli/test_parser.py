"""The command line starts with what it uses (``inspector.cli.parser``, ``inspector.cli.main``'s dispatch):
``--help``, ``--version`` and a usage error import none of the engine's rules, readers or the session
layer; ``verify`` imports the engine but not the commands it does not run (``scan``'s session layer,
``diff``'s comparison, the audit). The CPU figures are in ``benchmarks/bench_start.py``; this holds the
import sets that make them, which a new top-level import would break."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from tests.conftest import GOLDEN, ROOT

_PROBE = (
    "import json, sys\n"
    "from inspector.entry import main\n"
    "try:\n"
    "    code = main(sys.argv[1:])\n"
    "finally:\n"
    "    sys.stdout.flush()\n"
    "    sys.__stderr__.write('\\n@@' + json.dumps(sorted(m for m in sys.modules if m.startswith(('inspector', 'msgspec', "
    "'fsspec', 'dask', 'watchdog', 'PySide6')))) + '\\n')\n"
)


def _modules(*argv: str) -> tuple[int, set[str], str]:
    """(exit code, the modules of ours and of the heavy libraries loaded, stdout) of one run of the console
    script's dispatch with ``argv`` in a fresh interpreter."""
    p = subprocess.run([sys.executable, "-c", _PROBE, *argv], cwd=ROOT, capture_output=True, text=True)
    loaded = json.loads(p.stderr.rsplit("\n@@", 1)[1])
    return p.returncode, set(loaded), p.stdout


#: What answering ``--help`` or ``--version`` never needs.
_ENGINE = {"inspector.checkpoint.verify", "inspector.checkpoint.rules.context", "inspector.checkpoint.read.door",
           "inspector.checkpoint.artifact", "inspector.checkpoint.jsontext.canonical", "inspector.checkpoint.digest",
           "inspector.session.sources", "inspector.session.folderscan", "inspector.cli.commands", "msgspec"}


@pytest.mark.parametrize("argv", [("--help",), ("--version",), ("verify", "--help"), ("scan", "--help"),
                                  ("verify", "--formt", "json", "x")])
def test_help_version_and_usage_errors_import_no_engine(argv):
    code, loaded, out = _modules(*argv)
    assert code == (2 if "--formt" in argv else 0)
    assert loaded & _ENGINE == set()
    assert "inspector.cli.parser" in loaded
    if argv == ("--version",):
        # the catalogue's digest is read from the rule catalogue file: that module and no rule module
        assert "inspector.checkpoint.rules.catalogue" in loaded
        assert out.startswith("checkpoint-inspector 0.1.0\nreference A3S Code 8.3.0 ")
        from inspector.checkpoint.rules.catalogue import catalogue

        assert f"rule catalogue {len(catalogue())} rules, sha256:" in out


def test_verify_imports_the_engine_and_not_the_other_commands():
    code, loaded, out = _modules("verify", str(GOLDEN / "payload-with-resume.json"),
                                 str(GOLDEN / "descriptor-with-resume.json"))
    assert code == 0 and "VERIFIED" in out
    assert {"inspector.checkpoint.verify", "inspector.cli.commands", "inspector.cli.render", "msgspec"} <= loaded
    # before: cli.main imported every command's module at its top, scan's folder scan and series among them
    assert loaded & {"inspector.cli.scan", "inspector.cli.compare", "inspector.cli.audit", "inspector.cli.timeline",
                     "inspector.cli.restore", "inspector.session.folderscan", "inspector.session.series",
                     "inspector.session.workers", "fsspec", "dask", "watchdog", "PySide6"} == set()


def test_every_subcommand_has_a_parser_and_a_handler():
    from inspector.cli import main as main_module
    from inspector.cli.parser import SUBCOMMANDS, build_parser

    main_module = sys.modules["inspector.cli.main"]
    assert set(build_parser().commands) == set(SUBCOMMANDS) == set(main_module._HANDLERS)
    import importlib

    for name, (module, function) in main_module._HANDLERS.items():
        assert callable(getattr(importlib.import_module(f"inspector.cli.{module}"), function)), name


def test_the_engine_package_loads_its_names_on_first_use():
    """``inspector.checkpoint``'s public names come from their modules when first used (PEP 562): importing one
    module of the engine does not import the rest, and every name of ``__all__`` resolves to its module's own."""
    p = subprocess.run([sys.executable, "-c",
                        "import sys, inspector.checkpoint.rules.catalogue as c\n"
                        "print('inspector.checkpoint.verify' in sys.modules, 'inspector.checkpoint.artifact' in sys.modules)\n"
                        "import inspector.checkpoint as e\n"
                        "from inspector.checkpoint.verify import verify\n"
                        "print(e.verify is verify, e.catalogue is c.catalogue, sorted(e.__all__) == sorted(e._HOME))\n"
                        "print(all(getattr(e, n) is getattr(sys.modules[e._HOME[n]], n) for n in e.__all__))\n"
                        "try:\n    e.no_such_name\nexcept AttributeError as x:\n    print(x)\n"],
                       cwd=ROOT, capture_output=True, text=True)
    assert p.stdout.splitlines() == ["False False", "True True True", "True",
                                     "module 'inspector.checkpoint' has no attribute 'no_such_name'"], p.stderr
