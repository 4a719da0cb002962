"""One escaping for every label: a text from a file reaches no view, tooltip, header, tab or title with a
character that would not show as itself (bidirectional overrides and isolates, zero-width characters, C0
controls): a run id ``run-1\u202etxt.exe`` must never be drawn as ``run-1exe.txt``. Every string value a
checkpoint holds where an id, a name or a message sits is given such characters here (the scenario of a live
export, FORMAT.md 4.17), the file name too; then every item model of the window is read for every role a
view shows, every widget's title, tooltip, text and accessible name, and every string the window's own
painting draws (the timeline, the Resume panes), after a user has visited each tab."""

from __future__ import annotations

import re

import orjson
import pytest
from PySide6.QtCore import QAbstractItemModel, QModelIndex, Qt
from PySide6.QtGui import QPainter
from PySide6.QtTest import QTest
from PySide6.QtWidgets import (QAbstractButton, QApplication, QLabel, QPlainTextEdit, QTabBar, QTextEdit,
                               QWidget)

from inspector.checkpoint import build_descriptor, decode, encode
from tests.conftest import SCENARIOS
from .conftest import GOLDEN_D, GOLDEN_P, go_to, open_and_wait

SCENARIO = SCENARIOS / "01-live-export-first-pass.payload.json"
#: What a spoofer puts in an id: a right-to-left override (``txt.exe`` drawn ``exe.txt``), a zero-width space,
#: a left-to-right isolate and a pop directional formatting (format characters, which ids may hold).
SPOOF = "\u202etxt.exe\u200b\u2066\u202c"
#: ... and in a message, a tool's output or a name: ESC and BEL too (ids may not hold controls: DS-SESSION-ID).
TEXT_SPOOF = SPOOF + "\x1b[31m\x07"
_KEYS = {"id", "session_id", "tool_use_id", "run_id", "tool", "rule", "principal", "tenant_id", "dependencies",
         "tool_names", "workspace"}
_TEXT_KEYS = {"name", "content", "text", "prompt", "command", "output", "success_criteria"}
#: What no label may hold: C0 controls but tab and newline (our own multi-line tooltips), DEL, C1, the
#: bidirectional embeddings, overrides, isolates and marks, the zero-width characters, the BOM.
HIDDEN = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u202a-\u202e\u2060-\u2069\ufeff]")


def _spoofed(value, key=None):
    stack = [(value, key)]
    root = value
    while stack:  # (iterative: no recursion per nesting level)
        v, k = stack.pop()
        if isinstance(v, dict):
            for kk, vv in v.items():
                if isinstance(vv, str) and kk in _KEYS | _TEXT_KEYS:
                    v[kk] = vv + (SPOOF if kk in _KEYS else TEXT_SPOOF)
                elif isinstance(vv, list) and kk in _KEYS:
                    v[kk] = [x + SPOOF if isinstance(x, str) else x for x in vv]
                    stack.append((v[kk], kk))
                else:
                    stack.append((vv, kk))
        elif isinstance(v, list):
            stack.extend((x, k) for x in v)
    return root


@pytest.fixture
def spoofed_pair(tmp_path):
    payload = encode(_spoofed(orjson.loads(SCENARIO.read_bytes())))
    descriptor = build_descriptor(decode(payload), payload)
    p = tmp_path / "run\u202egnp.payload.json"
    d = tmp_path / "run\u202egnp.descriptor.json"
    p.write_bytes(payload)
    d.write_bytes(encode(descriptor))
    return p, d


def _columns(model: QAbstractItemModel, parent: QModelIndex) -> int:
    try:
        return model.columnCount(parent)
    except TypeError:  # (a list model: one column, its columnCount not callable from Python)
        return 1


def _rows(model: QAbstractItemModel, parent: QModelIndex) -> int:
    try:
        return model.rowCount(parent)
    except TypeError:
        return 0 if parent.isValid() else model.rowCount()


def _has_children(model: QAbstractItemModel, index: QModelIndex) -> bool:
    try:
        return model.hasChildren(index)
    except TypeError:  # (a list or table model: no children)
        return False


def _model_texts(model: QAbstractItemModel, limit: int = 20000) -> list[str]:
    roles = (Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole, Qt.ItemDataRole.AccessibleTextRole,
             Qt.ItemDataRole.StatusTipRole)
    out: list[str] = []
    for orient in (Qt.Orientation.Horizontal, Qt.Orientation.Vertical):
        n = _columns(model, QModelIndex()) if orient == Qt.Orientation.Horizontal else min(model.rowCount(QModelIndex()), 50)
        for s in range(n):
            for r in roles:
                v = model.headerData(s, orient, r)
                if isinstance(v, str):
                    out.append(v)
    stack, seen = [QModelIndex()], 0
    while stack and seen < limit:
        parent = stack.pop()
        try:
            if model.canFetchMore(parent):
                model.fetchMore(parent)
        except TypeError:  # (a list or table model)
            pass
        for row in range(min(_rows(model, parent), 500)):
            for col in range(max(_columns(model, parent), 1)):
                idx = model.index(row, col, parent)
                seen += 1
                for r in roles:
                    v = model.data(idx, r)
                    if isinstance(v, str):
                        out.append(v)
                if col == 0 and _has_children(model, idx):
                    stack.append(idx)
    return out


def _widget_texts(window) -> list[str]:
    out = [window.windowTitle()]
    for w in window.findChildren(QWidget):
        out += [w.toolTip(), w.accessibleName(), w.accessibleDescription(), w.statusTip(), w.windowTitle()]
        if isinstance(w, (QLabel, QAbstractButton)):
            out.append(w.text())
        if isinstance(w, (QTextEdit, QPlainTextEdit)) and w.isVisible():
            out.append(w.toPlainText())
        if isinstance(w, QTabBar):
            for i in range(w.count()):
                out += [w.tabText(i), w.tabToolTip(i)]
    return out


@pytest.fixture
def drawn(monkeypatch):
    """Every string the window's own Python painting draws (QPainter.drawText), as drawn."""
    texts: list[str] = []
    real = QPainter.drawText

    def draw_text(self, *args):
        texts.extend(a for a in args if isinstance(a, str))
        return real(self, *args)

    monkeypatch.setattr(QPainter, "drawText", draw_text)
    return texts


def _hidden_in(texts: list[str]) -> list[str]:
    return sorted({t for t in texts if HIDDEN.search(t)})


def _all_texts(window, drawn) -> list[str]:
    window.grab()  # (paints what is shown now)
    texts = _widget_texts(window) + drawn
    for model in {v.model() for v in window.findChildren(QWidget) if hasattr(v, "model") and callable(v.model)}:
        if isinstance(model, QAbstractItemModel):
            texts += _model_texts(model)
    return texts


def _keys(qtbot, window, key, modifier=Qt.KeyboardModifier.NoModifier, times=1):
    for _ in range(times):
        QTest.keyClick(QApplication.focusWidget() or window, key, modifier)
        QApplication.processEvents()


def test_no_label_of_the_window_holds_a_character_that_does_not_show(qtbot, window, spoofed_pair, drawn):
    p, d = spoofed_pair
    window.resize(1400, 900)
    report = open_and_wait(qtbot, window, [p, d])
    assert report.verified  # (the spoofed checkpoint is a good one: its descriptor binds it)
    texts = _all_texts(window, drawn)
    alt = Qt.KeyboardModifier.AltModifier
    # the user walks the Resume panes with the keyboard: the timeline's events, the transcript's messages,
    # the lint and the Events table, each row's words read (what a screen reader is told, the message pane)
    for key, walk in ((Qt.Key.Key_7, Qt.Key.Key_Right), (Qt.Key.Key_8, Qt.Key.Key_Down),
                      (Qt.Key.Key_9, Qt.Key.Key_Down), (Qt.Key.Key_0, Qt.Key.Key_Down)):
        _keys(qtbot, window, key, alt)
        for _ in range(6):
            _keys(qtbot, window, walk)
            QTest.qWait(5)
            texts += _all_texts(window, drawn)
    # and opens the folder: the folder table and the Sessions view
    with qtbot.waitSignal(window.folderScanned, timeout=30000):
        window.open_paths([str(p.parent)])
    texts += _all_texts(window, drawn)
    shown = set(texts)
    # (the walk reaches the ids, the messages, the events' summaries, the file names and the sessions)
    words = ("scn-live-1\\u202etxt.exe", "run-1\\u202etxt.exe", "Working on it.\\u202e", "bash\\u202e",
             "run\\u202egnp.payload.json", "toolu_1\\u202e", "\\x1b[31m\\x07")
    assert [w for w in words if not any(w in t for t in shown)] == []
    leaks = _hidden_in(texts)
    assert [ascii(t)[:160] for t in leaks] == []


def test_the_verdicts_of_a_failing_pair_quote_its_values_made_visible(qtbot, window, spoofed_pair, drawn):
    """A descriptor that states another session id (with an override in it) fails: the Verdicts, Digests and
    folder views quote what it states, made visible."""
    p, d = spoofed_pair
    desc = orjson.loads(d.read_bytes())
    desc["snapshot"]["session_id"] = "other\u202elmth.exe"
    desc["content_digest"] = "sha256:\u202e" + "0" * 63
    d.write_bytes(encode(desc))
    report = open_and_wait(qtbot, window, [p, d])
    assert not report.verified
    # the user goes to the Verdicts (Alt+4) and walks them, then the Digests (Alt+5)
    texts = _all_texts(window, drawn)
    for key in (Qt.Key.Key_4, Qt.Key.Key_5):
        _keys(qtbot, window, key, Qt.KeyboardModifier.AltModifier)
        for _ in range(12):
            _keys(qtbot, window, Qt.Key.Key_Down)
            texts += _all_texts(window, drawn)
    assert any("other\\u202elmth.exe" in t for t in texts)  # (the stated id is quoted, made visible)
    assert any("sha256:\\u202e000" in t for t in texts)
    leaks = _hidden_in(texts)
    assert [ascii(t)[:160] for t in leaks] == []


def test_an_id_that_mixes_look_alike_scripts_is_flagged_in_the_tree(qtbot, window, tmp_path):
    """``session-checkpoint-1`` with a Cyrillic ``е`` looks like the real id: the tree says it mixes scripts, in
    the value the user goes to (Ctrl+G) and in its tooltip; a plain id is not flagged."""
    g = GOLDEN_P.read_bytes()
    p = tmp_path / "lookalike.payload.json"
    p.write_bytes(g.replace(b'"id":"session-checkpoint-1"', '"id":"s\u0435ssion-checkpoint-1"'.encode()))
    assert p.read_bytes() != g
    open_and_wait(qtbot, window, [p, GOLDEN_D])
    idx = go_to(qtbot, window, "/snapshot/session/id")
    assert idx.siblingAtColumn(1).data() == "“s\u0435ssion-checkpoint-1”  ⚠ mixes Cyrillic and Latin"
    assert "\n⚠ this id mixes Cyrillic and Latin letters: it can look like another id\n" in idx.data(
        Qt.ItemDataRole.ToolTipRole)
    plain = go_to(qtbot, window, "/snapshot/run_records/0/snapshot/id")
    assert plain.siblingAtColumn(1).data() == "“source-run”"


def test_the_control_pictures_used_are_those_the_machines_fonts_have():
    """fontconfig (not Qt) says which fonts hold ␛ (U+241B) and ␊ (U+240A); the window uses a picture only when
    its fonts draw it (Debian's stock fonts draw none)."""
    import shutil
    import subprocess

    from inspector.gui import fonts

    if shutil.which("fc-list") is None:
        pytest.skip("no fontconfig here")
    used = fonts.control_pictures()
    for code in (0x1B, 0x0A):
        held = subprocess.run(["fc-list", f":charset={0x2400 + code:x}", "family"], capture_output=True,
                              text=True, timeout=30).stdout.strip()
        if not held:
            assert code not in used
    assert used <= set(range(0x20)) | {0x7F}
