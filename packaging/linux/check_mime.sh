#!/usr/bin/env bash
# Prove the package's file-type registration with the desktop's own tools, in a throw-away XDG
# environment that holds only the system's MIME database and this package's files (so no other
# JSON application exists, the case where a MimeType=application/json entry became the default):
#   packaging/linux/check_mime.sh ROOT     (ROOT: the .deb unpacked with dpkg-deb -x)
# Checks: `gio mime application/json` names no default and not our desktop entry;
# `gio mime application/vnd.a3s.code.session-checkpoint.v1+json` defaults to it; `xdg-mime query
# filetype` gives our type for a payload and a descriptor (by name and by content) and
# application/json for plain JSON. Needs gio (libglib2.0-bin), update-mime-database
# (shared-mime-info), update-desktop-database (desktop-file-utils) and xdg-mime (xdg-utils).
set -euo pipefail
ROOT=$(cd "$1" && pwd)
TYPE=application/vnd.a3s.code.session-checkpoint.v1+json
env_dir=$(mktemp -d)
trap 'rm -rf "$env_dir"' EXIT
mkdir -p "$env_dir/data/mime/packages" "$env_dir/data/applications" "$env_dir/home" "$env_dir/config" "$env_dir/bin" "$env_dir/files"
cp /usr/share/mime/packages/freedesktop.org.xml "$env_dir/data/mime/packages/"
cp "$ROOT/usr/share/mime/packages/checkpoint-inspector.xml" "$env_dir/data/mime/packages/"
cp "$ROOT/usr/share/applications/checkpoint-inspector.desktop" "$env_dir/data/applications/"
ln -s "$ROOT/usr/lib/checkpoint-inspector/checkpoint-inspector" "$env_dir/bin/checkpoint-inspector"  # TryExec must resolve
update-mime-database "$env_dir/data/mime" >/dev/null
update-desktop-database "$env_dir/data/applications"
export XDG_DATA_DIRS=$env_dir/data XDG_DATA_HOME=$env_dir/home XDG_CONFIG_HOME=$env_dir/config \
  XDG_CONFIG_DIRS=$env_dir/config XDG_CURRENT_DESKTOP=GNOME PATH=$env_dir/bin:$PATH
samples="$ROOT/usr/lib/checkpoint-inspector/_internal/inspector/resources/samples"
cp "$samples/sample.payload.json" "$env_dir/files/a.payload.json"
cp "$samples/sample.descriptor.json" "$env_dir/files/a.descriptor.json"
cp "$samples/sample.payload.json" "$env_dir/files/renamed-payload.json"       # content only
cp "$samples/sample.descriptor.json" "$env_dir/files/renamed-descriptor.json"
printf '{"plain": [1, 2, 3]}\n' > "$env_dir/files/plain.json"
fail=0
json=$(gio mime application/json)
ours=$(gio mime "$TYPE")
echo "\$ gio mime application/json"; echo "$json" | sed 's/^/  /'
echo "\$ gio mime $TYPE"; echo "$ours" | sed 's/^/  /'
if grep -q checkpoint-inspector <<<"$json"; then echo "check_mime: FAIL: gio names the app for application/json"; fail=1; fi
# (gio quotes the type with typographic quotes: matched as any one character)
if ! grep -q "Default application for .$TYPE.: checkpoint-inspector.desktop" <<<"$ours"; then
  echo "check_mime: FAIL: the app is not the default for $TYPE"; fail=1
fi
for f in a.payload.json a.descriptor.json renamed-payload.json renamed-descriptor.json plain.json; do
  want=$TYPE; [ "$f" = plain.json ] && want=application/json
  got=$(xdg-mime query filetype "$env_dir/files/$f")
  echo "\$ xdg-mime query filetype $f  ->  $got"
  [ "$got" = "$want" ] || { echo "check_mime: FAIL: $f is $got, expected $want"; fail=1; }
done
exit $fail
