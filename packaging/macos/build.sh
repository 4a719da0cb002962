#!/usr/bin/env bash
# Build the macOS app and DMG of Checkpoint Inspector (NOT run on the Linux build machine:
# there is no Mac there; the workflow .github/workflows/installers.yml runs it on
# GitHub's macos-15 (arm64) and macos-15-intel (x86_64) runners).
#
#   packaging/macos/build.sh
#
# Needs: macOS 13+ (PySide6 6.11's wheels are macosx_13_0), Python 3.11+ (python.org universal2
# or Homebrew), Xcode command line tools (codesign, hdiutil, ditto, xcrun notarytool/stapler).
# Builds for the machine's architecture; run once per architecture.
# Produces: dist/CheckpointInspector-<version>-macos-<arch>.dmg (the app plus an Applications link)
# and dist/signing-macos-<arch>.txt (what was signed, notarised and stapled, with the checks' output).
#
# Signing, outermost last, never `codesign --deep` (Apple: it signs nested code wrongly):
#   CODESIGN_IDENTITY  "Developer ID Application: ..." in a keychain on the search list (the
#                      workflow imports it into a temporary keychain). Unset: ad-hoc signature
#                      and a visible warning (users then open it with right-click > Open).
# Notarisation (xcrun notarytool submit --wait), one of:
#   NOTARY_PROFILE     a `xcrun notarytool store-credentials` profile (NOTARY_KEYCHAIN: the
#                      keychain holding it), or
#   NOTARY_API_KEY (path of the App Store Connect API key AuthKey_<id>.p8), NOTARY_API_KEY_ID,
#                      NOTARY_API_ISSUER (the issuer UUID; unset for an individual key).
#   Unset: not notarised, with a visible warning.
# The app is notarised (as a zip) and stapled BEFORE it goes into the DMG, then the DMG is signed,
# notarised and stapled too: a stapled app still opens offline once copied out of the DMG.
# RELEASE=1 turns every "not signed / not notarised" warning into an error (exit 1).
# Every signature is verified: codesign --verify --strict, spctl on the app and the DMG, and
# xcrun stapler validate on both.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
VERSION=$(sed -n 's/^__version__ = "\(.*\)"/\1/p' inspector/__init__.py)
ARCH=$(uname -m)
BUILD=$ROOT/build/packaging
APP="$BUILD/dist/Checkpoint Inspector.app"
ENTITLEMENTS=packaging/macos/entitlements.plist

warn() {  # visible in the GitHub Actions summary when run there, on stderr otherwise; an error with RELEASE=1
  if [ "${RELEASE:-0}" = 1 ]; then
    if [ -n "${GITHUB_ACTIONS:-}" ]; then echo "::error title=macOS signing::$*"; else echo "build.sh: ERROR (RELEASE=1): $*" >&2; fi
    exit 1
  fi
  if [ -n "${GITHUB_ACTIONS:-}" ]; then echo "::warning title=macOS signing::$*"; else echo "build.sh: WARNING: $*" >&2; fi
}
IDENTITY=${CODESIGN_IDENTITY:-}
# (bash 3.2, macOS's own, calls an empty "${array[@]}" unbound under set -u: the array is used only when set)
NOTARISE=0
if [ -n "${NOTARY_PROFILE:-}" ]; then
  NOTARISE=1
  notary_args=(--keychain-profile "$NOTARY_PROFILE")
  if [ -n "${NOTARY_KEYCHAIN:-}" ]; then notary_args+=(--keychain "$NOTARY_KEYCHAIN"); fi
elif [ -n "${NOTARY_API_KEY:-}" ] && [ -n "${NOTARY_API_KEY_ID:-}" ]; then
  NOTARISE=1
  notary_args=(--key "$NOTARY_API_KEY" --key-id "$NOTARY_API_KEY_ID")
  if [ -n "${NOTARY_API_ISSUER:-}" ]; then notary_args+=(--issuer "$NOTARY_API_ISSUER"); fi
fi
[ -n "$IDENTITY" ] || NOTARISE=0  # Apple notarises only Developer ID signatures
# refuse early (before a 10-minute build) what RELEASE=1 would refuse at the end
if [ -z "$IDENTITY" ]; then
  warn "CODESIGN_IDENTITY is not set: the app is signed ad-hoc, not with a Developer ID (Gatekeeper will block a downloaded copy until right-click > Open)"
fi
if [ "$NOTARISE" != 1 ]; then
  warn "no notarisation credentials (NOTARY_PROFILE, or NOTARY_API_KEY and NOTARY_API_KEY_ID) or no Developer ID: the app and the DMG are not notarised or stapled"
fi
REPORT="$ROOT/dist/signing-macos-$ARCH.txt"
mkdir -p "$ROOT/dist"
: > "$REPORT"
record() { echo "$*" | tee -a "$REPORT"; }

notarise() {  # notarise FILE (a .zip of the app, or the .dmg); fails unless Apple answers Accepted
  local file=$1 out id
  out="$BUILD/notary-$(basename "$file").json"
  xcrun notarytool submit "$file" "${notary_args[@]}" --wait --timeout 1h --output-format json > "$out" || true
  cat "$out"
  id=$(sed -n 's/.*"id" *: *"\([^"]*\)".*/\1/p' "$out" | head -n 1)
  if ! grep -q '"status" *: *"Accepted"' "$out"; then
    if [ -n "$id" ]; then xcrun notarytool log "$id" "${notary_args[@]}" || true; fi
    echo "build.sh: notarisation of $(basename "$file") was not accepted" >&2
    exit 1
  fi
  record "notarised: $(basename "$file") (submission $id)"
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
  details=$(codesign --display --verbose=2 "$APP" 2>&1)
  grep -E '^(Authority|TeamIdentifier|Timestamp|Runtime)' <<< "$details" | tee -a "$REPORT"
  # the hardened runtime is on (flags=0x10000(runtime)): notarisation refuses the app without it
  grep -q 'flags=0x10000(runtime)' <<< "$details" || { echo "build.sh: the app lacks the hardened runtime" >&2; exit 1; }
  record "signed: Checkpoint Inspector.app with $IDENTITY, hardened runtime"
else
  record "signed: Checkpoint Inspector.app ad-hoc (NOT a Developer ID)"
fi
"$APP/Contents/MacOS/checkpoint-inspector" --self-test --require-gui

# Notarise the app itself and staple its ticket into it before it goes into the DMG (a copy taken
# out of the DMG then opens without a network round trip to Apple).
if [ "$NOTARISE" = 1 ]; then
  ZIP="$BUILD/CheckpointInspector-$VERSION-$ARCH-app.zip"
  rm -f "$ZIP"
  ditto -c -k --sequesterRsrc --keepParent "$APP" "$ZIP"
  notarise "$ZIP"
  xcrun stapler staple "$APP"
  xcrun stapler validate "$APP"
  spctl --assess --type execute --verbose=2 "$APP"
  record "stapled and validated: Checkpoint Inspector.app"
fi

# hdiutil create fails now and then on hosted runners with "Resource busy" (a volume still being indexed or
# detached): retry a few times, a little later each time, and fail on any other error at once
# (tests/installers/test_installer_recipes.py runs this function with a stand-in hdiutil)
hdiutil_create() {  # hdiutil_create SOURCE_FOLDER DMG
  local attempt out
  for attempt in 1 2 3 4 5; do
    if out=$(hdiutil create -volname "Checkpoint Inspector" -srcfolder "$1" -ov -format UDZO "$2" 2>&1); then
      echo "$out"
      return 0
    fi
    echo "$out" >&2
    if [ "$attempt" = 5 ] || ! grep -q "Resource busy" <<<"$out"; then
      echo "build.sh: hdiutil create failed" >&2
      return 1
    fi
    echo "build.sh: hdiutil create: resource busy, trying again (attempt $((attempt + 1)) of 5)" >&2
    sleep $((attempt * ${HDIUTIL_RETRY_SECONDS:-5}))
  done
}

mkdir -p dist
DMG="dist/CheckpointInspector-$VERSION-macos-$ARCH.dmg"
STAGE=$(mktemp -d)
cp -R "$APP" "$STAGE/"
ln -s /Applications "$STAGE/Applications"
rm -f "$DMG"
hdiutil_create "$STAGE" "$DMG"
rm -rf "$STAGE"
if [ -n "$IDENTITY" ]; then
  codesign --force --timestamp --sign "$IDENTITY" "$DMG"
  codesign --verify --strict --verbose=2 "$DMG"
  record "signed: $(basename "$DMG") with $IDENTITY"
fi

if [ "$NOTARISE" = 1 ]; then
  notarise "$DMG"
  xcrun stapler staple "$DMG"
  xcrun stapler validate "$DMG"
  spctl --assess --type open --context context:primary-signature --verbose=2 "$DMG"
  record "stapled and validated: $(basename "$DMG")"
fi

# Install from the DMG as a user would (copy the app out), then self-test the copy.
MNT=$(mktemp -d)
hdiutil attach -nobrowse -readonly -mountpoint "$MNT" "$DMG"
TARGET=$(mktemp -d)
cp -R "$MNT/Checkpoint Inspector.app" "$TARGET/"
hdiutil detach "$MNT"
codesign --verify --strict --deep --verbose=2 "$TARGET/Checkpoint Inspector.app"
if [ "$NOTARISE" = 1 ]; then
  xcrun stapler validate "$TARGET/Checkpoint Inspector.app"  # the copy carries its own ticket
  spctl --assess --type execute --verbose=2 "$TARGET/Checkpoint Inspector.app"
fi
"$TARGET/Checkpoint Inspector.app/Contents/MacOS/checkpoint-inspector" --self-test --require-gui
test -f "$TARGET/Checkpoint Inspector.app/Contents/Resources/licenses/THIRD-PARTY-NOTICES.txt"
if [ "$NOTARISE" = 1 ]; then record "status: signed-notarised"; else record "status: UNSIGNED"; fi
ls -l dist
