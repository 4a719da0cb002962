"""What a screen reader sees of the main window (issue 25 item 6): the AT-SPI tree, the events, the Tab order.

Two halves, run by ``tools/atspi_dump.sh`` under Xvfb and a private D-Bus session with the AT-SPI bus:

* ``atspi_dump.py app TRIGGER PAYLOAD DESCRIPTOR`` (the app's Python, with PySide6): the main window at
  1400x900 on the pair, throw-away settings; when the file ``TRIGGER`` appears it opens the two paths written
  in it (one a line), so a second verdict can be watched in the same session.
* ``atspi_dump.py dump PID TRIGGER PAYLOAD2 DESCRIPTOR2`` (the system Python, with ``pyatspi``): finds the
  application of process ``PID`` on the accessibility bus, prints its tree (role, name, description, states,
  the Text interface's caret, length and text at the caret, the Value interface's value), listens to
  announcement, focus, caret, description, name and value events, writes ``TRIGGER`` (the verdict changes),
  then presses keys with ``xdotool`` (F6, Tab, arrows) and prints which control has the focus after each.

The output is plain text on stdout (``tools/atspi_dump.sh > /tmp/atspi_dump.txt``).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

WINDOW_TITLE = "Checkpoint Inspector"
TAB_PRESSES = 36  # how many Tab presses to record (the panes of the window are fewer: the order must cycle)
MAX_CHILDREN = 30  # children shown per node (tables and trees: the first cells only)
MAX_DEPTH = 40


# ---------------------------------------------------------------------------------------------------------------
# the application half (PySide6)
# ---------------------------------------------------------------------------------------------------------------
def run_app(trigger: str, paths: list[str]) -> int:
    """Show the main window on ``paths`` and open the paths listed in file ``trigger`` once it appears.

    Returns the event loop's exit code."""
    import tempfile

    from PySide6.QtCore import QSettings, QTimer

    from inspector.gui.app import create_app
    from inspector.gui.window import MainWindow

    app = create_app(sys.argv)
    ini = os.path.join(tempfile.mkdtemp(prefix="atspi-dump-"), "settings.ini")
    w = MainWindow(QSettings(ini, QSettings.Format.IniFormat))
    w.setGeometry(0, 0, 1400, 900)
    w.show()
    QTimer.singleShot(0, lambda: w.open_paths(paths))

    def poll():
        if os.path.exists(trigger):
            with open(trigger, encoding="utf-8") as f:
                more = [x for x in f.read().splitlines() if x]
            os.remove(trigger)
            w.open_paths(more)

    def focus(_old, new):
        if new is not None:
            sys.stderr.write(f"focus: {type(new).__name__} {new.objectName()!r} {new.accessibleName()!r}\n")
            sys.stderr.flush()

    app.focusChanged.connect(focus)
    timer = QTimer(w)
    timer.timeout.connect(poll)
    timer.start(200)
    return app.exec()


# ---------------------------------------------------------------------------------------------------------------
# the dumper half (pyatspi)
# ---------------------------------------------------------------------------------------------------------------
def _states(acc) -> list[str]:
    import pyatspi

    keep = {pyatspi.STATE_FOCUSABLE: "focusable", pyatspi.STATE_FOCUSED: "FOCUSED", pyatspi.STATE_SELECTED: "selected",
            pyatspi.STATE_CHECKED: "checked", pyatspi.STATE_EDITABLE: "editable", pyatspi.STATE_EXPANDED: "expanded",
            pyatspi.STATE_READ_ONLY: "read-only", pyatspi.STATE_SENSITIVE: None, pyatspi.STATE_SHOWING: None}
    st = acc.getState()
    out = [v for k, v in keep.items() if v and st.contains(k)]
    if not st.contains(pyatspi.STATE_SENSITIVE):
        out.append("insensitive")
    if not st.contains(pyatspi.STATE_SHOWING):
        out.append("hidden")
    return out


def _short(text: str, n: int = 160) -> str:
    text = text.replace("\n", "\\n")
    return text if len(text) <= n else text[:n] + f"…(+{len(text) - n})"


def describe(acc) -> str:
    """One line for accessible ``acc``: role, name, description, states, Text and Value contents."""
    import pyatspi

    line = f"[{acc.getRoleName()}] {acc.name!r}"
    if acc.description:
        line += f" desc={_short(acc.description)!r}"
    line += " {" + ", ".join(_states(acc)) + "}"
    ifaces = acc.get_interfaces()
    if "Text" in ifaces:
        try:
            t = acc.queryText()
            n = t.characterCount
            caret = t.caretOffset
            line += f" TEXT(len={n}, caret={caret}) {_short(t.getText(0, min(n, 400)))!r}"
            if 0 <= caret < n and acc.getRoleName() not in ("label", "status bar"):
                at = t.getTextAtOffset(caret, pyatspi.TEXT_BOUNDARY_LINE_START)
                line += f" line@caret={_short(at[0])!r}"
        except Exception as e:  # noqa: BLE001 - a dump reports, never stops
            line += f" TEXT-ERROR {e}"
    if "Value" in ifaces:
        try:
            v = acc.queryValue()
            line += f" VALUE={v.currentValue:g} (min {v.minimumValue:g}, max {v.maximumValue:g})"
        except Exception as e:  # noqa: BLE001
            line += f" VALUE-ERROR {e}"
    if "Table" in ifaces:
        try:
            t = acc.queryTable()
            line += f" TABLE {t.nRows}x{t.nColumns}"
        except Exception as e:  # noqa: BLE001
            line += f" TABLE-ERROR {e}"
    return line


def dump_tree(acc, out, depth: int = 0) -> None:
    """Append ``acc`` and its descendants (the first :data:`MAX_CHILDREN` of each) to ``out``."""
    try:
        out.append("  " * depth + describe(acc))
        n = acc.childCount
    except Exception as e:  # noqa: BLE001
        out.append("  " * depth + f"ERROR {e}")
        return
    if depth >= MAX_DEPTH:
        return
    if "Table" in acc.get_interfaces():  # headers, then the first rows cell by cell
        t = acc.queryTable()
        for c in range(t.nColumns if t.nRows else 0):  # (Qt warns for the header of an empty tree)
            h = t.getColumnHeader(c)
            out.append("  " * (depth + 1) + (describe(h) if h is not None else f"(no header for column {c})"))
        for r in range(min(t.nRows, 3)):
            cells = [t.getAccessibleAt(r, c) for c in range(t.nColumns)]
            out.append("  " * (depth + 1) + f"row {r}: " + " | ".join(
                f"{x.getRoleName()} {x.name!r}" if x is not None else "None" for x in cells))
        if t.nRows > 3:
            out.append("  " * (depth + 1) + f"... {t.nRows - 3} more rows")
        return
    for i in range(min(n, MAX_CHILDREN)):
        try:
            child = acc.getChildAtIndex(i)
        except Exception:  # noqa: BLE001
            continue
        if child is not None:
            dump_tree(child, out, depth + 1)
    if n > MAX_CHILDREN:
        out.append("  " * (depth + 1) + f"... {n - MAX_CHILDREN} more children")


def _path(acc) -> str:
    """``window > dock > pane`` names up to the window (for the Tab order)."""
    parts, p = [], acc
    for _ in range(6):
        try:
            p = p.parent
        except Exception:  # noqa: BLE001
            break
        if p is None or p.getRoleName() in ("frame", "application"):
            break
        if p.name:
            parts.append(p.name)
    return " < ".join(parts[:3])


def find(acc, pred, depth: int = 0):
    """The first accessible under ``acc`` (depth first, all children) for which ``pred`` holds, or ``None``."""
    try:
        if pred(acc):
            return acc
        n = acc.childCount
    except Exception:  # noqa: BLE001
        return None
    if depth > MAX_DEPTH:
        return None
    for i in range(min(n, 200)):
        try:
            r = find(acc.getChildAtIndex(i), pred, depth + 1)
        except Exception:  # noqa: BLE001
            r = None
        if r is not None:
            return r
    return None


def run_dump(pid: int, trigger: str, second: list[str]) -> int:
    """Dump the application of ``pid``, change its verdict through ``trigger``, record events and the Tab order.

    Returns 0, or 1 when the application never appeared on the bus."""
    import pyatspi
    from gi.repository import GLib

    out = print
    app = None
    for _ in range(120):
        desk = pyatspi.Registry.getDesktop(0)
        app = next((a for a in desk if a is not None and a.get_process_id() == pid), None)
        if app is not None and find(app, lambda a: a.getRoleName() == "label" and "VERIFIED" in (a.name or "")):
            break
        time.sleep(0.5)
    if app is None:
        out(f"no application of pid {pid} on the accessibility bus")
        return 1
    time.sleep(2)  # the resume panes and the events table fill after the verdict
    out(f"== application {app.name!r} (pid {pid}): the tree on the first pair ==")
    lines: list[str] = []
    dump_tree(app, lines)
    out("\n".join(lines))

    events: list[str] = []
    last_focus: list = [None]

    def on_event(ev):
        try:
            src = ev.source
            who = f"[{src.getRoleName()}] {src.name!r}"
        except Exception:  # noqa: BLE001
            who = "?"
        if ev.type.startswith("focus"):
            last_focus[0] = src
            return  # (the same as the focused state change)
        if ev.type.startswith("object:state-changed:focused"):
            if ev.detail1:
                last_focus[0] = src
            else:
                return  # (the lost-focus half is noise)
        extra = ""
        if ev.type.startswith("object:text-caret-moved"):
            extra = f" caret={ev.detail1}"
            try:
                t = src.queryText()
                extra += f" line@caret={_short(t.getTextAtOffset(ev.detail1, pyatspi.TEXT_BOUNDARY_LINE_START)[0])!r}"
            except Exception:  # noqa: BLE001
                pass
        elif ev.type.startswith("object:property-change:accessible-value") or ev.type == "object:value-changed":
            try:
                extra = f" value={src.queryValue().currentValue:g}"
            except Exception:  # noqa: BLE001
                pass
        if ev.any_data not in (None, "") and not isinstance(ev.any_data, pyatspi.Accessible):
            extra += f" data={_short(str(ev.any_data))!r}"
        elif ev.type.startswith("object:property-change:accessible-description"):
            extra += f" desc={_short(src.description)!r}"
        events.append(f"{time.monotonic():.2f} {ev.type} {who}{extra}")

    kinds = ["focus:", "object:announcement", "object:state-changed:focused", "object:text-caret-moved",
             "object:property-change:accessible-description", "object:property-change:accessible-name",
             "object:property-change:accessible-value", "object:value-changed", "object:text-changed",
             "object:active-descendant-changed"]
    pyatspi.Registry.registerEventListener(on_event, *kinds)

    wid = subprocess.run(["xdotool", "search", "--onlyvisible", "--name", WINDOW_TITLE], capture_output=True,
                         text=True, check=False, timeout=30).stdout.split()
    steps = []

    def key(*keys, wait=0.4):
        def do():
            subprocess.run(["xdotool", "key", *keys], check=False, timeout=10)
        steps.append((do, wait))

    def mark(text, wait=0.0):
        steps.append((lambda: events.append(f"-- {text}"), wait))

    def focused_now(label):
        def do():
            f = last_focus[0]
            try:
                desc = describe(f) if f is not None else "(no focus event)"
                where = _path(f) if f is not None else ""
            except Exception as e:  # noqa: BLE001
                desc, where = f"(gone: {e})", ""
            tab_order.append(f"{label}: {desc}" + (f"   in: {where}" if where else ""))
        steps.append((do, 0.0))

    tab_order: list[str] = []
    # no window manager under Xvfb: give the window the keyboard focus by hand
    if wid:
        steps.append((lambda: subprocess.run(["xdotool", "windowfocus", wid[0]], check=False, timeout=10), 0.5))
    mark("open the second pair: the verdict changes")
    def open_second():
        with open(trigger, "w", encoding="utf-8") as f:
            f.write("\n".join(second) + "\n")

    steps.append((open_second, 6.0))
    mark("focus the bytes pane (Alt+6) and move the cursor: Right, Right, Down")
    key("alt+6", wait=0.8)
    key("Right")
    key("Right")
    key("Down", wait=0.8)
    mark("focus the timeline (Alt+7) and step through events: Down (a run), Right, Right (its events)")
    key("alt+7", wait=1.0)
    key("Down", wait=0.6)
    key("Right", wait=0.6)
    key("Right", wait=0.6)
    mark("Tab order from the snapshot tree (Alt+1)")
    key("alt+1", wait=0.8)
    focused_now("start")
    for i in range(TAB_PRESSES):
        key("Tab", wait=0.5)
        focused_now(f"Tab {i + 1:2d}")
    steps.append((lambda: subprocess.run(["import", "-window", "root", "/tmp/atspi_dump.png"], check=False, timeout=30), 0.5))

    def run_steps():
        if not steps:
            pyatspi.Registry.stop()
            return False
        fn, wait = steps.pop(0)
        try:
            fn()
        except Exception as e:  # noqa: BLE001
            events.append(f"step failed: {e}")
        GLib.timeout_add(int(wait * 1000) + 50, run_steps)
        return False

    GLib.timeout_add(500, run_steps)
    pyatspi.Registry.start()

    out("\n== events (the second pair opened, then keys pressed) ==")
    out("\n".join(events))
    out("\n== Tab order (focused control after each key) ==")
    out("\n".join(tab_order))
    out("\n== the bytes view and the timeline after the keys ==")
    for name in ("Payload bytes", "Timeline of runs and events"):
        acc = find(app, lambda a, n=name: a.name == n and a.getRoleName() == "text")
        out(describe(acc) if acc is not None else f"{name}: not found")
    verdict = find(app, lambda a: a.getRoleName() == "label" and "VERIFIED" in (a.name or ""))
    out("verdict label: " + (describe(verdict) if verdict is not None else "not found"))
    return 0


if __name__ == "__main__":  # (the app half spawns worker processes: they import this module)
    if len(sys.argv) >= 3 and sys.argv[1] == "app":
        sys.exit(run_app(sys.argv[2], sys.argv[3:]))
    if len(sys.argv) >= 4 and sys.argv[1] == "dump":
        sys.exit(run_dump(int(sys.argv[2]), sys.argv[3], sys.argv[4:]))
    sys.exit(__doc__)
