#!/usr/bin/env bash
# Build the Linux installers of Checkpoint Inspector from a clean checkout:
#   dist/checkpoint-inspector_<version>_<arch>.deb           Debian/Ubuntu package
#   dist/checkpoint-inspector-<version>-linux-<arch>.tar.gz    portable one-folder bundle
#   (AppImage only if appimagetool is on PATH: see packaging/linux/make_appimage.sh)
#
# Needs: Debian/Ubuntu with python3 (>= 3.11) + venv, dpkg-deb, and the system libraries Qt
# links against (installed here with apt-get when run as root, else the command is printed).
# Environment: BUILD_DIR (default build/packaging), OUT_DIR (default dist), PYTHON (default python3).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
BUILD_DIR=${BUILD_DIR:-$ROOT/build/packaging}
OUT_DIR=${OUT_DIR:-$ROOT/dist}
PYTHON=${PYTHON:-python3}
VERSION=$(sed -n 's/^__version__ = "\(.*\)"/\1/p' inspector/__init__.py)
# Reproducible builds (reproducible-builds.org): every time written is the commit's unless SOURCE_DATE_EPOCH
# says otherwise, and Python's hash seed is fixed; two builds of one commit give the same wheel, sdist, .deb and
# tarball (packaging/ci.sh builds twice and compares; tests/installers/test_reproducible.py the parts alone).
export SOURCE_DATE_EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$ROOT" log -1 --format=%ct)}
export PYTHONHASHSEED=0
# a release build refuses a placeholder maintainer or a missing homepage before any work (make_deb.py)
"$PYTHON" packaging/linux/make_deb.py --check-fields
ARCH=$(dpkg --print-architecture)
t0=$(date +%s)

# 1. System packages: binutils (strip/objdump for PyInstaller) and the libraries that Qt's xcb
#    and wayland platform plugins link against. PyInstaller bundles what it finds; make_deb.py
#    turns what stays outside the bundle into Depends, and refuses to build if one is missing.
APT_PACKAGES="binutils patchelf libegl1 libgl1 libfontconfig1 libfreetype6 libdbus-1-3 libglib2.0-0 libxkbcommon0
  libxkbcommon-x11-0 libx11-6 libx11-xcb1 libxcb1 libxcb-cursor0 libxcb-icccm4 libxcb-image0 libxcb-keysyms1
  libxcb-randr0 libxcb-render-util0 libxcb-shape0 libxcb-shm0 libxcb-sync1 libxcb-xfixes0 libxcb-xkb1
  libxcb-util1 libxcb-glx0 libwayland-client0 libwayland-cursor0 libwayland-egl1"
missing=()
for p in $APT_PACKAGES; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "build.sh: installing build packages: ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "build.sh: missing build packages; run: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi

# 2. A clean build venv with the project installed NON-editable (package data from site-packages).
VENV=$BUILD_DIR/venv
if [ ! -x "$VENV/bin/pyinstaller" ]; then
  rm -rf "$VENV"
  "$PYTHON" -m venv "$VENV"
fi
rm -rf "$ROOT/build/lib" "$ROOT"/build/bdist.*  # setuptools' in-tree leftovers could put stale modules in the wheel
"$VENV/bin/pip" install -q --disable-pip-version-check -c packaging/requirements-build.txt "${ROOT}[gui,package]"
"$VENV/bin/pip" install -q --disable-pip-version-check --no-deps --force-reinstall "$ROOT"  # always this tree
# The wheel must contain every source package (pyproject lists them explicitly): else the
# bundle silently lacks it and only the self-test would notice.
(cd /tmp && "$VENV/bin/python" -I - "$ROOT" <<'PY'
import importlib.util, pathlib, sys
root = pathlib.Path(sys.argv[1])
pkgs = sorted(".".join(p.parent.relative_to(root).parts) for p in (root / "inspector").rglob("__init__.py"))
def absent(name):
    try:
        return importlib.util.find_spec(name) is None
    except ModuleNotFoundError:  # its parent package is missing too
        return True
missing = [p for p in pkgs if absent(p)]
if missing:
    sys.exit(f"build.sh: not in the installed wheel (add to [tool.setuptools] packages in pyproject.toml): {missing}")
PY
)
t1=$(date +%s)

# 3. The one-folder bundle.
rm -rf "$BUILD_DIR/dist" "$BUILD_DIR/work"
"$VENV/bin/pyinstaller" --noconfirm --clean --log-level WARN \
  --distpath "$BUILD_DIR/dist" --workpath "$BUILD_DIR/work" packaging/pyinstaller/checkpoint-inspector.spec
BUNDLE=$BUILD_DIR/dist/checkpoint-inspector
# RUNPATH entries outside the bundle (the build machine's Python prefix, e.g. ~/.pyenv/.../lib)
# are removed: on a user's machine they are at best useless, at worst a place to plant libraries.
while IFS= read -r -d '' so; do
  rp=$(patchelf --print-rpath "$so" 2>/dev/null) || continue
  [ -n "$rp" ] || continue
  keep=$(tr ':' '\n' <<<"$rp" | grep '^\$ORIGIN' | paste -sd: -) || true
  if [ "$keep" != "$rp" ]; then
    if [ -n "$keep" ]; then patchelf --set-rpath "$keep" "$so"; else patchelf --remove-rpath "$so"; fi
  fi
done < <(find "$BUNDLE" -type f -name '*.so*' -print0)
# fonts for every script (portable use; make_deb.py drops them for Depends) and the licence
# folder generated from what the bundle really contains
packaging/linux/fetch_fonts.sh "$BUNDLE/_internal/fonts"
"$VENV/bin/python" packaging/licenses/make_notices.py --bundle "$BUNDLE"
"$BUNDLE/checkpoint-inspector" --version
dangling=$(find "$BUNDLE" -xtype l)
if [ -n "$dangling" ]; then echo "build.sh: dangling symlinks in the bundle: $dangling" >&2; exit 1; fi
t2=$(date +%s)

# 4. The .deb, the tarball, and (if the tool exists) the AppImage.
mkdir -p "$OUT_DIR"
rm -f "$OUT_DIR"/checkpoint-inspector_*.deb "$OUT_DIR"/checkpoint-inspector-*-linux-*.tar.gz \
  "$OUT_DIR"/checkpoint_inspector-*.whl "$OUT_DIR"/checkpoint_inspector-*.tar.gz
# the Python distributions (wheel and sdist) too: they carry LICENSE and NOTICE (PEP 639)
"$VENV/bin/python" packaging/build_dists.py --out "$OUT_DIR" >"$BUILD_DIR/python-build.log" 2>&1 \
  || { cat "$BUILD_DIR/python-build.log" >&2; exit 1; }
"$VENV/bin/python" packaging/linux/make_deb.py --bundle "$BUNDLE" --out "$OUT_DIR"
tar -C "$BUILD_DIR/dist" --sort=name --mtime="@$SOURCE_DATE_EPOCH" --clamp-mtime --owner=0 --group=0 --numeric-owner \
  -cf - checkpoint-inspector | gzip -n -9 > "$OUT_DIR/checkpoint-inspector-$VERSION-linux-$ARCH.tar.gz"
if command -v appimagetool >/dev/null; then
  packaging/linux/make_appimage.sh "$BUNDLE" "$OUT_DIR"
else
  echo "build.sh: AppImage not built: appimagetool is not installed (a GitHub download; not in Debian or on PyPI: packaging/README.md)"
fi
t3=$(date +%s)

echo "build.sh: bundle $(du -sh "$BUNDLE" | cut -f1) on disk; artifacts:"
ls -l "$OUT_DIR" | sed 1d
echo "build.sh: timings: venv $((t1 - t0))s, bundle $((t2 - t1))s, packages $((t3 - t2))s"
