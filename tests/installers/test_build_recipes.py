"""The packaging recipes, without building the bundle (that is packaging/ci.sh's job): ELF
dependency pruning, the .deb layout and control file, the desktop entry, the icons, and the
package list that the wheel (and so the bundle) is made from."""

import gzip
import io
import os
import shutil
import struct
import subprocess
import sys
import tarfile
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "packaging" / "pyinstaller"))
sys.path.insert(0, str(ROOT / "packaging" / "linux"))

import make_deb  # noqa: E402
import prune  # noqa: E402

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="ELF/dpkg tools are Linux-only")


@linux_only
def test_elf_needed_reads_dt_needed_of_a_real_binary():
    needed = prune.elf_needed(os.path.realpath(shutil.which("ls") or "/bin/ls"))
    assert "libc.so.6" in needed
    assert prune.elf_needed(str(ROOT / "README.md")) == []


def test_prune_drops_listed_plugins_and_orphaned_libraries():
    toc = [
        ("PySide6/Qt/plugins/platforms/libqxcb.so", "/s/libqxcb.so", "BINARY"),
        ("PySide6/Qt/plugins/platforms/libqvnc.so", "/s/libqvnc.so", "BINARY"),
        ("PySide6/Qt/plugins/platformthemes/libqgtk3.so", "/s/libqgtk3.so", "BINARY"),
        ("PySide6/Qt/lib/libQt6XcbQpa.so.6", "/s/libQt6XcbQpa.so.6", "BINARY"),
        ("libxcb-cursor.so.0", "/s/libxcb-cursor.so.0", "BINARY"),
        ("libcairo.so.2", "/s/libcairo.so.2", "BINARY"),
        ("libpixman-1.so.0", "/s/libpixman-1.so.0", "BINARY"),
        ("PySide6/QtCore.abi3.so", "/s/QtCore.abi3.so", "EXTENSION"),
        ("libpython3.11.so.1.0", "/s/libpython3.11.so.1.0", "BINARY"),
        ("libfontconfig.so.1", "/s/libfontconfig.so.1", "BINARY"),
        ("libstdc++.so.6", "/s/libstdc++.so.6", "BINARY"),
    ]
    deps = {
        "/s/libqxcb.so": ["libQt6XcbQpa.so.6", "libc.so.6"],
        "/s/libqgtk3.so": ["libcairo.so.2"],
        "/s/libcairo.so.2": ["libpixman-1.so.0"],
        "/s/libQt6XcbQpa.so.6": ["libxcb-cursor.so.0", "libfontconfig.so.1", "libstdc++.so.6"],
    }
    kept, dropped = prune.prune(toc, needed=lambda src: deps.get(src, []))
    assert [e[0] for e in kept] == [
        "PySide6/Qt/plugins/platforms/libqxcb.so", "PySide6/Qt/lib/libQt6XcbQpa.so.6", "libxcb-cursor.so.0",
        "PySide6/QtCore.abi3.so", "libpython3.11.so.1.0"]
    # fontconfig and libstdc++ are needed but must come from the system (see SYSTEM_LIBRARIES)
    assert sorted(dropped) == ["PySide6/Qt/plugins/platforms/libqvnc.so",
                               "PySide6/Qt/plugins/platformthemes/libqgtk3.so",
                               "libcairo.so.2", "libfontconfig.so.1", "libpixman-1.so.0", "libstdc++.so.6"]


def test_desktop_entry_launches_the_command_with_the_icon():
    entry = dict(line.split("=", 1) for line in make_deb.desktop_entry().splitlines() if "=" in line)
    assert entry["Type"] == "Application"
    assert entry["Name"] == "Checkpoint Inspector"
    assert entry["Exec"] == "checkpoint-inspector %F"
    assert entry["Icon"] == "checkpoint-inspector"
    assert entry["Terminal"] == "false"
    assert entry["Categories"].endswith(";")
    # our own media type only: listing application/json made the app the default JSON handler
    # wherever no other one was installed (gio picks the only registered application)
    assert entry["MimeType"] == "application/vnd.a3s.code.session-checkpoint.v1+json;"


def test_man_page_names_every_command():
    """The installed man page's synopsis lists the commands the program has (it lacked `report`
    and `diff`, seen with `man checkpoint-inspector` from the .deb): the page is made from the parser
    (tools/gen_cli_files.py; tests/cli/test_shell_files.py checks the rest of it)."""
    pytest.importorskip("argparse_manpage", reason="argparse-manpage is in the dev and package extras")
    from inspector.cli.main import SUBCOMMANDS

    page = make_deb.cli_files.man_page()
    synopsis = page.split(".SH SYNOPSIS", 1)[1].split(".SH", 1)[0]
    assert "{" + ",".join(SUBCOMMANDS) + "}" in synopsis
    assert "self\\-test" in page  # the options the console script answers before the parser


def _png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def test_icons_exist_in_every_size_and_format():
    icons = ROOT / "resources" / "icons"
    for size in make_deb.ICON_SIZES:
        assert _png_size(icons / f"checkpoint-inspector-{size}.png") == (size, size)
    ico = (icons / "checkpoint-inspector.ico").read_bytes()
    reserved, kind, count = struct.unpack("<HHH", ico[:6])
    assert (reserved, kind, count) == (0, 1, 7)
    widths = [ico[6 + 16 * i] or 256 for i in range(count)]
    assert widths == [16, 24, 32, 48, 64, 128, 256]
    icns = (icons / "checkpoint-inspector.icns").read_bytes()
    assert icns[:4] == b"icns" and struct.unpack(">I", icns[4:8])[0] == len(icns)
    assert (icons / "checkpoint-inspector.svg").read_text().lstrip().startswith("<?xml")


def _fake_bundle(tmp_path: Path) -> Path:
    bundle = tmp_path / "bundle" / "checkpoint-inspector"
    (bundle / "_internal").mkdir(parents=True)
    shutil.copyfile(os.path.realpath(shutil.which("true")), bundle / "checkpoint-inspector")
    os.chmod(bundle / "checkpoint-inspector", 0o755)
    (bundle / "_internal" / "data.txt").write_text("x")
    return bundle


@linux_only
def test_stage_lays_out_the_package(tmp_path):
    bundle = _fake_bundle(tmp_path)
    root = tmp_path / "root"
    root.mkdir()
    make_deb.stage(bundle, root, "9.9.9", "amd64", ["libc6 (>= 2.34)", "libxcb1"])
    link = root / "usr/bin/checkpoint-inspector"
    assert os.readlink(link) == "../lib/checkpoint-inspector/checkpoint-inspector"  # relative: Debian policy 10.5
    assert link.resolve() == (root / "usr/lib/checkpoint-inspector/checkpoint-inspector").resolve()
    assert os.stat(link).st_mode & 0o777 == 0o755
    assert (root / "usr/lib/checkpoint-inspector/_internal/data.txt").stat().st_mode & 0o777 == 0o644
    assert not (root / "opt").exists()  # dpkg would remove a pre-existing empty /opt with the package
    assert (root / "usr/share/applications/checkpoint-inspector.desktop").is_file()
    for size in make_deb.ICON_SIZES:
        assert _png_size(root / f"usr/share/icons/hicolor/{size}x{size}/apps/checkpoint-inspector.png") == (size, size)
    assert (root / "usr/share/icons/hicolor/scalable/apps/checkpoint-inspector.svg").is_file()
    control = (root / "DEBIAN/control").read_text()
    fields = dict(line.split(": ", 1) for line in control.splitlines() if not line.startswith(" "))
    assert fields["Package"] == "checkpoint-inspector"
    assert fields["Version"] == "9.9.9"
    assert fields["Architecture"] == "amd64"
    assert fields["Depends"] == "libc6 (>= 2.34), libxcb1"
    assert int(fields["Installed-Size"]) > 0


@linux_only
@pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="needs dpkg-deb")
def test_build_deb_from_a_fake_bundle_computes_depends_and_installs_with_dpkg_x(tmp_path):
    bundle = _fake_bundle(tmp_path)
    deb = make_deb.build_deb(bundle, tmp_path / "out", version="9.9.9")
    assert deb.name.startswith("checkpoint-inspector_9.9.9_")
    depends = subprocess.run(["dpkg-deb", "-f", str(deb), "Depends"], capture_output=True, text=True,
                             check=True).stdout.strip()
    # `true` needs only the C library; fonts for Latin/Greek/Cyrillic and CJK are always required
    assert depends.startswith("libc6 (>= 2.")
    assert depends.endswith(", fonts-dejavu-core | fonts-noto-core, "
                            "fonts-noto-cjk | fonts-wqy-microhei | fonts-droid-fallback")
    fields = {f: subprocess.run(["dpkg-deb", "-f", str(deb), f], capture_output=True, text=True).stdout.strip()
              for f in ("Recommends", "Section")}
    assert fields == {"Recommends": "fonts-noto-color-emoji", "Section": "utils"}
    scratch = tmp_path / "scratch"
    subprocess.run(["dpkg-deb", "-x", str(deb), str(scratch)], check=True)
    assert subprocess.run([str(scratch / "usr/bin/checkpoint-inspector")]).returncode == 0  # it is `true`
    doc = scratch / "usr/share/doc/checkpoint-inspector"
    assert sorted(p.name for p in doc.iterdir()) == ["README.samples.md", "THIRD-PARTY-NOTICES.txt", "changelog.gz",
                                                     "copyright"]
    assert (doc / "copyright").read_text().startswith(
        "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\nUpstream-Name: checkpoint-inspector\n")
    assert (scratch / "usr/share/mime/packages/checkpoint-inspector.xml").read_bytes() == \
        (ROOT / "packaging/linux/checkpoint-inspector-mime.xml").read_bytes()
    assert (scratch / "usr/share/metainfo/checkpoint-inspector.metainfo.xml").read_text().count("<release ") == 1
    man = gzip.decompress((scratch / "usr/share/man/man1/checkpoint-inspector.1.gz").read_bytes()).decode()
    assert man == make_deb.cli_files.man_page()
    for shell, (folder, name) in make_deb.cli_files.COMPLETION_FILES.items():
        assert (scratch / folder / name).read_text() == make_deb.cli_files.completion(shell)
    assert (scratch / "usr/lib/checkpoint-inspector/_internal/licenses/LICENSE").read_text() == (ROOT / "LICENSE").read_text()


def _source_packages() -> set[str]:
    return {".".join(p.parent.relative_to(ROOT).parts) for p in (ROOT / "inspector").rglob("__init__.py")
            if "__pycache__" not in p.parts}


def test_every_source_package_is_in_the_wheel():
    """pyproject lists packages explicitly; a subpackage missing there is missing from the wheel,
    from `pip install .` and from the installers (the self-test then fails on the GUI)."""
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    missing = sorted(_source_packages() - listed)
    assert missing == [], f"add to [tool.setuptools] packages in pyproject.toml: {missing}"


def test_spec_collects_every_inspector_submodule_and_the_data():
    spec = (ROOT / "packaging" / "pyinstaller" / "checkpoint-inspector.spec").read_text()
    assert 'collect_submodules("inspector")' in spec
    # every package that ships data files in the wheel ships them in the bundle too (rules.toml,
    # plain.toml, the ticket allow-list, samples, icons)
    data_packages = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]
    assert {"inspector.checkpoint.rules", "inspector.ticket", "inspector.resources"} <= set(data_packages)
    for package in data_packages:
        assert f'collect_data_files("{package}")' in spec, package
    assert "launcher.py" in spec


@linux_only
def test_the_package_carries_md5sums_of_every_file(tmp_path):
    """DEBIAN/md5sums: every regular file of the tree, with its MD5, sorted, symlinks left out."""
    import hashlib

    bundle = _fake_bundle(tmp_path)
    root = tmp_path / "root"
    root.mkdir()
    make_deb.stage(bundle, root, "9.9.9", "amd64", ["libc6 (>= 2.34)"])
    lines = (root / "DEBIAN/md5sums").read_text().splitlines()
    listed = {path: digest for digest, path in (line.split("  ", 1) for line in lines)}
    files = sorted(p.relative_to(root).as_posix() for p in root.rglob("*")
                   if p.is_file() and not p.is_symlink() and p.relative_to(root).parts[0] != "DEBIAN")
    assert sorted(listed) == files == [line.split("  ", 1)[1] for line in lines]
    data = "usr/lib/checkpoint-inspector/_internal/data.txt"
    assert listed[data] == hashlib.md5(b"x").hexdigest() == "9dd4e461268c8034f5c8564e155c67a6"
    assert "usr/bin/checkpoint-inspector" not in listed  # a symlink


@pytest.mark.parametrize("env, expected", [
    ({}, make_deb.DEFAULT_MAINTAINER),  # a test build keeps the placeholder (and says so)
    ({"DEB_MAINTAINER": "  "}, make_deb.DEFAULT_MAINTAINER),
    ({"RELEASE": "1", "DEB_MAINTAINER": "Jane Roe <jane.roe@a3s.dev>"}, "Jane Roe <jane.roe@a3s.dev>"),
    ({"RELEASE": "0", "DEB_MAINTAINER": "Jane Roe <jane@example.com>"}, "Jane Roe <jane@example.com>"),
])
def test_maintainer_from_the_environment(env, expected, capsys):
    assert make_deb.deb_maintainer(env) == expected
    placeholder = "example." in expected
    assert ("a release build (RELEASE=1) refuses it" in capsys.readouterr().err) is placeholder


@pytest.mark.parametrize("env, why", [
    ({"RELEASE": "1"}, "RELEASE=1 but the maintainer is a placeholder (Checkpoint Inspector maintainers "
                       "<checkpoint-inspector@example.invalid>)"),
    ({"RELEASE": "1", "DEB_MAINTAINER": "Jane Roe <jane@example.com>"}, "placeholder (Jane Roe <jane@example.com>)"),
    ({"RELEASE": "1", "DEB_MAINTAINER": "CI <ci@build.test>"}, "placeholder (CI <ci@build.test>)"),
    ({"RELEASE": "1", "DEB_MAINTAINER": "X <x@example.com.>"}, "placeholder (X <x@example.com.>)"),  # fully qualified
    ({"DEB_MAINTAINER": "jane@a3s.dev"}, "must read 'Name <address>' (Debian policy 5.6.2), not 'jane@a3s.dev'"),
    ({"RELEASE": "1", "DEB_MAINTAINER": "Jane Roe, Max Mustermann <team@a3s.dev>"}, "must read 'Name <address>'"),
])
def test_a_release_refuses_a_placeholder_or_malformed_maintainer(env, why):
    with pytest.raises(SystemExit) as e:
        make_deb.deb_maintainer(env)
    assert why in str(e.value)


@linux_only
@pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="needs dpkg-deb")
def test_release_build_of_the_deb_stops_before_any_work_and_ships_the_real_maintainer(tmp_path, monkeypatch):
    bundle = _fake_bundle(tmp_path)
    monkeypatch.setenv("RELEASE", "1")
    monkeypatch.delenv("DEB_MAINTAINER", raising=False)
    with pytest.raises(SystemExit, match="RELEASE=1 but the maintainer is a placeholder"):
        make_deb.build_deb(bundle, tmp_path / "out", version="9.9.9")
    assert not (tmp_path / "out").exists()  # nothing was written
    monkeypatch.setenv("DEB_MAINTAINER", "Jane Roe <jane.roe@a3s.dev>")
    with pytest.raises(SystemExit, match="RELEASE=1 but DEB_HOMEPAGE is not set"):
        make_deb.build_deb(bundle, tmp_path / "out", version="9.9.9")
    assert not (tmp_path / "out").exists()
    monkeypatch.setenv("DEB_HOMEPAGE", "https://tools.a3s.dev/checkpoint-inspector")
    deb = make_deb.build_deb(bundle, tmp_path / "out", version="9.9.9")
    homepage = subprocess.run(["dpkg-deb", "-f", str(deb), "Homepage"], capture_output=True, text=True, check=True)
    assert homepage.stdout.strip() == "https://tools.a3s.dev/checkpoint-inspector"
    field = subprocess.run(["dpkg-deb", "-f", str(deb), "Maintainer"], capture_output=True, text=True, check=True)
    assert field.stdout.strip() == "Jane Roe <jane.roe@a3s.dev>"
    files = subprocess.run(["dpkg-deb", "--fsys-tarfile", str(deb)], capture_output=True, check=True).stdout
    with tarfile.open(fileobj=io.BytesIO(files)) as tar:
        text = gzip.decompress(tar.extractfile("./usr/share/doc/checkpoint-inspector/changelog.gz").read()).decode()
    assert " -- Jane Roe <jane.roe@a3s.dev>  " in text


@pytest.mark.parametrize("env, expected", [
    ({}, None),
    ({"DEB_HOMEPAGE": " https://tools.a3s.dev/ci "}, "https://tools.a3s.dev/ci"),
])
def test_homepage_from_the_environment(env, expected):
    assert make_deb.deb_homepage(env) == expected


@pytest.mark.parametrize("env, why", [
    ({"RELEASE": "1"}, "RELEASE=1 but DEB_HOMEPAGE is not set"),
    ({"DEB_HOMEPAGE": "http://tools.a3s.dev"}, "must be an https:// URL, not 'http://tools.a3s.dev'"),
    ({"DEB_HOMEPAGE": "https://tools a3s.dev"}, "must be an https:// URL"),
])
def test_a_homepage_that_is_missing_in_a_release_or_not_https_is_refused(env, why):
    with pytest.raises(SystemExit) as e:
        make_deb.deb_homepage(env)
    assert why in str(e.value)


def test_appstream_metainfo_agrees_with_the_desktop_entry_and_validates(tmp_path, monkeypatch):
    """The software centre's data (AppStream) names the desktop entry, its media type and its summary, carries
    this version's release dated SOURCE_DATE_EPOCH and the homepage; appstreamcli finds no error and no warning
    but the one the file explains (the id is not a reverse domain name)."""
    import xml.etree.ElementTree as ET

    monkeypatch.setenv("SOURCE_DATE_EPOCH", "1796083200")
    text = make_deb.metainfo("0.1.0", "https://tools.a3s.dev/checkpoint-inspector")
    root = ET.fromstring(text)
    desktop = dict(line.split("=", 1) for line in make_deb.desktop_entry().splitlines() if "=" in line)
    assert root.get("type") == "desktop-application"
    assert root.findtext("launchable") == "checkpoint-inspector.desktop" and root.find("launchable").get("type") == "desktop-id"
    assert [m.text for m in root.iter("mediatype")] == [desktop["MimeType"].rstrip(";")]
    assert root.findtext("summary") == desktop["Comment"]
    assert root.findtext("provides/binary") == "checkpoint-inspector"
    assert [(r.get("version"), r.get("date")) for r in root.iter("release")] == [("0.1.0", "2026-12-01")]
    assert root.findtext("url[@type='homepage']") == "https://tools.a3s.dev/checkpoint-inspector"
    assert root.findtext("project_license") == tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["license"]
    assert "<url" not in make_deb.metainfo("0.1.0", None)
    if shutil.which("appstreamcli") is None:
        pytest.skip("appstreamcli is not installed (.ci/run installs it)")
    path = tmp_path / "checkpoint-inspector.metainfo.xml"
    path.write_text(text)
    p = subprocess.run(["appstreamcli", "validate", "--no-net", "--no-color", str(path)], capture_output=True, text=True)
    issues = [line.split(":")[0] + ":" + line.split(":")[-1].split()[0] for line in p.stdout.splitlines()
              if line[:2] in ("E:", "W:")]
    assert issues == ["W:cid-desktopapp-is-not-rdns"], p.stdout


@linux_only
def test_a_release_build_with_a_placeholder_maintainer_stops_before_any_work(tmp_path):
    """packaging/linux/build.sh checks the .deb's fields first: no package is installed, no venv made, no bundle
    built (before, the refusal came from make_deb.py after the two-minute bundle)."""
    env = {"PATH": "/usr/bin:/bin", "RELEASE": "1", "BUILD_DIR": str(tmp_path / "build"), "OUT_DIR": str(tmp_path / "dist"),
           "PYTHON": sys.executable}
    p = subprocess.run(["bash", str(ROOT / "packaging" / "linux" / "build.sh")], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 1
    assert "RELEASE=1 but the maintainer is a placeholder" in p.stderr
    assert not (tmp_path / "build").exists() and not (tmp_path / "dist").exists()
    p = subprocess.run(["bash", str(ROOT / "packaging" / "linux" / "build.sh")], cwd=ROOT, capture_output=True, text=True,
                       env={**env, "DEB_MAINTAINER": "Jane Roe <jane.roe@a3s.dev>"}, timeout=120)
    assert p.returncode == 1 and "RELEASE=1 but DEB_HOMEPAGE is not set" in p.stderr
    assert not (tmp_path / "build").exists()
