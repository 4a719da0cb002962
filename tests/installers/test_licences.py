"""Licences and the single-sourced version: the LICENSE file, the runtime licence texts
(Help ▸ About), the Debian machine-readable copyright rendering, the artifact licence check,
and the dangling-link pruning of the bundle."""

import importlib.metadata
import io
import sys
import tarfile
import tomllib
import zipfile
from pathlib import Path

import inspector
from inspector import licenses

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "packaging" / "licenses"))
sys.path.insert(0, str(ROOT / "packaging" / "pyinstaller"))

import check_artifacts  # noqa: E402
import make_notices  # noqa: E402
import prune  # noqa: E402


def test_license_file_is_the_apache_2_text_pyproject_declares():
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License\n                           Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "Apache-2.0"
    assert project["license-files"] == ["LICENSE", "NOTICE"]
    assert licenses.project_license() == text


def test_version_is_written_once():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "version" not in pyproject["project"]
    assert pyproject["project"]["dynamic"] == ["version"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "inspector.__version__"}
    assert importlib.metadata.version("checkpoint-inspector") == inspector.__version__
    # no packaging recipe writes the number itself
    for recipe in ("packaging/windows/checkpoint-inspector.iss", "packaging/pyinstaller/checkpoint-inspector.spec",
                   "packaging/macos/build.sh", "packaging/linux/build.sh", "packaging/windows/build.ps1"):
        assert inspector.__version__ not in (ROOT / recipe).read_text(), recipe


def test_third_party_notices_of_a_pip_install_list_the_installed_runtime_distributions():
    text = licenses.third_party_notices()
    orjson = importlib.metadata.version("orjson")
    assert f"  orjson {orjson}: MPL-2.0 AND (Apache-2.0 OR MIT)" in text.splitlines()
    pyside = importlib.metadata.distribution("PySide6-Essentials")
    assert f"  {pyside.metadata['Name']} {pyside.version}: LGPL-3.0-only OR GPL-2.0-only OR GPL-3.0-only" in text
    assert "--- orjson: LICENSE-MIT ---" in text  # the licence texts themselves, not only names


def test_bundled_notices_take_precedence(tmp_path, monkeypatch):
    (tmp_path / "licenses").mkdir()
    (tmp_path / "licenses" / "THIRD-PARTY-NOTICES.txt").write_text("generated at build time\n")
    (tmp_path / "licenses" / "LICENSE").write_text("bundled licence\n")
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    assert licenses.third_party_notices() == "generated at build time\n"
    assert licenses.project_license() == "bundled licence\n"


def _paragraphs(dep5: str) -> list[dict[str, str]]:
    paras = []
    for block in dep5.strip().split("\n\n"):
        fields, key = {}, None
        for line in block.splitlines():
            if line.startswith(" "):
                fields[key] += "\n" + line
            else:
                key, _, value = line.partition(":")
                fields[key] = value.strip()
        paras.append(fields)
    return paras


def test_dep5_copyright_has_a_files_paragraph_per_component_and_every_licence_defined():
    qt = make_notices.Component("PySide6_Essentials", "6.11.3", "LGPL-3.0-only", paths=["PySide6/*"],
                                note="Relink: replace the Qt libraries.", copyright="The Qt Company Ltd.")
    orjson = make_notices.Component("orjson", "3.13.0", "MPL-2.0 AND (Apache-2.0 OR MIT)", paths=["orjson/*"],
                                    texts=[("orjson: licenses/LICENSE-MIT", "MIT License\n\nPermission is hereby")])
    ssl = make_notices.Component("libssl3 (Debian)", "3.0.19", "see the package's copyright below",
                                 paths=["libssl.so.3"], texts=[("/usr/share/doc/libssl3/copyright", "OpenSSL terms\n\nmore")])
    paras = _paragraphs(make_notices.render_dep5([qt, orjson, ssl], "usr/lib/checkpoint-inspector", "m <m@x.invalid>"))
    assert paras[0]["Format"] == "https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/"
    assert paras[0]["Upstream-Contact"] == "m <m@x.invalid>"
    assert paras[1] == {"Files": "*", "Copyright": "2026 The Checkpoint Inspector authors (A3S)", "License": "Apache-2.0"}
    assert paras[2]["Files"] == "usr/lib/checkpoint-inspector/_internal/PySide6/*"
    assert paras[2]["License"] == "LGPL-3.0-only" and "Relink" in paras[2]["Comment"]
    assert paras[3]["License"] == "MPL-2.0 and (Apache-2.0 or MIT)"
    assert paras[4]["Files"] == "usr/lib/checkpoint-inspector/_internal/libssl.so.3"
    assert paras[4]["License"] == (
        "other\n libssl3 (Debian) 3.0.19, unmodified. Its copyright and licence terms (/usr/share/doc/libssl3/copyright) are"
        "\n reproduced in full in /usr/share/doc/checkpoint-inspector/THIRD-PARTY-NOTICES.txt.")
    standalone = {p["License"].split("\n")[0]: p["License"] for p in paras[5:]}
    assert sorted(standalone) == ["Apache-2.0", "LGPL-3.0-only", "MIT", "MPL-2.0"]
    assert "/usr/share/common-licenses/LGPL-3" in standalone["LGPL-3.0-only"]
    assert standalone["MIT"].startswith("MIT\n MIT License\n .\n Permission is hereby")


def _zip(path: Path, names: list[str]) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        for n in names:
            z.writestr(n, "x")
    return path


def _tar(path: Path, names: list[str]) -> Path:
    with tarfile.open(path, "w:gz") as t:
        for n in names:
            info = tarfile.TarInfo(n)
            info.size = 1
            t.addfile(info, io.BytesIO(b"x"))
    return path


def test_artifact_check_lists_licence_files_and_fails_when_one_is_missing(tmp_path, capsys):
    good = _zip(tmp_path / "checkpoint_inspector-9.9-py3-none-any.whl",
                ["inspector/__init__.py", "checkpoint_inspector-9.9.dist-info/licenses/LICENSE",
                 "checkpoint_inspector-9.9.dist-info/licenses/NOTICE"])
    bad = _tar(tmp_path / "checkpoint_inspector-9.9.tar.gz", ["checkpoint_inspector-9.9/LICENSE"])
    assert check_artifacts.main([str(good), str(bad)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "licences: ok   checkpoint_inspector-9.9-py3-none-any.whl (wheel): "
        "checkpoint_inspector-9.9.dist-info/licenses/LICENSE, checkpoint_inspector-9.9.dist-info/licenses/NOTICE",
        "licences: FAIL checkpoint_inspector-9.9.tar.gz (sdist): missing */NOTICE; found: checkpoint_inspector-9.9/LICENSE"]


def test_links_to_pruned_libraries_are_dropped_with_them():
    datas = [("libQt6EglFsKmsSupport.so.6", "PySide6/Qt/lib/libQt6EglFsKmsSupport.so.6", "SYMLINK"),
             ("libQt6Core.so.6", "PySide6/Qt/lib/libQt6Core.so.6", "SYMLINK"),
             ("PySide6/Qt/lib/../lib/x.so", "libQt6Core.so.6", "SYMLINK"),
             ("inspector/resources/samples/sample.payload.json", "/src/sample.payload.json", "DATA")]
    binaries = [("PySide6/Qt/lib/libQt6Core.so.6", "/s/libQt6Core.so.6", "BINARY")]
    kept, dropped = prune.drop_dangling_symlinks(datas, binaries + datas)
    assert dropped == ["libQt6EglFsKmsSupport.so.6"]
    assert [e[0] for e in kept] == ["libQt6Core.so.6", "PySide6/Qt/lib/../lib/x.so",
                                    "inspector/resources/samples/sample.payload.json"]


def test_a_pip_install_names_every_runtime_dependency_in_its_notices(monkeypatch):
    """The pip route's Licences (msgspec was missing): every distribution pyproject.toml makes the
    program depend on at run time (dependencies and the gui extra) is listed, and shown when installed."""
    import re
    import tomllib

    from inspector import licenses

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    needed = {re.split(r"[<>=!~ ;\[]", r, maxsplit=1)[0] for r in project["dependencies"]
              + project["optional-dependencies"]["gui"]}
    assert needed <= set(licenses.RUNTIME_DISTRIBUTIONS)
    monkeypatch.setattr(licenses, "licenses_dir", lambda: None)  # a pip install: no generated notices file
    text = licenses.third_party_notices()
    version = importlib.metadata.version("msgspec")
    assert f"  msgspec {version}: " in text
