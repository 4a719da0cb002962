#!/bin/sh
# What a screen reader sees of the main window (issue 25): tools/atspi_dump.py under Xvfb, a private D-Bus
# session and the AT-SPI bus. Needs (Debian) at-spi2-core python3-pyatspi gir1.2-atspi-2.0 dbus-x11 xvfb xdotool
# imagemagick. Prints the dump on stdout; the screen at the end goes to /tmp/atspi_dump.png.
#   tools/atspi_dump.sh [APP_PYTHON] > /tmp/atspi_dump.txt
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
py=${1:-"$here/.venv/bin/python"}
if [ -z "${ATSPI_DUMP_INNER:-}" ]; then
    ATSPI_DUMP_INNER=1 exec xvfb-run -a -s "-screen 0 1400x900x24" dbus-run-session -- "$0" "$py"
fi
gold="$here/tests/data/fixtures/golden"
work=$(mktemp -d)
# the broken pair: a checkpoint with events in its runs, one byte of its payload changed (a letter of a text)
rich="$here/tests/data/fixtures/cases-pinned/001-valid-rich-resume"
cp "$rich.descriptor.json" "$work/broken.descriptor.json"
sed '0,/"text":"\(.\)/s//"text":"#/' "$rich.payload.json" > "$work/broken.payload.json"
cmp -s "$rich.payload.json" "$work/broken.payload.json" && { echo "no byte changed" >&2; exit 1; }
/usr/libexec/at-spi-bus-launcher --launch-immediately >/dev/null 2>&1 &
bus=$!
sleep 1
export QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 QT_ACCESSIBILITY=1 PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}"
"$py" "$here/tools/atspi_dump.py" app "$work/trigger" "$gold/payload-with-resume.json" \
    "$gold/descriptor-with-resume.json" 2>"$work/app.log" &
app=$!
/usr/bin/python3 "$here/tools/atspi_dump.py" dump "$app" "$work/trigger" "$work/broken.payload.json" \
    "$work/broken.descriptor.json" || true
kill "$app" "$bus" 2>/dev/null || true
wait "$app" 2>/dev/null || true
echo "== focus changes the application saw (QApplication.focusChanged) =="
grep "^focus: " "$work/app.log" || true
echo "== the application's stderr =="
grep -v "propagateSizeHints\|^focus: \|QAccessibleTable::cellAt: invalid index" "$work/app.log" | sort | uniq -c | tail -20 || true
rm -rf "$work"
