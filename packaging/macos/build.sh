#!/usr/bin/env bash
# Build the macOS app and DMG of Checkpoint Inspector (NOT run on the Linux build machine:
# there is no Mac there; the workflow packaging/ci/github-workflow-installers.yml runs it on
# GitHub's macos-15 (arm64) and macos-15-intel (x86_64) runners).
#
#   packaging/macos/build.sh
#
# Needs: macOS 13+ (PySide6 6.11's wheels are macosx_13_0), Python 3.11+ (python.org universal2
# or Homebrew), Xcode command line tools (codesign, hdiutil, xcrun notarytool/stapler).
# Builds for the machine's architecture; run once per architecture.
# Produces: dist/CheckpointInspector-<version>-macos-<arch>.dmg (the app plus an Applications link).
#
# Signing, outermost last, never `codesign --deep` (Apple: it signs nested code wrongly):
#   CODESIGN_IDENTITY  "Developer ID Application: ..." in a keychain on the search list (the
#                      workflow imports it into a temporary keychain). Unset: ad-hoc signature
#                      and a visible warning (users then open it with right-click > Open).
#   NOTARY_PROFILE     a `xcrun notarytool store-credentials` profile (NOTARY_KEYCHAIN: the
#                      keychain holding it). Unset: not notarised, with a visible warning.
# Every signature is verified: codesign --verify --strict, and with a Developer ID spctl on the
# app and the DMG; after notarisation stapler validate and spctl on the stapled DMG.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
VERSION=$(sed -n 's/^__version__ = "\(.*\)"/\1/p' inspector/__init__.py)
ARCH=$(uname -m)
BUILD=$ROOT/build/packaging
APP="$BUILD/dist/Checkpoint Inspector.app"
ENTITLEMENTS=packaging/macos/entitlements.plist

warn() {  # visible in the GitHub Actions summary when run there, on stderr otherwise
  if [ -n "${GITHUB_ACTIONS:-}" ]; then echo "::warning title=macOS signing::$*"; else echo "build.sh: WARNING: $*" >&2; fi
}

[ -x "$BUILD/venv/bin/pyinstaller" ] || python3 -m venv "$BUILD/venv"
"$BUILD/venv/bin/pip" install -q -c packaging/requirements-build.txt "${ROOT}[gui,package]"
"$BUILD/venv/bin/pip" install -q --no-deps --force-reinstall "$ROOT"
rm -rf "$BUILD/dist" "$BUILD/work"
"$BUILD/venv/bin/pyinstaller" --noconfirm --clean --log-level WARN \
  --distpath "$BUILD/dist" --workpath "$BUILD/work" packaging/pyinstaller/checkpoint-inspector.spec
# licences generated from what the app contains (before signing: it adds files to the bundle)
"$BUILD/venv/bin/python" packaging/licenses/make_notices.py --bundle "$APP"
test -f "$APP/Contents/Resources/licenses/THIRD-PARTY-NOTICES.txt"

# Sign inside-out: every Mach-O file, then each framework, then the app. The hardened runtime and
# a secure timestamp are what notarisation requires; entitlements go on the main executable only.
IDENTITY=${CODESIGN_IDENTITY:-}
if [ -z "$IDENTITY" ]; then
  warn "CODESIGN_IDENTITY is not set: the app is signed ad-hoc, not with a Developer ID (Gatekeeper will block a downloaded copy until right-click > Open)"
fi
sign() {  # sign PATH [extra codesign args]
  local target=$1; shift
  if [ -n "$IDENTITY" ]; then
    codesign --force --timestamp --options runtime --sign "$IDENTITY" "$@" "$target"
  else
    codesign --force --sign - "$@" "$target"
  fi
}
while IFS= read -r -d '' f; do
  if file -b "$f" | grep -q 'Mach-O'; then sign "$f"; fi
done < <(find "$APP/Contents/Frameworks" "$APP/Contents/Resources" -type f -print0)
while IFS= read -r fw; do sign "$fw"; done < <(find "$APP/Contents" -type d -name '*.framework' | awk '{ print length, $0 }' | sort -rn | cut -d' ' -f2-)
sign "$APP/Contents/MacOS/checkpoint-inspector" --entitlements "$ENTITLEMENTS"
sign "$APP" --entitlements "$ENTITLEMENTS"
codesign --verify --strict --deep --verbose=2 "$APP"
if [ -n "$IDENTITY" ]; then
  codesign --display --verbose=2 "$APP" 2>&1 | grep -E '^(Authority|TeamIdentifier|Timestamp|Runtime)'
fi
"$APP/Contents/MacOS/checkpoint-inspector" --self-test --require-gui

mkdir -p dist
DMG="dist/CheckpointInspector-$VERSION-macos-$ARCH.dmg"
STAGE=$(mktemp -d)
cp -R "$APP" "$STAGE/"
ln -s /Applications "$STAGE/Applications"
rm -f "$DMG"
hdiutil create -volname "Checkpoint Inspector" -srcfolder "$STAGE" -ov -format UDZO "$DMG"
rm -rf "$STAGE"
if [ -n "$IDENTITY" ]; then
  codesign --force --timestamp --sign "$IDENTITY" "$DMG"
  codesign --verify --strict --verbose=2 "$DMG"
fi

if [ -n "${NOTARY_PROFILE:-}" ] && [ -n "$IDENTITY" ]; then
  keychain_args=()
  [ -n "${NOTARY_KEYCHAIN:-}" ] && keychain_args=(--keychain "$NOTARY_KEYCHAIN")
  xcrun notarytool submit "$DMG" --keychain-profile "$NOTARY_PROFILE" ${keychain_args[@]+"${keychain_args[@]}"} --wait \
    --output-format json | tee "$BUILD/notary.json"
  grep -q '"status" *: *"Accepted"' "$BUILD/notary.json" || { echo "build.sh: notarisation was not accepted" >&2; exit 1; }
  xcrun stapler staple "$DMG"
  xcrun stapler validate "$DMG"
  spctl --assess --type open --context context:primary-signature --verbose=2 "$DMG"
else
  warn "NOTARY_PROFILE (or a Developer ID) is not set: the DMG is not notarised or stapled"
fi

# Install from the DMG as a user would (copy the app out), then self-test the copy.
MNT=$(mktemp -d)
hdiutil attach -nobrowse -readonly -mountpoint "$MNT" "$DMG"
TARGET=$(mktemp -d)
cp -R "$MNT/Checkpoint Inspector.app" "$TARGET/"
hdiutil detach "$MNT"
codesign --verify --strict --deep --verbose=2 "$TARGET/Checkpoint Inspector.app"
if [ -n "${NOTARY_PROFILE:-}" ] && [ -n "$IDENTITY" ]; then
  spctl --assess --type execute --verbose=2 "$TARGET/Checkpoint Inspector.app"
fi
"$TARGET/Checkpoint Inspector.app/Contents/MacOS/checkpoint-inspector" --self-test --require-gui
test -f "$TARGET/Checkpoint Inspector.app/Contents/Resources/licenses/THIRD-PARTY-NOTICES.txt"
ls -l dist
