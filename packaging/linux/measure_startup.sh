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

gui_run() {  # prints "visible_ms loaded_ms" ("timeout" after 30 s)
  local t0 t1 t2 pid wid="" title="" vis=timeout loaded=timeout
  t0=$(now)
  "$APP" >/dev/null 2>&1 &
  pid=$!
  while [ $(( ($(now) - t0) / 1000000 )) -lt 30000 ]; do
    wid=$(xdotool search --onlyvisible --pid "$pid" --name "Checkpoint Inspector" 2>/dev/null | head -1 || true)
    [ -n "$wid" ] && { t1=$(now); vis=$(ms "$t0" "$t1"); break; }
    sleep 0.01
  done
  while [ -n "$wid" ] && [ $(( ($(now) - t0) / 1000000 )) -lt 30000 ]; do
    title=$(xdotool getwindowname "$wid" 2>/dev/null || true)
    case "$title" in *" — Checkpoint Inspector") t2=$(now); loaded=$(ms "$t0" "$t2"); break ;; esac
    sleep 0.01
  done
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  echo "$vis $loaded"
}

median() { tr ' ' '\n' | grep -v '^$' | sort -n | awk '{a[NR]=$1} END {if (NR) print a[int((NR+1)/2)]; else print "-"}'; }

echo "app: $APP"
[ "$(id -u)" = 0 ] || echo "(not root: the page cache cannot be dropped, 'cold' runs are warm)"
for kind in cold warm; do
  V="" Y="" W="" L=""
  for i in $(seq 1 "$RUNS"); do
    [ "$kind" = cold ] && drop
    t0=$(now); "$APP" --version >/dev/null; t1=$(now)
    [ "$kind" = cold ] && drop
    t2=$(now); "$APP" verify "$SAMPLES/sample.payload.json" "$SAMPLES/sample.descriptor.json" >/dev/null; t3=$(now)
    [ "$kind" = cold ] && drop
    read -r vis loaded < <(gui_run)
    echo "$kind run $i: --version $(ms "$t0" "$t1") ms, verify $(ms "$t2" "$t3") ms, window visible $vis ms, sample verified in window $loaded ms"
    V="$V $(ms "$t0" "$t1")"; Y="$Y $(ms "$t2" "$t3")"; W="$W $vis"; L="$L $loaded"
  done
  echo "$kind median of $RUNS: --version $(echo "$V" | median) ms, verify $(echo "$Y" | median) ms," \
       "window visible $(echo "$W" | median) ms, sample verified in window $(echo "$L" | median) ms"
done
