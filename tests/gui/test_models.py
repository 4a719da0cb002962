"""Every item model passes Qt's QAbstractItemModelTester, fully expanded, on real documents."""

import pytest

pytest.importorskip("PySide6")

from PySide6.QtCore import QModelIndex, Qt  # noqa: E402

from inspector.checkpoint import Verdict, verify  # noqa: E402
from inspector.session.folderscan import FolderRow  # noqa: E402
from inspector.checkpoint.jsontext.lazyjson import build_index  # noqa: E402
from inspector.gui.models.digests import DigestsModel  # noqa: E402
from inspector.gui.models.findings import FindingsModel  # noqa: E402
from inspector.gui.models.folder import FolderModel  # noqa: E402
from inspector.gui.models.json_tree import JsonTreeModel  # noqa: E402
from inspector.gui.roles import LocationRole, PointerRole, SpanRole  # noqa: E402
from tests.conftest import CASES, GOLDEN  # noqa: E402

DOCS = [GOLDEN / "payload-with-resume.json", GOLDEN / "descriptor-with-resume.json",
        CASES / "02-valid.payload.json", CASES / "28-p-pretty.payload.json",
        CASES / "06-valid-descriptor-pretty.descriptor.json"]


def _fetch_all(model, parent=QModelIndex()):
    while model.canFetchMore(parent):
        model.fetchMore(parent)
    for r in range(model.rowCount(parent)):
        _fetch_all(model, model.index(r, 0, parent))


@pytest.mark.parametrize("path", DOCS, ids=lambda p: p.name)
@pytest.mark.parametrize("filt", [None, "snapshot", "resume"])
def test_json_tree_model_passes_model_tester(qapp, qtmodeltester, path, filt):
    data = path.read_bytes()
    source = "descriptor" if "descriptor" in path.name else "payload"
    kw = {"snapshot": {"exclude": {"logical_resume"}}, "resume": {"include": {"logical_resume"}}, None: {}}[filt]
    model = JsonTreeModel(source, **kw)
    model.set_document(data, build_index(data, big=256), editable=True)
    _fetch_all(model)
    # Qt's own QAbstractItemModelTester (C++). pytest-qt's pure-Python tester also passes on
    # this model but leaves PySide 6.12 with a refcount error at interpreter exit, so it is
    # not used here.
    qtmodeltester.check(model)
    has_resume = b'"logical_resume"' in data
    assert model.rowCount() == (int(has_resume) if filt == "resume" else model.rowCount() or -1)


def test_json_tree_rows_know_exact_spans_and_pointers(qapp):
    data = (CASES / "02-valid.payload.json").read_bytes()
    model = JsonTreeModel("payload", exclude={"logical_resume"})
    model.set_document(data, build_index(data))
    idx = model.index_for_pointer("/snapshot/session/messages/1/content/1/input/max")
    assert idx.isValid()
    s, e = model.data(idx, SpanRole)
    assert data[s:e] == b"18446744073709551615"
    assert model.data(idx.siblingAtColumn(1)) == "18446744073709551615"
    loc = model.data(idx, LocationRole)
    assert (loc.source, loc.pointer, loc.span) == ("payload", "/snapshot/session/messages/1/content/1/input/max", (s, e))
    # bytes -> row: the deepest row containing an offset
    back = model.index_for_offset(s + 3)
    assert model.data(back, PointerRole) == "/snapshot/session/messages/1/content/1/input/max"
    # message rows are summarised with role, blocks and tool pairing
    msg = model.index_for_pointer("/snapshot/session/messages/1")
    assert model.data(msg.siblingAtColumn(1)).startswith("assistant · text “")
    use = model.index_for_pointer("/snapshot/session/messages/1/content/1")
    assert model.data(use.siblingAtColumn(1)) == "tool_use search (id toolu_00_5ce74215) → result in message [2] (ok)"
    # timestamps as dates, with the raw number
    ts = model.index_for_pointer("/snapshot/session/created_at")
    assert "UTC" in model.data(ts.siblingAtColumn(1)) and "(" in model.data(ts.siblingAtColumn(1))


def test_run_record_marks_resume_source(qapp):
    data = (GOLDEN / "payload-with-resume.json").read_bytes()
    model = JsonTreeModel("payload", exclude={"logical_resume"})
    model.set_document(data, build_index(data))
    run = model.index_for_pointer("/snapshot/run_records/0")
    assert model.data(run.siblingAtColumn(1)) == "run source-run · executing · 0 events · ⟲ RESUME SOURCE"
    ts = model.index_for_pointer("/snapshot/session/created_at")
    assert model.data(ts.siblingAtColumn(1)) == "2023-11-14 22:13:20 UTC  (1700000000)"


def test_edit_emits_request_and_never_changes_the_model(qapp):
    data = (GOLDEN / "payload-with-resume.json").read_bytes()
    model = JsonTreeModel("payload", exclude={"logical_resume"})
    model.set_document(data, build_index(data), editable=True)
    idx = model.index_for_pointer("/snapshot/session/config/name").siblingAtColumn(1)
    assert model.flags(idx) & Qt.ItemFlag.ItemIsEditable
    got = []
    model.editRequested.connect(lambda *a: got.append(a))
    assert model.setData(idx, "renamed")
    span = model.data(idx, SpanRole)
    assert got == [("payload", "/snapshot/session/config/name", span, "string", "renamed")]
    assert model.document is data
    ro = JsonTreeModel("payload")
    ro.set_document(data, build_index(data), editable=False)
    assert not ro.flags(ro.index_for_pointer("/schema").siblingAtColumn(1)) & Qt.ItemFlag.ItemIsEditable


def _report(name):
    return verify((CASES / f"{name}.payload.json").read_bytes(), (CASES / f"{name}.descriptor.json").read_bytes())


@pytest.mark.parametrize("case", ["01-valid", "25-p-flip-byte", "44-p-f32-08", "21-d-missing-field"])
def test_findings_and_digest_models_pass_model_tester(qapp, qtmodeltester, case):
    report = _report(case)
    fm = FindingsModel()
    fm.set_report(report)
    qtmodeltester.check(fm, force_py=True)
    dm = DigestsModel()
    dm.set_report(report)
    qtmodeltester.check(dm, force_py=True)
    assert dm.rowCount() == len(report.digests)


def test_findings_model_root_cause_first_and_consequences_labelled(qapp):
    report = _report("25-p-flip-byte")
    fm = FindingsModel()
    fm.set_report(report)
    first_group = fm.index(0, 0)
    assert fm.data(first_group) == "Root cause"
    rc = fm.index(0, 0, first_group)
    assert fm.data(rc.siblingAtColumn(1)) == "X-BYTES"
    assert fm.data(rc) == "FAIL · root cause"
    fails = [fm.data(i.siblingAtColumn(1)) for i in fm.failure_indexes()]
    assert fails[0] == "X-BYTES" and set(fails[1:]) == {f.rule.id for f in report.failed()} - {"X-BYTES"}
    cons = fm.index_for_rule(fails[1])
    assert fm.data(cons) == "FAIL · consequence"
    groups = [fm.data(fm.index(r, 0)).split(" — ")[0] for r in range(fm.rowCount())]
    assert groups == ["Root cause", "Descriptor self-validation (D)", "Content and payload (P)",
                      "Snapshot invariants (S)", "Resume boundary / loop checkpoint (L)", "Cross-binding and drift (X)"]
    assert fm.data(fm.index(5, 0)) == "Cross-binding and drift (X) — 3 FAIL · 1 PASS"
    assert sum(fm.rowCount(fm.index(r, 0)) for r in range(1, fm.rowCount())) == len(report.findings)


def test_folder_model_passes_model_tester(qapp, qtmodeltester):
    m = FolderModel()
    m.reset("/x")
    m.add_row(FolderRow("/x/p.json", "/x/d.json", True, True, None, "VERIFIED"))
    m.add_row(FolderRow("/x/q.json", None, False, False, "P-PARSE", "FAIL P-PARSE: ..."))
    qtmodeltester.check(m, force_py=True)
    from inspector.gui.roles import VerdictRole
    assert [m.data(m.index(r, 0), VerdictRole) for r in range(2)] == [Verdict.PASS, Verdict.FAIL]
    assert m.data(m.index(1, 1)) == "— (missing)"
    assert m.data(m.index(0, 2)) == "VERIFIED"


def test_a_large_container_with_one_child_shows_its_count_without_a_scan(qapp):
    """The index does not record a large container of one child (``SpanIndex.big``): its row still says
    "1 items" (read from its span, ``lone_child``), not "?" (what the row said before it was opened)."""
    deep = b"[" * 2000 + b'"x"' + b"]" * 2000  # deeper than orjson reads: the count comes from the index
    data = b'{"a_unknown":' + deep + b',"b":{"only":[' + b"0," * 200 + b"0]}}"
    model = JsonTreeModel("payload")
    index = build_index(data, big=256)
    # the root and the 201 numbers; "a_unknown" (one child) and "b" (one member) are read from their spans
    assert list(index) == [0, data.index(b"[0,")]
    model.set_document(data, index)
    rows = {model.data(model.index(r, 0)): model.data(model.index(r, 1)) for r in range(model.rowCount())}
    assert rows == {"a_unknown": "[1 items]", "b": "{1 keys}"}
