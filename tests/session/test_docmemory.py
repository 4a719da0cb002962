"""DocumentMemory and SelectionHistory snapshots: the window's state per document, without Qt."""

import os

from inspector.checkpoint import Location
from inspector.session.docmemory import DocumentMemory, document_key
from inspector.session.history import SelectionHistory


def test_a_document_is_named_by_its_resolved_paths(tmp_path, monkeypatch):
    (tmp_path / "a").mkdir()
    (tmp_path / "a" / "p.json").write_text("{}")
    os.symlink(tmp_path / "a", tmp_path / "link")
    monkeypatch.chdir(tmp_path)
    real = os.path.realpath(tmp_path / "a" / "p.json")
    assert document_key(["a/p.json", None]) == document_key([str(tmp_path / "link" / "p.json")]) == (real,)
    assert document_key([]) == ()


def test_memory_is_bounded_and_gives_a_record_once():
    m = DocumentMemory(limit=2)
    m.keep(("a",), {"find": "x"})
    m.keep(("b",), {"find": "y"})
    m.keep(("a",), {"find": "z"})  # left again: the newest
    m.keep(("c",), {})
    m.keep((), {"find": "never"})
    assert len(m) == 2 and ("b",) not in m
    assert m.take(("a",)) == {"find": "z"} and m.take(("a",)) == {} and m.take(()) == {}


def test_history_snapshot_restores_entries_and_cursor():
    h = SelectionHistory(limit=3)
    for p in ("/a", "/b", "/c"):
        h.push(Location("payload", p))
    h.back()
    kept = h.snapshot()
    h.clear()
    h.push(Location("payload", "/other"))
    h.restore(kept)
    assert [e.pointer for e in h.entries] == ["/a", "/b", "/c"] and h.pos == 1
    assert h.forward().pointer == "/c"
    small = SelectionHistory(limit=2)
    small.restore(kept)  # the oldest go first, the cursor stays on its entry
    assert [e.pointer for e in small.entries] == ["/b", "/c"] and small.entries[small.pos].pointer == "/b"
    small.restore(None)
    assert small.entries == [] and small.pos == -1
