"""The transcript's blocks of a message (analysis/views.py): raw text tokens, bounded previews."""

from __future__ import annotations

from array import array

from inspector.checkpoint.analysis.views import (
    LARGE_MESSAGE, SHOWN_CHARS, Block, bounded_blocks, build_transcript, message_blocks,
)


def test_message_blocks_reads_raw_string_tokens_of_the_typed_fast_read():
    """The typed fast read leaves large text fields as memoryview string tokens; the blocks hold the string."""
    msg = {"role": "tool", "reasoning_content": memoryview(b'"why \\"so\\""'),
           "content": [{"type": "text", "text": memoryview(b'"a\\u00e9b\\n"')},
                       {"type": "tool_result", "tool_use_id": "t1", "content": memoryview(b'"done"'),
                        "is_error": False},
                       {"type": "tool_result", "tool_use_id": "t2", "is_error": True,
                        "content": [{"type": "text", "text": memoryview(b'"line \\u0031"')},
                                    {"type": "image", "source": {}}]}]}
    assert message_blocks(msg, "/m") == [
        Block("reasoning", 'why "so"', "/m/reasoning_content"),
        Block("text", "a\u00e9b\n", "/m/content/0"),
        Block("tool_result", "done", "/m/content/1", tool_id="t1", is_error=False),
        Block("tool_result", "line 1\n[1 image(s)]", "/m/content/2", tool_id="t2", is_error=True),
    ]


def test_bounded_blocks_cut_long_texts_and_say_how_long_they_were():
    text = "x" * (SHOWN_CHARS + 7)
    msg = {"role": "user", "content": [{"type": "text", "text": text}, {"type": "text", "text": "short"}]}
    long, short = bounded_blocks(msg, "/m")
    assert (len(long.text), long.whole_chars) == (SHOWN_CHARS, SHOWN_CHARS + 7)
    assert (short.text, short.whole_chars) == ("short", None)


def test_transcript_previews_exactly_the_messages_of_at_least_large_message_bytes():
    msgs = [{"role": "user", "content": [{"type": "text", "text": "hi"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "y" * 10}]}]
    pay = {"snapshot": {"session": {"messages": msgs}}}

    def spans(_pointer, items):  # message 1 claims LARGE_MESSAGE bytes, message 0 one byte less
        return array("q", [0, 100]), array("q", [LARGE_MESSAGE - 1, 100 + LARGE_MESSAGE])

    tr = build_transcript(pay, spans)
    assert list(tr.previews) == [1]
    assert tr.previews[1] == [Block("text", "y" * 10, "/snapshot/session/messages/1/content/0")]
    assert build_transcript(pay).previews == {}  # no spans: nothing to measure, nothing read ahead


def test_lane_compact_finds_whether_sequences_and_timestamps_never_decrease():
    """Found with the views (off the window's thread): the timeline draws a sorted lane by bisection."""
    from inspector.checkpoint.analysis.views import Lane

    lane = Lane(0, "run-1", "completed", 0, 0, 4)
    lane.seq.extend([1, 2, 2, 3])
    lane.ts.extend([10, 30, 20, 40])
    assert (lane.seq_sorted, lane.ts_sorted) == (None, None)
    lane.rounds = [(1, 0, 1), (2, 2, None)]  # two passes, from events 0 and 2
    lane.compact()
    assert (lane.seq_sorted, lane.ts_sorted) == (True, False)
    assert (list(lane.pass_seq), list(lane.pass_ts)) == ([1, 2], [10, 20])  # each pass's first event
    empty = Lane(1, "run-2", "running", 0, 0, 0)
    empty.compact()
    assert (empty.seq_sorted, empty.ts_sorted) == (True, True)


def test_packed_views_carry_the_previews_in_chunks_of_their_own():
    """Views cross from the worker process in small chunks (each unpickled between the window's turns): the
    previews of large messages are not all in the first one."""
    import pickle

    from inspector.checkpoint.analysis.views import PackedViews, Roles, Timeline, Transcript

    tr = Transcript(Roles(["user"] * 9), array("q", range(9)), array("q", range(1, 10)),
                    calls={"t1": (0, 1)})
    tr.previews = {i: [Block("text", "p" * SHOWN_CHARS, f"/m/{i}", whole_chars=SHOWN_CHARS + i)] for i in range(9)}
    packed = PackedViews((Timeline([]), tr))
    head, first = pickle.loads(packed.chunks[0])
    assert first.previews == {} and first.calls == {}
    assert max(len(c) for c in packed.chunks) < 5 * SHOWN_CHARS  # four previews a chunk at most
    tl, back = packed.unpack()
    assert back == tr and back.previews[8][0].whole_chars == SHOWN_CHARS + 8 and back.calls == {"t1": (0, 1)}


def test_packed_views_send_a_long_run_in_pieces_and_put_it_back_whole():
    """A run of a million events crossed in one chunk (44-58 ms of the interpreter lock to unpickle): its long
    arrays now cross in pieces, and the lane comes back equal."""
    from inspector.checkpoint.analysis.views import Lane, PackedViews, Roles, Timeline, Transcript

    big, small = Lane(0, "run-a", "completed", 0, 0, 5), Lane(1, "run-b", "running", 0, 0, 2)
    n = 2 * PackedViews.ARRAY_PIECE + 5
    big.seq.extend(range(n))
    big.ts.extend(range(0, 2 * n, 2))
    big.kind.extend(bytes(i % 7 for i in range(n)))
    big.rounds = [(1, 0, n - 1)]
    small.seq.extend([1, 2])
    small.ts.extend([5, 6])
    small.kind.extend(b"\\x00\\x01")
    for lane in (big, small):
        lane.compact()
    tl = Timeline([big, small], "run-a", 1, 100)
    tr = Transcript(Roles([]), None, None)
    packed = PackedViews((tl, tr))
    pieces = [c for c in packed.chunks if len(c) > 8 * PackedViews.ARRAY_PIECE + 1024]
    assert pieces == []  # no chunk holds more than one piece of one array
    assert len(packed.chunks) == 2 + 3 * 3  # head, lanes, and seq, ts, kind in three pieces each
    back, _ = packed.unpack()
    assert back.lanes == [big, small] and back.lanes[0].seq == big.seq and len(back.lanes[0].kind) == n
    assert big.seq is not None and len(big.seq) == n  # the sender's lanes are left as they were


def test_every_scenarios_transcript_has_the_loop_checkpoints_own_messages_and_09s_lint_points_into_them():
    """The ten reference scenarios (FORMAT.md 4.17): the session's transcript and, beside it, the loop
    checkpoint's own messages (``logical_resume.messages``) with the boundary after the last of them; the
    blocking orphan tool result of scenario 09 points at its message [2] of the resume point's list, not at any
    message of the session's (which has none)."""
    import json as _json

    from inspector.checkpoint import verify
    from tests.conftest import SCENARIOS

    seen = {}
    for p in sorted(SCENARIOS.glob("*.payload.json")):
        pay = _json.loads(p.read_bytes())
        tr = build_transcript(pay)
        rp = tr.resume_point
        lm = pay["logical_resume"]["messages"]
        assert (rp.base, len(rp), rp.boundary) == ("/logical_resume/messages", len(lm), len(lm))
        assert [rp.roles[i] for i in range(len(rp))] == [m["role"] for m in lm]
        seen[p.name[:2]] = (len(tr), len(rp))
    assert seen == {"01": (0, 3), "02": (0, 5), "03": (0, 5), "04": (0, 5), "05": (0, 3), "06": (4, 3),
                    "07": (0, 3), "08": (4, 3), "09": (0, 3), "10": (0, 3)}
    p = SCENARIOS / "09-orphan-result.payload.json"
    report = verify(p.read_bytes(), p.with_name("09-orphan-result.descriptor.json").read_bytes())
    tr = build_transcript(_json.loads(p.read_bytes()))
    orphan = [f for f in report.lint if f.kind == "orphan-tool-result"]
    assert len(orphan) == 1 and orphan[0].blocks_resume
    assert [tr.resume_point.index_of(x.pointer) for x in orphan[0].locations] == [2]
    assert [tr.index_of(x.pointer) for x in orphan[0].locations] == [None]


def test_a_lane_s_passes_by_name_say_which_pass_an_event_is_in():
    """``Lane.passes()`` (FORMAT.md 4.17): the flat ``(turn, first, last)`` triples read by name, one home for the
    timeline's text, its painter and the events table. A pass whose ``turn_start`` carries no integer turn has no
    number (the events table showed it as pass -1, the timeline's text as "in no pass")."""
    from inspector.checkpoint.analysis.views import Lane

    lane = Lane(0, "run-1", "completed", 0, 0, 12)
    lane.seq.extend(range(12))
    lane.ts.extend(range(12))
    lane.rounds = [(1, 1, 3), (2, 5, 7), ("two", 8, None)]  # events 0 and 4 are in no pass; the last runs to the end
    lane.compact()
    passes = lane.passes()
    assert len(passes) == 3
    assert (list(passes.turns), list(passes.firsts), list(passes.lasts)) == ([1, 2, -1], [1, 5, 8], [3, 7, -1])
    assert [passes.containing(e) for e in range(12)] == [None, 0, 0, 0, None, 1, 1, 1, 2, 2, 2, 2]
    assert [passes.turn_of(e) for e in range(12)] == [None, 1, 1, 1, None, 2, 2, 2, None, None, None, None]
    assert (passes.turn(2), passes.last(2), passes.last(0)) == (None, None, 3)
    assert lane.passes() is passes  # sliced once while the passes stay the same
    import pickle

    assert "_passes" not in pickle.loads(pickle.dumps(lane)).__dict__ and pickle.loads(pickle.dumps(lane)) == lane
    lane.add_pass(type("P", (), {"turn": 3, "first_index": 12, "last_index": None, "model_call_index": (12, None),
                                 "tool_calls": ()})())
    assert lane.passes() is not passes and lane.passes().turn_of(12) == 3  # a pass added: sliced again
    unpacked = Lane(1, "run-2", "running", 0, 0, 3)
    unpacked.rounds = [(4, 0, None)]  # before compact(): the same record
    assert unpacked.passes().turn_of(2) == 4
