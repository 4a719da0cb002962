"""Where a staged load stands (inspector/session/staged.py): one object with explicit
states, filled by the engine's large load and read by the document and the window."""

from __future__ import annotations

import threading

import orjson

from inspector.checkpoint import STAGE_BYTES, STAGE_STRUCTURE, Stage, verify
from inspector.session import engine
from inspector.session.staged import LoadState, StagedLoad
from tests.conftest import GOLDEN

GOLDEN_P = GOLDEN / "payload-with-resume.json"
GOLDEN_D = GOLDEN / "descriptor-with-resume.json"


def _stage(name):
    return Stage(name, [], None, [], has_payload=True, has_descriptor=True)


def test_states_in_order_and_what_the_status_line_says():
    load = StagedLoad()
    assert load.state is LoadState.OPENED and not load.views_follow
    load.stage = _stage(STAGE_BYTES)
    assert load.state is LoadState.BYTES
    load.stage = _stage(STAGE_STRUCTURE)
    assert load.state is LoadState.STRUCTURE
    assert load.progress_text(3 * 1048576, 1.4) == "Verifying and reading the trees… 3 MiB, 1 s"
    load.trees_done = True
    assert load.state is LoadState.STRUCTURE  # the trees count once the views are there
    assert load.progress_text(3 * 1048576, 2.6) == "Trees ready; verifying… 3 MiB, 3 s"
    load.trees_done = False
    load.report = verify(GOLDEN_P.read_bytes(), GOLDEN_D.read_bytes())
    assert load.state is LoadState.VERDICTS and load.views_follow
    assert load.progress_text(250 * 1048576, 7.0) == "Verified; reading the trees… 250 MiB, 7 s"
    load.views_done = True
    assert load.state is LoadState.VIEWS and not load.views_follow
    load.trees_done = True
    assert load.state is LoadState.TREES
    assert load.progress_text(250 * 1048576, 8.0) == "Verified; reading the timeline… 250 MiB, 8 s"


def test_a_small_load_is_complete_and_a_large_one_passes_every_state_in_order(tmp_path, monkeypatch):
    small = engine.Analysis(None, None, verify(GOLDEN_P.read_bytes(), GOLDEN_D.read_bytes()))
    assert small.load.state is LoadState.TREES and not small.views_follow and small.stage is None

    monkeypatch.setattr(engine, "PROCESS_THRESHOLD", 100)
    pretty = tmp_path / "pretty.payload.json"  # verified first, indexed after its verdicts
    pretty.write_bytes(orjson.dumps(orjson.loads(GOLDEN_P.read_bytes()), option=orjson.OPT_INDENT_2))
    partials, out = [], []
    t = threading.Thread(target=lambda: out.append(engine.load_paths([str(pretty), str(GOLDEN_D)],
                                                                     partial=partials.append)))
    t.start()
    t.join(120)
    result = out[0]
    states = [a.load.state for a in partials]
    assert states[0] is LoadState.BYTES and states == sorted(states)
    assert LoadState.VERDICTS in states
    verdicts = next(a for a in partials if a.load.state is LoadState.VERDICTS)
    assert verdicts.views_follow and verdicts.report is result.report and verdicts.stage is None
    assert all(a.report is None and a.stage is not None for a in partials if a.load.state < LoadState.VERDICTS)
    assert result.load.state is LoadState.TREES and result.views_error is None
    assert result.report.root_cause.rule.id == "X-BYTES" and result.report.views is not None
