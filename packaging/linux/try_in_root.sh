#!/usr/bin/env bash
# Try the .deb as a support engineer's machine would meet it, in a clean Debian root (by hand;
# too slow for CI). Make the root once, as root:
#   mmdebstrap --variant=apt --include=ca-certificates,libglib2.0-bin,shared-mime-info,desktop-file-utils,xdg-utils \
#     bookworm /work/roots/bookworm http://deb.debian.org/debian          (or trixie)
# then:
#   packaging/linux/try_in_root.sh ROOT DEB [DISPLAY]
# It installs the .deb with apt (Depends and Recommends), runs the self-test, shows how the
# desktop tools type a checkpoint and which application they pick (gio mime, xdg-mime), removes
# the CJK and emoji fonts to show the self-test naming them, reinstalls them, takes a screenshot
# of the window on a fixture whose config name is "调试构建" (with DISPLAY: an Xvfb display of
# this machine; the screenshot lands in ROOT.png), and removes the package, checking that a
# pre-existing empty /opt survives. Every step's output is printed.
set -euo pipefail
ROOT=$(cd "$1" && pwd)
DEB=$2
DISPLAY_NUM=${3:-}
HERE=$(cd "$(dirname "$0")/../.." && pwd)
FIXTURES=${FIXTURES:-/work/shared/fixtures}
TYPE=application/vnd.a3s.code.session-checkpoint.v1+json
mounted=()
cleanup() { for m in "${mounted[@]}"; do umount -l "$m" 2>/dev/null || true; done; }
trap cleanup EXIT
mount -t proc proc "$ROOT/proc" && mounted+=("$ROOT/proc")
mount --rbind /dev "$ROOT/dev" && mounted+=("$ROOT/dev")
if [ -n "$DISPLAY_NUM" ]; then
  mkdir -p "$ROOT/tmp/.X11-unix"
  mount --bind /tmp/.X11-unix "$ROOT/tmp/.X11-unix" && mounted+=("$ROOT/tmp/.X11-unix")
fi
cp /etc/resolv.conf "$ROOT/etc/resolv.conf"
in_root() { echo "+ $*"; chroot "$ROOT" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 "$@"; }

mkdir -p "$ROOT/tmp/try"
cp "$DEB" "$ROOT/tmp/try/"
cp "$FIXTURES/cases/01-valid.payload.json" "$ROOT/tmp/try/调试构建.payload.json"
cp "$FIXTURES/cases/01-valid.descriptor.json" "$ROOT/tmp/try/调试构建.descriptor.json"
cp "$FIXTURES/golden/payload-with-resume.json" "$ROOT/tmp/try/"
printf '{"plain": true}\n' > "$ROOT/tmp/try/plain.json"
echo "== /opt before: $(ls -ld "$ROOT/opt" 2>&1)"
in_root cat /etc/debian_version
in_root apt-get update -qq
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "/tmp/try/$(basename "$DEB")" | tail -n 3
in_root dpkg-query -W -f='${Package} ${Version}\n' fonts-noto-cjk fonts-noto-color-emoji fonts-dejavu-core || true
in_root checkpoint-inspector --self-test --require-gui || true
in_root env XDG_CURRENT_DESKTOP=GNOME gio mime application/json || true
in_root env XDG_CURRENT_DESKTOP=GNOME gio mime "$TYPE" || true
for f in "调试构建.payload.json" "调试构建.descriptor.json" payload-with-resume.json plain.json; do
  echo "xdg-mime query filetype $f -> $(chroot "$ROOT" env XDG_CURRENT_DESKTOP=GNOME xdg-mime query filetype "/tmp/try/$f")"
done
echo "== without the CJK and emoji fonts:"
in_root dpkg --remove --force-depends fonts-noto-cjk fonts-noto-color-emoji >/dev/null 2>&1 || true
in_root checkpoint-inspector --self-test --require-gui || echo "(exit $?)"
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q fonts-noto-cjk fonts-noto-color-emoji | tail -n 1
if [ -n "$DISPLAY_NUM" ]; then
  chroot "$ROOT" env -i PATH=/usr/bin:/bin HOME=/root LANG=C.UTF-8 DISPLAY="$DISPLAY_NUM" \
    timeout 30 checkpoint-inspector /tmp/try/调试构建.payload.json /tmp/try/调试构建.descriptor.json &
  sleep 15
  xwd -root -display "$DISPLAY_NUM" -silent | convert xwd:- "$ROOT.png"
  echo "== screenshot: $ROOT.png"
  wait || true
fi
in_root env DEBIAN_FRONTEND=noninteractive apt-get remove -y -q checkpoint-inspector | tail -n 1
echo "== /opt after remove: $(ls -ld "$ROOT/opt" 2>&1)"
