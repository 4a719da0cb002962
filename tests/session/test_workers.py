"""Worker processes (inspector/session/workers.py): errors cross as their type only, and every message and
result is one of the protocol's classes, sent by a real spawned process."""

import os

import pytest

from inspector.checkpoint.report import Stage
from inspector.session import engine, workers
from inspector.checkpoint.jsontext.lazyjson import BIG, build_index
from tests.conftest import GOLDEN

GOLDEN_P = GOLDEN / "payload-with-resume.json"
GOLDEN_D = GOLDEN / "descriptor-with-resume.json"


SECRET = "sk-live-SECRET-FROM-PAYLOAD"


def _explode(conn):
    raise ValueError(SECRET)


def _run(task: workers.ChildTask) -> workers.ChildTask:
    task.start()
    try:
        while not task.done:
            task.pump(0.05)
    finally:
        task.terminate()
    return task


def test_worker_process_error_sends_the_type_only():
    pytest.importorskip("PySide6")
    from inspector.gui.jobs import Job, internal_error_text

    task = _run(engine.ChildTask(_explode, ()))
    with pytest.raises(engine.WorkerError) as info:
        task.result()
    assert info.value.error_type == "ValueError"
    assert SECRET not in str(info.value)
    job = Job(lambda ctx: task.result(), name="verifying")
    msgs = []
    job.signals.failed.connect(msgs.append)
    job.run()
    assert msgs == [internal_error_text("ValueError", "verifying")]


def test_the_window_s_verifier_sends_typed_messages_from_its_process():
    st = os.stat(GOLDEN_P)
    task = workers.ChildTask(workers.child_analyse, (str(GOLDEN_P), GOLDEN_D.read_bytes(), st.st_size, st.st_mtime_ns,
                                                     None, BIG), nice=0)
    _run(task)
    stages = task.stages()
    assert [type(x) for x in stages] == [Stage, Stage]  # the bytes stage (its own digest), the structure stage
    early = task.early
    assert isinstance(early, workers.ReportAhead) and early.report.verified
    assert early.report.canonical_bytes is None and early.report.views is None  # the views follow
    assert early.seen == (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)
    assert early.index == build_index(GOLDEN_P.read_bytes(), big=BIG)  # canonical: the index came with the report
    after = task.result()
    assert isinstance(after, workers.AfterReport)
    assert after.index is None and after.seen == early.seen and after.views_error is None
    timeline, _transcript = after.views.unpack()
    assert (timeline.source_run, timeline.boundary_turn, len(timeline.lanes)) == ("source-run", 3, 1)


def test_a_folder_scan_s_verifier_returns_verdicts_and_an_indexer_its_index():
    st = os.stat(GOLDEN_P)
    scan = _run(workers.ChildTask(workers.child_analyse, (str(GOLDEN_P), GOLDEN_D.read_bytes(), st.st_size, None,
                                                          None, None)))
    assert scan.early is None and scan.stages() == []  # a folder scan is sent nothing ahead
    verdicts = scan.result()
    assert isinstance(verdicts, workers.Verdicts) and verdicts.report.verified and verdicts.report.views is None
    indexer = _run(workers.ChildTask(workers.child_index, (str(GOLDEN_P), 64)))
    indexed = indexer.result()
    assert isinstance(indexed, workers.Indexed)
    assert indexed.index == build_index(GOLDEN_P.read_bytes(), big=64) and len(indexed.index) > 5


def test_the_warm_worker_says_it_is_ready_then_runs_the_job_it_is_sent():
    workers.prewarm()
    assert workers.warm_ready(60.0)  # its Ready arrived
    st = os.stat(GOLDEN_P)
    task = _run(workers.ChildTask(workers.child_analyse, (str(GOLDEN_P), None, st.st_size, None, None, None), warm=True))
    assert task.was_warm
    assert isinstance(task.result(), workers.Verdicts) and task.result().report.root_cause is None
    assert workers.waiting_process() is None  # taken: the next open starts another
