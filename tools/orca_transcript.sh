#!/bin/sh
# What Orca 43.1 (the screen reader Debian 12 ships) says while a user works the window: Xvfb, a private D-Bus
# session and the AT-SPI bus, Orca with its speech logged (speech itself off: the log keeps every utterance), the
# window on the golden pair, then key presses with xdotool and second starts that hand files to the window.
# Needs (Debian) orca at-spi2-core dbus-x11 xvfb xdotool. Prints "=== step" lines and Orca's utterances.
#   tools/orca_transcript.sh [APP_PYTHON] > /tmp/orca_transcript.txt
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
py=${1:-"$here/.venv/bin/python"}
if [ -z "${ORCA_TRANSCRIPT_INNER:-}" ]; then
    ORCA_TRANSCRIPT_INNER=1 exec xvfb-run -a -s "-screen 0 1400x900x24" dbus-run-session -- sh "$0" "$py" </dev/null
fi
work=$(mktemp -d)
export QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 QT_ACCESSIBILITY=1
export XDG_CONFIG_HOME="$work/cfg" XDG_DATA_HOME="$work/data" XDG_RUNTIME_DIR="$work/rt"
mkdir -p "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_RUNTIME_DIR"; chmod 700 "$XDG_RUNTIME_DIR"
gold="$here/tests/data/fixtures/golden" cases="$here/tests/data/fixtures/cases"
mkdir -p "$work/folder"; cp "$gold/payload-with-resume.json" "$gold/descriptor-with-resume.json" "$work/folder/"
/usr/libexec/at-spi-bus-launcher --launch-immediately >/dev/null 2>&1 &
sleep 1
orca --replace -d speech --debug-file="$work/orca.debug" >/dev/null 2>&1 &
sleep 4
app() { "$py" -m inspector "$@" >>"$work/app.log" 2>&1; }
step() { printf '%s\tSTEP\t%s\n' "$(date +%H:%M:%S.%N | cut -c1-15)" "$1" >>"$work/steps"; }
step "the window opens on the golden pair (a VERIFIED checkpoint)"
app "$gold/payload-with-resume.json" "$gold/descriptor-with-resume.json" &
window=$!
sleep 8
step "a second start hands a second VERIFIED pair to the window"
app "$cases/01-valid.payload.json" "$cases/01-valid.descriptor.json"; sleep 4
step "a second start hands a broken pair (one byte changed) to the window"
app "$cases/25-p-flip-byte.payload.json" "$cases/25-p-flip-byte.descriptor.json"; sleep 4
step "F8 (next failure)"
xdotool key F8; sleep 2
step "Ctrl+F8 (root cause)"
xdotool key ctrl+F8; sleep 2
step "Ctrl+Shift+T (Copy for ticket)"
xdotool key ctrl+shift+t; sleep 3
step "Ctrl+F, type session, Enter"
xdotool key ctrl+f; sleep 1; xdotool type session; sleep 0.5; xdotool key Return; sleep 2
step "Esc (close the find bar: the focus returns to the tree)"
xdotool key Escape; sleep 1.5
step "Down, Left, Right (to the snapshot row: collapse it, expand it)"
xdotool key Down; sleep 1.5; xdotool key Left; sleep 1.5; xdotool key Right; sleep 1.5
step "a second start hands a folder to the window (a folder scan)"
app "$work/folder" & sleep 5
kill "$window" 2>/dev/null; pkill -f "$py -m inspector" 2>/dev/null; sleep 1; pkill orca 2>/dev/null
# the steps and Orca's utterances in time order (key echoes left out)
{ cat "$work/steps"; grep "SPEECH OUTPUT:" "$work/orca.debug" | grep -v "' {'established" | \
    sed "s/^\([0-9:.]*\) - SPEECH OUTPUT: '\(.*\)'{'established.*/\1\tSAY\t\2/"; } | sort | \
    awk -F'\t' '{ if ($2 == "STEP") print "\n== " $3; else print "   Orca: " $3 }'
