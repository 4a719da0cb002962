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
# pre-existing empty /opt survives. Every step's output is printed, and every step is checked: the script
# ends with "try_in_root: N passed, M failed" and exits 1 when any check failed (it used to exit 0 whatever
# its steps printed).
set -euo pipefail
ROOT=$(cd "$1" && pwd)
DEB=$2
DISPLAY_NUM=${3:-}
FIXTURES=${FIXTURES:-/work/shared/fixtures}
TYPE=application/vnd.a3s.code.session-checkpoint.v1+json
TYPE_RE=$(printf '%s' "$TYPE" | sed 's/[.+]/\\&/g')  # "v1+json" as a grep -E pattern: the "+" taken literally
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
passed=0
failed=0
out=$(mktemp)
# expect NAME WANT_EXIT PATTERN COMMAND...: the command exits WANT_EXIT and its output matches PATTERN (grep -E;
# an empty PATTERN checks the exit code only: grep finds no line at all in an empty output, not even "^")
expect() {
  local name=$1 want=$2 pattern=$3; shift 3
  local rc=0
  "$@" >"$out" 2>&1 || rc=$?
  sed 's/^/    /' "$out"
  if [ "$rc" = "$want" ] && { [ -z "$pattern" ] || grep -qE -- "$pattern" "$out"; }; then
    passed=$((passed + 1)); echo "try_in_root: ok   $name"
  else
    failed=$((failed + 1)); echo "try_in_root: FAIL $name (exit $rc, expected $want, output should match: $pattern)"
  fi
}

mkdir -p "$ROOT/tmp/try"
cp "$DEB" "$ROOT/tmp/try/"
cp "$FIXTURES/cases/01-valid.payload.json" "$ROOT/tmp/try/调试构建.payload.json"
cp "$FIXTURES/cases/01-valid.descriptor.json" "$ROOT/tmp/try/调试构建.descriptor.json"
cp "$FIXTURES/golden/payload-with-resume.json" "$ROOT/tmp/try/"
printf '{"plain": true}\n' > "$ROOT/tmp/try/plain.json"
opt_before=$(ls -ld "$ROOT/opt" 2>&1 || true)
echo "== /opt before: $opt_before"
in_root cat /etc/debian_version
in_root apt-get update -qq
expect "apt installs the .deb with its Depends and Recommends" 0 "" \
  in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q "/tmp/try/$(basename "$DEB")"
expect "the font packages are installed" 0 "fonts-noto-cjk .*" \
  in_root dpkg-query -W -f='${Package} ${Version}\n' fonts-noto-cjk fonts-noto-color-emoji fonts-dejavu-core
expect "--self-test --require-gui passes, every script drawn" 0 "self-test PASS .*text drawn in Latin, Greek, Cyrillic, CJK, emoji" \
  in_root checkpoint-inspector --self-test --require-gui
expect "application/json keeps its own default program" 0 "" bash -c \
  "! chroot '$ROOT' env XDG_CURRENT_DESKTOP=GNOME gio mime application/json | grep -q checkpoint-inspector"
expect "the checkpoint type opens in the app" 0 "checkpoint-inspector.desktop" \
  in_root env XDG_CURRENT_DESKTOP=GNOME gio mime "$TYPE"
for f in "调试构建.payload.json" "调试构建.descriptor.json" payload-with-resume.json; do
  expect "xdg-mime types $f as a checkpoint" 0 "^$TYPE_RE\$" \
    chroot "$ROOT" env XDG_CURRENT_DESKTOP=GNOME xdg-mime query filetype "/tmp/try/$f"
done
expect "xdg-mime types plain.json as JSON" 0 "^application/json\$" \
  chroot "$ROOT" env XDG_CURRENT_DESKTOP=GNOME xdg-mime query filetype /tmp/try/plain.json
echo "== without the CJK and emoji fonts:"
in_root dpkg --remove --force-depends fonts-noto-cjk fonts-noto-color-emoji >/dev/null 2>&1 || true
expect "--self-test passes with a warning naming the font packages" 0 \
  "self-test warning: gui: no installed font draws CJK.*sudo apt install fonts-noto-cjk fonts-noto-color-emoji" \
  in_root checkpoint-inspector --self-test --require-gui
in_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q fonts-noto-cjk fonts-noto-color-emoji | tail -n 1
if [ -n "$DISPLAY_NUM" ]; then
  chroot "$ROOT" env -i PATH=/usr/bin:/bin HOME=/root LANG=C.UTF-8 DISPLAY="$DISPLAY_NUM" \
    timeout 30 checkpoint-inspector /tmp/try/调试构建.payload.json /tmp/try/调试构建.descriptor.json &
  sleep 15
  xwd -root -display "$DISPLAY_NUM" -silent | convert xwd:- "$ROOT.png"
  echo "== screenshot: $ROOT.png"
  wait || true
fi
expect "apt removes the package" 0 "" \
  in_root env DEBIAN_FRONTEND=noninteractive apt-get remove -y -q checkpoint-inspector
expect "the command is gone" 0 "" bash -c "! chroot '$ROOT' sh -c 'command -v checkpoint-inspector'"
opt_after=$(ls -ld "$ROOT/opt" 2>&1 || true)
echo "== /opt after remove: $opt_after"
expect "a pre-existing /opt survives the removal" 0 "" test "${opt_before%% *}" = "${opt_after%% *}"
rm -f "$out"
echo "try_in_root: $passed passed, $failed failed"
[ "$failed" = 0 ]
