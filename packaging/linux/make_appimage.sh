#!/usr/bin/env bash
# Wrap the one-folder bundle in an AppImage. UNTESTED HERE: appimagetool and the AppImage runtime
# are published only as GitHub downloads, which the build machine cannot reach (neither is in Debian;
# the package index's AppImage tools download them at build time), so build.sh calls this only when
# `appimagetool` is on PATH. packaging/README.md ("AppImage: why not, and what it would take").
#
#   packaging/linux/make_appimage.sh BUNDLE_DIR OUT_DIR
set -euo pipefail
BUNDLE=$1
OUT=$2
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
VERSION=$(sed -n 's/^__version__ = "\(.*\)"/\1/p' "$ROOT/inspector/__init__.py")
APPDIR=$(mktemp -d)/CheckpointInspector.AppDir
mkdir -p "$APPDIR/opt"
cp -a "$BUNDLE" "$APPDIR/opt/checkpoint-inspector"
cp "$ROOT/packaging/linux/checkpoint-inspector.desktop" "$APPDIR/"
cp "$ROOT/resources/icons/checkpoint-inspector-256.png" "$APPDIR/checkpoint-inspector.png"
cat > "$APPDIR/AppRun" <<'SH'
#!/bin/sh
HERE=$(dirname "$(readlink -f "$0")")
exec "$HERE/opt/checkpoint-inspector/checkpoint-inspector" "$@"
SH
chmod +x "$APPDIR/AppRun"
ARCH=$(uname -m) appimagetool "$APPDIR" "$OUT/CheckpointInspector-$VERSION-$(uname -m).AppImage"
