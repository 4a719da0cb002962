"""Screenshots of the comparison and canonical diff windows (issue 10).

Run under a real X server: ``xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python
tools/compare_screenshots.py OUT_DIR``. Makes two checkpoints of the golden session one and three
tool rounds later (with a message inserted at the front of the second), compares them with the
change of ``turn`` selected, and shows a pretty-printed payload and the f32 case in the canonical
diff view.
"""

from __future__ import annotations

import copy
import json
import os
import sys
from pathlib import Path

from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main(out: str) -> int:
    import orjson

    from tests.checkpoint.analysis.compare_helpers import add_tool_rounds, export

    os.makedirs(out, exist_ok=True)
    app = QApplication.instance() or QApplication(sys.argv)
    from inspector.gui.window import MainWindow

    golden = ROOT / "tests" / "data" / "fixtures" / "golden" / "payload-with-resume.json"
    g = orjson.loads(golden.read_bytes())
    a, b = add_tool_rounds(g, 1), copy.deepcopy(add_tool_rounds(g, 3))
    b["snapshot"]["session"]["messages"].insert(0, {"role": "user", "content": [{"type": "text",
                                                                                 "text": "before anything"}]})
    paths = []
    for name, value in (("round-4", a), ("round-6", b)):
        p = Path(out) / f"{name}.payload.json"
        p.write_bytes(export(value)[0])
        paths.append(str(p))
    settings = QSettings(os.path.join(out, "settings.ini"), QSettings.Format.IniFormat)
    w = MainWindow(settings)
    w.show()

    def wait(signal_owner, name):
        done = []
        getattr(signal_owner, name).connect(lambda *_: done.append(1))
        while not done:
            app.processEvents()
        for _ in range(30):
            app.processEvents()

    opened = []
    w.comparer.opened.connect(opened.append)
    w.open_paths(paths)
    win = opened[-1]
    win.resize(1280, 820)
    wait(win, "ready")
    rows = win.change_model.rows
    turn = next(i for i, r in enumerate(rows) if r.a_pointer == "/logical_resume/turn")
    win.changes.setCurrentIndex(win.change_model.index(turn, 0))
    for _ in range(30):
        app.processEvents()
    win.grab().save(os.path.join(out, "compare-tool-rounds.png"))

    pretty = Path(out) / "pretty.payload.json"
    pretty.write_text(json.dumps(json.loads(golden.read_bytes()), indent=2))
    f32 = ROOT / "tests" / "data" / "fixtures" / "cases" / "44-p-f32-08.payload.json"
    for name, path in (("canonical-diff-pretty", pretty), ("canonical-diff-f32", f32)):
        w.open_paths([str(path)])
        wait(w, "analysisReady")
        c = w.comparer.canonical_diff()
        c.resize(1280, 640)
        wait(c, "ready")
        c.grab().save(os.path.join(out, f"{name}.png"))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "/tmp/compare-shots"))
