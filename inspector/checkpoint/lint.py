"""Integrity lint: what the reference does not check but a resume depends on (issue 11).

Lint findings are a kind of their own, separate from the rules of FORMAT.md 6: they never change
a verdict, a root cause or an exit code. They read the decoded payload (serialized form, FORMAT.md
4.4-4.7) and look for what people otherwise find by hand in a broken session:

========================= ===================================================================
kind                      what it means
========================= ===================================================================
``orphan-tool-result``    a ``tool_result`` block whose ``tool_use_id`` names no earlier
                          ``tool_use`` block of the same message list
``unanswered-tool-call``  a ``tool_use`` block with no later ``tool_result`` for its id (for the
                          loop checkpoint: before the resume boundary, which is the end of
                          ``logical_resume.messages``)
``duplicate-tool-call-id`` two ``tool_use`` blocks of one message list share an id
``boundary-rounds``       ``logical_resume.turn`` (completed tool rounds) disagrees with the
                          ``turn_end`` events the source run recorded up to ``checkpoint_ms``
``event-sequence-gap``    a run's retained events skip sequence numbers between two events
``usage-mismatch``        usage counters that disagree with per-turn usage: the loop
                          checkpoint's ``total_usage`` against the sum of the source run's
                          ``turn_end`` usage for rounds ``1..turn`` (when every one of them is
                          retained), or the session's ``total_usage`` smaller than the usage its
                          runs' ``turn_end`` events record
========================= ===================================================================

The three message kinds found in ``logical_resume.messages`` *block the resume*
(:attr:`LintFinding.blocks_resume`): the loop would continue from a conversation that is not at a
completed tool round, and the model provider rejects a tool call without its result (and a result
without its call). Everywhere else a lint finding is a warning.

Walks are flat loops over message, block and event arrays (no recursion).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import compress, islice, repeat
from operator import gt, sub

from .report import Location
from .runevents import RunEvents, read_runs
from .slotted import fmt, join, ours, value as _fv

__all__ = ["LintFinding", "LINT_KINDS", "lint_payload", "MAX_PER_KIND"]

#: kind -> short title (shown in lists)
LINT_KINDS = {
    "orphan-tool-result": "Tool result without a tool call",
    "unanswered-tool-call": "Tool call without a result",
    "duplicate-tool-call-id": "Duplicate tool-call id",
    "boundary-rounds": "Resume boundary disagrees with the run's events",
    "event-sequence-gap": "Gap in a run's event sequence",
    "usage-mismatch": "Usage counters disagree with per-turn usage",
}

#: At most this many findings of one kind are reported (with locations); the rest are counted.
MAX_PER_KIND = 100

_LR = "/logical_resume"
_USAGE_KEYS = ("prompt_tokens", "completion_tokens", "total_tokens")


@dataclass(frozen=True)
class LintFinding:
    """One integrity-lint finding.

    Attributes:
        kind: a key of :data:`LINT_KINDS`.
        explanation: one or two plain sentences saying what is wrong and why it matters.
        locations: where (payload JSON Pointers with byte spans), primary first.
        blocks_resume: True when the finding alone makes the loop checkpoint not resumable.
        more: how many further findings of this kind were left out (only on the last one kept).
    """

    kind: str
    explanation: str
    locations: tuple[Location, ...]
    blocks_resume: bool = False
    more: int = 0

    @property
    def title(self) -> str:
        """The kind's short title."""
        return LINT_KINDS[self.kind]

    def to_json(self) -> dict:
        """JSON form: ``{kind, title, explanation, blocks_resume, locations: [{source, pointer, span}]}``."""
        return {"kind": self.kind, "title": self.title, "explanation": self.explanation,
                "blocks_resume": self.blocks_resume, "more": self.more,
                "locations": [x.to_json() for x in self.locations]}


def lint_payload(pay: dict, span=None, run_events: list[RunEvents] | None = None) -> list[LintFinding]:
    """Every lint finding of a decoded payload, in kind order then document order.

    Args:
        pay: the decoded payload in serialized form (``Context.pay``).
        span: ``callable(pointer) -> (start, end) | None`` giving payload byte spans, or ``None``.
        run_events: :func:`.runevents.read_runs` of ``snapshot.run_records`` when the caller has it
            (read here otherwise).

    Returns:
        a list of :class:`LintFinding` (at most :data:`MAX_PER_KIND` of each kind). Never raises
        for a payload the typed decode accepted.
    """
    # kind -> [(blocks, build, args)] in document order; ``build(*args)`` gives (explanation, pointers),
    # called only for the findings kept: the others are only counted (a run can skip thousands of events),
    # and a producer may put None for a finding past the first MAX_PER_KIND of its kind
    found: dict[str, list] = {k: [] for k in LINT_KINDS}
    snap = pay.get("snapshot") or {}
    session = snap.get("session") or {}
    lr = pay.get("logical_resume")
    _message_findings(found, session.get("messages") or [], "/snapshot/session/messages", False)
    if lr is not None:
        _message_findings(found, lr.get("messages") or [], _LR + "/messages", True)
    runs = snap.get("run_records") or []
    if lr is not None:
        _boundary_findings(found, lr, runs)
    _event_findings(found, session, lr, runs, read_runs(runs) if run_events is None else run_events)
    out: list[LintFinding] = []
    for kind, items in found.items():
        for n, (blocks, build, args) in enumerate(items[:MAX_PER_KIND], 1):
            text, pointers = build(*args)
            locs = tuple(Location("payload", p, span(p) if span is not None else None) for p in pointers)
            # the last kept finding of a kind says how many were left out
            more = len(items) - MAX_PER_KIND if n == MAX_PER_KIND else 0
            out.append(LintFinding(kind, text, locs, blocks, more))
    return out


def _message_findings(found: dict, messages: list, base: str, in_loop: bool) -> None:
    where = "the loop checkpoint's messages" if in_loop else "the session's messages"
    calls: dict[str, tuple] = {}  # id -> (message index, block index) of its first tool_use
    answered: set[str] = set()
    uses = []
    duplicate, orphan = found["duplicate-tool-call-id"], found["orphan-tool-result"]
    for i, msg in enumerate(messages):
        content = msg.get("content") if isinstance(msg, dict) else None
        for j, block in enumerate(content or ()):
            if not isinstance(block, dict):
                continue
            t = block.get("type")
            if t == "tool_use":
                cid = block.get("id")
                if cid in calls:
                    duplicate.append((in_loop, _duplicate, (cid, where, base, (i, j), calls[cid])))
                else:
                    calls[cid] = (i, j)
                uses.append((cid, i, j, block))
            elif t == "tool_result":
                rid = block.get("tool_use_id")
                if rid not in calls:
                    orphan.append((in_loop, _orphan, (rid, where, base, (i, j))))
                answered.add(rid)
    unanswered = found["unanswered-tool-call"]
    for cid, i, j, block in uses:
        if cid not in answered:
            unanswered.append((in_loop, _unanswered, (cid, block.get("name"), in_loop, base, (i, j))))


def _block(base: str, at: tuple) -> str:
    return f"{base}/{at[0]}/content/{at[1]}"


def _duplicate(cid, where, base, at, first):
    return (fmt("Tool call id {} is used by two tool calls in {}; a result cannot say which call it answers.",
                _fv(cid, "payload", _block(base, at) + "/id", form=repr), ours(where)),
            [_block(base, at), _block(base, first)])


def _orphan(rid, where, base, at):
    return (fmt("This tool result answers tool call {}, but no earlier message in {} makes that call; "
                "model APIs reject a result without its call.",
                _fv(rid, "payload", _block(base, at) + "/tool_use_id", form=repr), ours(where)), [_block(base, at)])


def _unanswered(cid, name, in_loop, base, at):
    end = "before the resume boundary" if in_loop else "in the session"
    return (fmt("Tool call {} ({}) has no result {}; the conversation is not at a completed tool round, "
                "and model APIs reject a call without its result.",
                _fv(cid, "payload", _block(base, at) + "/id", form=repr), _fv(name, "payload", _block(base, at) + "/name"),
                ours(end)), [_block(base, at)])


def _boundary_findings(found: dict, lr: dict, runs: list) -> None:
    run_id = lr.get("run_id")
    for r, rec in enumerate(runs):
        if (rec.get("snapshot") or {}).get("id") == run_id:
            break
    else:
        return  # L-SOURCE-RUN says it
    events = rec.get("events") or []
    if not events:
        return  # nothing recorded to compare with
    cut = lr.get("checkpoint_ms")
    last_end = None  # (turn, event index)
    for e, ev in enumerate(events):
        body = ev.get("event") or {}
        if body.get("type") == "turn_end" and (cut is None or ev.get("timestamp_ms", 0) <= cut):
            if last_end is None or body.get("turn", 0) >= last_end[0]:
                last_end = (body.get("turn", 0), e)
    turn = lr.get("turn")
    seen = 0 if last_end is None else last_end[0]
    if seen == turn:
        return
    pointers = [_LR + "/turn"]
    if last_end is not None:
        pointers.append(f"/snapshot/run_records/{r}/events/{last_end[1]}")
    else:
        pointers.append(f"/snapshot/run_records/{r}")
    if seen < turn and events[0].get("sequence", 0) > 0 and last_end is None:
        return  # the early events were not retained: nothing to contradict
    recorded = ours("no turn_end event") if last_end is None else fmt(
        "turn_end events up to turn {}", _fv(seen, "payload", f"/snapshot/run_records/{r}/events/{last_end[1]}/event/turn"))
    found["boundary-rounds"].append((False, _given, (
        fmt("The loop checkpoint says {} tool round(s) were completed, but source run {} recorded "
            "{} by checkpoint_ms; the resume would continue from a different point than the run's "
            "events show.", _fv(turn, "payload", _LR + "/turn"), _fv(run_id, "payload", _LR + "/run_id", form=repr),
            recorded), pointers)))


def _given(text: str, pointers: list) -> tuple:
    return text, pointers


def _gap(rec, r, e, prev, seq):
    rid = (rec.get("snapshot") or {}).get("id")
    return (fmt("Run {} goes from event {} to event {}: {} event(s) in between are missing, "
                "so what happened there cannot be seen.",
                _fv(rid, "payload", f"/snapshot/run_records/{r}/snapshot/id", form=repr),
                _fv(prev, "payload", f"/snapshot/run_records/{r}/events/{e - 1}/sequence"),
                _fv(seq, "payload", f"/snapshot/run_records/{r}/events/{e}/sequence"), seq - prev - 1),
            [f"/snapshot/run_records/{r}/events/{e}/sequence", f"/snapshot/run_records/{r}/events/{e - 1}/sequence"])


def _usage(u) -> tuple:
    return tuple(u.get(k) or 0 for k in _USAGE_KEYS) if isinstance(u, dict) else (0, 0, 0)


def _event_findings(found: dict, session: dict, lr: dict | None, runs: list, run_events: list[RunEvents]) -> None:
    """``event-sequence-gap`` and ``usage-mismatch``, from the runs' events read once (:mod:`.runevents`)."""
    gaps = found["event-sequence-gap"]
    turn_usage: dict[int, dict[int, tuple]] = {}  # run index -> turn -> usage
    total = [0, 0, 0]
    for r, (rec, read) in enumerate(zip(runs, run_events)):
        per = turn_usage[r] = {}
        seqs = read.sequences
        if all(map(isinstance, seqs, repeat(int))):  # the usual case: the gaps in C, not event by event
            at = list(compress(range(1, len(seqs)), map(gt, map(sub, islice(seqs, 1, None), seqs), repeat(1))))
        else:
            at = [e for e in range(1, len(seqs)) if isinstance(seqs[e - 1], int) and isinstance(seqs[e], int)
                  and seqs[e] > seqs[e - 1] + 1]
        keep = max(0, min(len(at), MAX_PER_KIND - len(gaps)))
        for e in at[:keep]:
            gaps.append((False, _gap, (rec, r, e, seqs[e - 1], seqs[e])))
        gaps.extend(repeat(None, len(at) - keep))  # past the cap: only counted (lint_payload never builds them)
        events = read.events
        for e in read.marked:  # the turn_end events are among them
            body = events[e].get("event") or {}
            if body.get("type") == "turn_end":
                u = _usage(body.get("usage"))
                per[body.get("turn")] = u
                for k in range(3):
                    total[k] += u[k]
    out = found["usage-mismatch"]
    if lr is not None and lr.get("turn"):
        for r, rec in enumerate(runs):
            if (rec.get("snapshot") or {}).get("id") == lr.get("run_id"):
                per = turn_usage[r]
                rounds = range(1, lr["turn"] + 1)
                if all(t in per for t in rounds):
                    summed = tuple(sum(per[t][k] for t in rounds) for k in range(3))
                    stated = _usage(lr.get("total_usage"))
                    if summed != stated:
                        out.append((False, _given, (
                            fmt("The loop checkpoint's total_usage (prompt/completion/total {}) differs from the "
                                "sum of the source run's turn_end usage for rounds 1..{} ({}).",
                                _usage_text(stated, _LR + "/total_usage"), _fv(lr["turn"], "payload", _LR + "/turn"),
                                ours("/".join(map(str, summed)))),
                            [_LR + "/total_usage", f"/snapshot/run_records/{r}"])))
                break
    stated = _usage(session.get("total_usage"))
    if any(stated[k] < total[k] for k in range(3)):
        out.append((False, _given, (
            fmt("The session's total_usage (prompt/completion/total {}) is smaller than the usage its runs' "
                "turn_end events record ({}); a counter was reset or events belong to another session.",
                _usage_text(stated, "/snapshot/session/total_usage"), ours("/".join(map(str, total)))),
            ["/snapshot/session/total_usage"])))


def _usage_text(stated: tuple, pointer: str):
    """``prompt/completion/total`` of a usage object at ``pointer`` (each number a slot)."""
    return join("/", [_fv(v, "payload", f"{pointer}/{k}") for k, v in zip(_USAGE_KEYS, stated)])
