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

from .report import Location

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


def lint_payload(pay: dict, span=None) -> list[LintFinding]:
    """Every lint finding of a decoded payload, in kind order then document order.

    Args:
        pay: the decoded payload in serialized form (``Context.pay``).
        span: ``callable(pointer) -> (start, end) | None`` giving payload byte spans, or ``None``.

    Returns:
        a list of :class:`LintFinding` (at most :data:`MAX_PER_KIND` of each kind). Never raises
        for a payload the typed decode accepted.
    """
    raw: list[tuple[str, str, list[str], bool]] = []  # (kind, explanation, pointers, blocks)
    snap = pay.get("snapshot") or {}
    session = snap.get("session") or {}
    lr = pay.get("logical_resume")
    raw += _message_findings(session.get("messages") or [], "/snapshot/session/messages", False)
    if lr is not None:
        raw += _message_findings(lr.get("messages") or [], _LR + "/messages", True)
    runs = snap.get("run_records") or []
    if lr is not None:
        raw += _boundary_findings(lr, runs)
    raw += _gap_findings(runs)
    raw += _usage_findings(session, lr, runs)
    order = {k: i for i, k in enumerate(LINT_KINDS)}
    raw.sort(key=lambda r: order[r[0]])  # stable: document order within a kind
    out: list[LintFinding] = []
    counts: dict[str, int] = {}
    for kind, text, pointers, blocks in raw:
        counts[kind] = counts.get(kind, 0) + 1
        if counts[kind] > MAX_PER_KIND:
            continue
        locs = tuple(Location("payload", p, span(p) if span is not None else None) for p in pointers)
        out.append(LintFinding(kind, text, locs, blocks))
    for i, f in enumerate(out):  # the last kept finding of a kind says how many were left out
        extra = counts[f.kind] - MAX_PER_KIND
        if extra > 0 and (i + 1 == len(out) or out[i + 1].kind != f.kind):
            out[i] = LintFinding(f.kind, f.explanation, f.locations, f.blocks_resume, extra)
    return out


def _message_findings(messages: list, base: str, in_loop: bool) -> list:
    where = "the loop checkpoint's messages" if in_loop else "the session's messages"
    calls: dict[str, str] = {}  # id -> pointer of its first tool_use
    answered: set[str] = set()
    out = []
    uses = []
    for i, msg in enumerate(messages):
        content = msg.get("content") if isinstance(msg, dict) else None
        for j, block in enumerate(content or ()):
            if not isinstance(block, dict):
                continue
            ptr = f"{base}/{i}/content/{j}"
            t = block.get("type")
            if t == "tool_use":
                cid = block.get("id")
                if cid in calls:
                    out.append(("duplicate-tool-call-id",
                                f"Tool call id {cid!r} is used by two tool calls in {where}; a result cannot say "
                                f"which call it answers.", [ptr, calls[cid]], in_loop))
                else:
                    calls[cid] = ptr
                uses.append((cid, ptr, block.get("name")))
            elif t == "tool_result":
                rid = block.get("tool_use_id")
                if rid not in calls:
                    out.append(("orphan-tool-result",
                                f"This tool result answers tool call {rid!r}, but no earlier message in {where} "
                                f"makes that call; model APIs reject a result without its call.", [ptr], in_loop))
                answered.add(rid)
    for cid, ptr, name in uses:
        if cid not in answered:
            end = "before the resume boundary" if in_loop else "in the session"
            out.append(("unanswered-tool-call",
                        f"Tool call {cid!r} ({name}) has no result {end}; the conversation is not at a completed "
                        f"tool round, and model APIs reject a call without its result.", [ptr], in_loop))
    return out


def _boundary_findings(lr: dict, runs: list) -> list:
    run_id = lr.get("run_id")
    for r, rec in enumerate(runs):
        if (rec.get("snapshot") or {}).get("id") == run_id:
            break
    else:
        return []  # L-SOURCE-RUN says it
    events = rec.get("events") or []
    if not events:
        return []  # nothing recorded to compare with
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
        return []
    pointers = [_LR + "/turn"]
    if last_end is not None:
        pointers.append(f"/snapshot/run_records/{r}/events/{last_end[1]}")
    else:
        pointers.append(f"/snapshot/run_records/{r}")
    if seen < turn and events[0].get("sequence", 0) > 0 and last_end is None:
        return []  # the early events were not retained: nothing to contradict
    recorded = "no turn_end event" if last_end is None else f"turn_end events up to turn {seen}"
    return [("boundary-rounds",
             f"The loop checkpoint says {turn} tool round(s) were completed, but source run {run_id!r} recorded "
             f"{recorded} by checkpoint_ms; the resume would continue from a different point than the run's "
             f"events show.", pointers, False)]


def _gap_findings(runs: list) -> list:
    out = []
    for r, rec in enumerate(runs):
        prev = None
        for e, ev in enumerate(rec.get("events") or ()):
            seq = ev.get("sequence")
            if isinstance(prev, int) and isinstance(seq, int) and seq > prev + 1:
                rid = (rec.get("snapshot") or {}).get("id")
                missing = seq - prev - 1
                out.append(("event-sequence-gap",
                            f"Run {rid!r} goes from event {prev} to event {seq}: {missing} event(s) in between are "
                            f"missing, so what happened there cannot be seen.",
                            [f"/snapshot/run_records/{r}/events/{e}/sequence",
                             f"/snapshot/run_records/{r}/events/{e - 1}/sequence"], False))
            prev = seq
    return out


def _usage(u) -> tuple:
    return tuple(u.get(k) or 0 for k in _USAGE_KEYS) if isinstance(u, dict) else (0, 0, 0)


def _usage_findings(session: dict, lr: dict | None, runs: list) -> list:
    out = []
    turn_usage: dict[int, dict[int, tuple]] = {}  # run index -> turn -> usage
    total = [0, 0, 0]
    for r, rec in enumerate(runs):
        per = turn_usage.setdefault(r, {})
        for ev in rec.get("events") or ():
            body = ev.get("event") or {}
            if body.get("type") == "turn_end":
                u = _usage(body.get("usage"))
                per[body.get("turn")] = u
                for k in range(3):
                    total[k] += u[k]
    if lr is not None and lr.get("turn"):
        for r, rec in enumerate(runs):
            if (rec.get("snapshot") or {}).get("id") == lr.get("run_id"):
                per = turn_usage[r]
                rounds = range(1, lr["turn"] + 1)
                if all(t in per for t in rounds):
                    summed = tuple(sum(per[t][k] for t in rounds) for k in range(3))
                    stated = _usage(lr.get("total_usage"))
                    if summed != stated:
                        out.append(("usage-mismatch",
                                    f"The loop checkpoint's total_usage (prompt/completion/total "
                                    f"{'/'.join(map(str, stated))}) differs from the sum of the source run's turn_end "
                                    f"usage for rounds 1..{lr['turn']} ({'/'.join(map(str, summed))}).",
                                    [_LR + "/total_usage", f"/snapshot/run_records/{r}"], False))
                break
    stated = _usage(session.get("total_usage"))
    if any(stated[k] < total[k] for k in range(3)):
        out.append(("usage-mismatch",
                    f"The session's total_usage (prompt/completion/total {'/'.join(map(str, stated))}) is smaller "
                    f"than the usage its runs' turn_end events record ({'/'.join(map(str, total))}); a counter was "
                    f"reset or events belong to another session.", ["/snapshot/session/total_usage"], False))
    return out
