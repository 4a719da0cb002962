#!/usr/bin/env bash
# Build the macOS app and DMG of Checkpoint Inspector (NOT run on the Linux build machine:
# there is no Mac there; the workflow packaging/ci/github-workflow-installers.yml runs it).
#
#   packaging/macos/build.sh
#
# Needs: macOS 11+, Python 3.11+ (python.org universal2 or Homebrew), Xcode command line tools
# (hdiutil and codesign are part of macOS). Builds for the machine's architecture (arm64 on
# Apple silicon, x86_64 on Intel); run once per architecture.
# Produces: dist/Checkpoint Inspector.app (inside the DMG) and
#           dist/CheckpointInspector-<version>-macos-<arch>.dmg
# Signing: ad-hoc by default. With a Developer ID, set CODESIGN_IDENTITY (and, to notarize,
# NOTARY_PROFILE from `xcrun notarytool store-credentials`); without notarization, users
# open it the first time with right-click > Open.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
VERSION=$(sed -n 's/^__version__ = "\(.*\)"/\1/p' inspector/__init__.py)
ARCH=$(uname -m)
BUILD=$ROOT/build/packaging
APP="$BUILD/dist/Checkpoint Inspector.app"

[ -x "$BUILD/venv/bin/pyinstaller" ] || python3 -m venv "$BUILD/venv"
"$BUILD/venv/bin/pip" install -q -c packaging/requirements-build.txt "$ROOT[gui,package]"
"$BUILD/venv/bin/pip" install -q --no-deps --force-reinstall "$ROOT"
rm -rf "$BUILD/dist" "$BUILD/work"
"$BUILD/venv/bin/pyinstaller" --noconfirm --clean --log-level WARN \
  --distpath "$BUILD/dist" --workpath "$BUILD/work" packaging/pyinstaller/checkpoint-inspector.spec

# PyInstaller already signs every binary ad-hoc (enough to run on the Mac that downloads it after
# right-click > Open). With a Developer ID: hardened runtime + entitlements, as notarization needs.
if [ -n "${CODESIGN_IDENTITY:-}" ]; then
  codesign --force --deep --timestamp --options runtime --entitlements packaging/macos/entitlements.plist \
    --sign "$CODESIGN_IDENTITY" "$APP"
fi
"$APP/Contents/MacOS/checkpoint-inspector" --self-test

mkdir -p dist
DMG="dist/CheckpointInspector-$VERSION-macos-$ARCH.dmg"
STAGE=$(mktemp -d)
cp -R "$APP" "$STAGE/"
ln -s /Applications "$STAGE/Applications"
rm -f "$DMG"
hdiutil create -volname "Checkpoint Inspector" -srcfolder "$STAGE" -ov -format UDZO "$DMG"
rm -rf "$STAGE"
if [ -n "${NOTARY_PROFILE:-}" ]; then
  codesign --force --sign "$CODESIGN_IDENTITY" "$DMG"
  xcrun notarytool submit "$DMG" --keychain-profile "$NOTARY_PROFILE" --wait
  xcrun stapler staple "$DMG"
fi

# Install from the DMG as a user would (copy the app out), then self-test the copy.
MNT=$(mktemp -d)
hdiutil attach -nobrowse -readonly -mountpoint "$MNT" "$DMG"
TARGET=$(mktemp -d)
cp -R "$MNT/Checkpoint Inspector.app" "$TARGET/"
hdiutil detach "$MNT"
"$TARGET/Checkpoint Inspector.app/Contents/MacOS/checkpoint-inspector" --self-test
ls -l dist
