#!/usr/bin/env bash
# Measure how long an installed Checkpoint Inspector takes to start, cold (page cache dropped:
# needs root) and warm. Needs xdotool, and Xvfb when no DISPLAY is set.
#
#   packaging/linux/measure_startup.sh [APP] [RUNS]     (APP default: checkpoint-inspector)
#
# Reports, per run: the CLI (`--version`, `verify` of the bundled golden pair), the time until
# the main window is visible, and until the bundled sample is loaded and verified in it (the
# window title changes from "Checkpoint Inspector" to "<files> — Checkpoint Inspector").
set -euo pipefail
APP=${1:-checkpoint-inspector}
RUNS=${2:-3}
APP=$(command -v "$APP" || echo "$APP")
SAMPLES=$(dirname "$(readlink -f "$APP")")/_internal/inspector/resources/samples
if [ -z "${DISPLAY:-}" ]; then
  Xvfb :97 -screen 0 1400x900x24 >/dev/null 2>&1 &
  XVFB=$!
  trap 'kill $XVFB 2>/dev/null || true' EXIT
  export DISPLAY=:97
  sleep 1
fi
now() { date +%s%N; }
ms() { echo $(( ($2 - $1) / 1000000 )); }
drop() { if [ "$(id -u)" = 0 ]; then sync; echo 3 > /proc/sys/vm/drop_caches; fi; }

gui_run() {  # prints "visible_ms loaded_ms"
  local t0 t1 t2 pid wid title
  t0=$(now)
  "$APP" >/dev/null 2>&1 &
  pid=$!
  wid=""
  for _ in $(seq 1 600); do
    wid=$(xdotool search --onlyvisible --pid "$pid" --name "Checkpoint Inspector" 2>/dev/null | head -1 || true)
    [ -n "$wid" ] && break
    sleep 0.01
  done
  t1=$(now)
  for _ in $(seq 1 1000); do
    title=$(xdotool getwindowname "$wid" 2>/dev/null || true)
    case "$title" in *" — Checkpoint Inspector") break ;; esac
    sleep 0.01
  done
  t2=$(now)
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  echo "$(ms "$t0" "$t1") $(ms "$t0" "$t2")"
}

echo "app: $APP"
for kind in cold warm; do
  for i in $(seq 1 "$RUNS"); do
    [ "$kind" = cold ] && drop
    t0=$(now); "$APP" --version >/dev/null; t1=$(now)
    [ "$kind" = cold ] && drop
    t2=$(now); "$APP" verify "$SAMPLES/sample.payload.json" "$SAMPLES/sample.descriptor.json" >/dev/null; t3=$(now)
    [ "$kind" = cold ] && drop
    read -r vis loaded < <(gui_run)
    echo "$kind run $i: --version $(ms "$t0" "$t1") ms, verify $(ms "$t2" "$t3") ms, window visible $vis ms, sample verified in window $loaded ms"
  done
done
