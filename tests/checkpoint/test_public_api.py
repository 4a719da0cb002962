"""The engine as a library (docs/library.md): the host's test on that page runs green on real exports, and
``mypy --strict`` accepts it against the package as a consumer installs it (a wheel with its ``py.typed``
marker, in a virtual environment of its own); the public names are the ones the page documents."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import venv

import pytest

from tests.conftest import GOLDEN, ROOT

DOC = ROOT / "docs" / "library.md"


def _example() -> str:
    text = DOC.read_text(encoding="utf-8")
    block = text.split("<!-- example: host-test -->", 1)[1].split("<!-- /example -->", 1)[0]
    return re.search(r"```python\n(.*?)```", block, re.DOTALL).group(1)


def _host_suite(tmp_path):
    suite = tmp_path / "host"
    (suite / "exports").mkdir(parents=True)
    shutil.copyfile(GOLDEN / "payload-with-resume.json", suite / "exports" / "session.payload.json")
    shutil.copyfile(GOLDEN / "descriptor-with-resume.json", suite / "exports" / "session.descriptor.json")
    (suite / "test_exports.py").write_text(_example(), encoding="utf-8")
    return suite


def test_the_host_test_on_the_page_passes_on_real_exports(tmp_path):
    suite = _host_suite(tmp_path)
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(suite)],
                       cwd=suite, capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    assert "2 passed" in p.stdout, p.stdout[-2000:]
    # and it can fail: an export whose descriptor does not match makes the first test name the rule
    (suite / "exports" / "session.descriptor.json").write_bytes(
        (GOLDEN / "descriptor-semantic-only.json").read_bytes())
    p = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(suite)],
                       cwd=suite, capture_output=True, text=True, env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(ROOT)})
    assert "1 failed" in p.stdout and "session.payload.json: ['" in p.stdout, p.stdout[-2000:]


def test_mypy_strict_accepts_the_host_test_against_the_installed_wheel(tmp_path):
    """A consumer's view: the wheel built from this tree, installed without its dependencies into a fresh
    environment; mypy reads the package's own annotations there only because of ``py.typed``."""
    pytest.importorskip("mypy", reason="mypy is a dev dependency")
    suite = _host_suite(tmp_path)
    wheels = tmp_path / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(wheels),
                    str(ROOT)], check=True, capture_output=True)
    env_dir = tmp_path / "consumer"
    venv.EnvBuilder(with_pip=False, system_site_packages=False).create(env_dir)
    py = env_dir / "bin" / "python"
    site = subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    wheel = next(wheels.glob("checkpoint_inspector-*.whl"))
    subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", site, str(wheel)],
                   check=True, capture_output=True)
    # the example imports pytest: the consumer has it installed too (copied from here, with what its types use)
    from pathlib import Path

    here = Path(pytest.__file__).parent.parent
    for name in ("pytest", "_pytest", "pluggy", "iniconfig"):
        if (here / name).is_dir():
            shutil.copytree(here / name, Path(site) / name)
    p = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--python-executable", str(py),
                        "--follow-imports", "silent", str(suite / "test_exports.py")],
                       cwd=suite, capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
    assert p.stdout.strip() == "Success: no issues found in 1 source file", p.stdout[-3000:]
    # without the marker the same installation is untyped to mypy: the check above rests on it
    (Path(site) / "inspector" / "py.typed").unlink()
    p = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--python-executable", str(py),
                        "--follow-imports", "silent", str(suite / "test_exports.py")],
                       cwd=suite, capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"})
    assert "missing library stubs or py.typed marker" in p.stdout, p.stdout[-3000:]


def test_the_documented_names_are_the_engine_public_names():
    import inspector.checkpoint as engine

    text = DOC.read_text(encoding="utf-8")
    table = text.split("## Verifying a checkpoint", 1)[1].split("Sources and the audit", 1)[0]
    named = set(re.findall(r"^\| `([A-Za-z_]+)", table, re.MULTILINE))
    named |= {n for cell in re.findall(r"^\| `[^|]*\|", table, re.MULTILINE) for n in re.findall(r"`([A-Za-z_]+)\(", cell)}
    assert named <= set(engine.__all__), named - set(engine.__all__)
    assert {"verify", "Report", "Finding", "Verdict", "canonicalize", "read_input", "catalogue"} <= named
