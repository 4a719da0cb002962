"""Background jobs and their errors (inspector/gui/jobs.py).

Moved from the round-named test files (tests mirror the code), assertions unchanged."""

import pytest
pytest.importorskip("PySide6")
from inspector.gui.jobs import Job, internal_error_text  # noqa: E402


SECRET = "sk-live-SECRET-FROM-PAYLOAD"


def test_job_internal_error_shows_type_and_job_not_text(qtbot):
    def boom(ctx):
        raise KeyError(SECRET)
    job = Job(boom, name="opening the files")
    with qtbot.waitSignal(job.signals.failed, timeout=5000) as blocker:
        job.run()
    msg = blocker.args[0]
    assert msg == internal_error_text("KeyError", "opening the files")
    assert msg.startswith("Internal error (KeyError) while opening the files. This is a bug in the inspector; "
                          "please report it")
    assert SECRET not in msg
