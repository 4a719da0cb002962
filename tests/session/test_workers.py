"""Worker processes (inspector/session/workers.py): errors cross as their type only.

Moved from the round-named test files (issue 24: tests mirror the code), assertions unchanged."""

import pytest
pytest.importorskip("PySide6")
from inspector.session import engine
from inspector.gui.jobs import Job, internal_error_text  # noqa: E402


SECRET = "sk-live-SECRET-FROM-PAYLOAD"


def _explode(conn):
    raise ValueError(SECRET)


def test_worker_process_error_sends_the_type_only():
    task = engine.ChildTask(_explode, ())
    task.start()
    try:
        while not task.done:
            task.pump(0.05)
    finally:
        task.terminate()
    with pytest.raises(engine.WorkerError) as info:
        task.result()
    assert info.value.error_type == "ValueError"
    assert SECRET not in str(info.value)
    job = Job(lambda ctx: task.result(), name="verifying")
    msgs = []
    job.signals.failed.connect(msgs.append)
    job.run()
    assert msgs == [internal_error_text("ValueError", "verifying")]
