"""Integrity lint: what the reference does not check but a resume depends on.

Lint findings are a kind of their own, separate from the rules of FORMAT.md 6: they never change
a verdict, a root cause or an exit code. They read the decoded payload (serialized form, FORMAT.md
4.4-4.7) and look for what people otherwise find by hand in a broken session:

Each kind relies on how the upstream loop writes a session (FORMAT.md 4.17), and says so:

========================== ==================================================================
kind                       what it means, and the upstream behaviour it relies on
========================== ==================================================================
``orphan-tool-result``     a ``tool_result`` block that answers no ``tool_use`` of the reply
                           just before it (or answers one a second time, or sits in the reply
                           itself). Every call of a reply gets one result after it, refused and
                           guarded calls included, so such a result was not written by the loop;
                           the model provider rejects such a request (a prediction of a provider
                           rejection, not an import failure)
``unanswered-tool-call``   a ``tool_use`` block whose result is not in the messages before the
                           next reply (or before the end). A loop checkpoint is written only when
                           every call of the pass returned, so in ``logical_resume.messages`` the
                           provider would reject the resumed request; in the session's messages a
                           cancelled pass may leave the last reply's calls unanswered (a warning)
``duplicate-tool-call-id`` two ``tool_use`` blocks of **one reply** share an id: their results
                           cannot be matched (``b49e2b2`` runs both, ``0473774`` refuses them):
                           blocks the resume. Across replies ids are not unique upstream (calls
                           recovered from text are named ``text-tool-1``... afresh in every pass):
                           a warning, each result still answers the call of its own reply
``boundary-rounds``        ``logical_resume.turn`` names a pass the source run's retained events
                           do not show completed (no ``turn_end`` of that number), judged by
                           event order, never by ``timestamp_ms``: the host clock
                           (``checkpoint_ms``) and the run store's clock may disagree, and a live
                           export drains the tool events after reading ``checkpoint_ms``
``event-sequence-gap``     a run's retained events skip sequence numbers: trimming drops only the
                           oldest events, so the retained sequences are always contiguous
``usage-mismatch``         the loop checkpoint's ``total_usage`` is not the sum of the source
                           run's ``turn_end`` usage for passes ``1..turn`` (when all are
                           retained), or the session's ``total_usage`` is smaller than the sum of
                           its completed runs' ``agent_end`` usage (the session's usage grows only
                           when a run ends, so a run in flight never counts, and a failed run never
                           adds its own)
========================== ==================================================================

The message kinds found in ``logical_resume.messages`` *block the resume*
(:attr:`LintFinding.blocks_resume`), except a duplicate id across replies: the loop would continue
from a conversation the model provider rejects. Everywhere else a lint finding is a warning.

Walks are flat loops over message, block and event arrays (no recursion).
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import compress, islice, repeat
from operator import gt, sub

from inspector.checkpoint.report import Location
from inspector.checkpoint.analysis.passes import passes_of
from inspector.checkpoint.rules.runevents import RunEvents, read_runs
from inspector.checkpoint.slotted import fmt, join, ours, value as _fv

__all__ = ["LintFinding", "LINT_KINDS", "lint_payload", "MAX_PER_KIND"]

#: kind -> short title (shown in lists)
LINT_KINDS = {
    "orphan-tool-result": "Tool result without a tool call",
    "unanswered-tool-call": "Tool call without a result",
    "duplicate-tool-call-id": "Duplicate tool-call id",
    "boundary-rounds": "Resume boundary names a pass the run's events do not show",
    "event-sequence-gap": "Gap in a run's event sequence",
    "usage-mismatch": "Usage counters disagree with the runs' recorded usage",
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
    """Tool calls matched with their results reply by reply (FORMAT.md 4.17): a reply is an
    assistant message; its calls are answered by the tool results that follow it, up to the next reply."""
    where = "the loop checkpoint's messages" if in_loop else "the session's messages"
    duplicate, orphan = found["duplicate-tool-call-id"], found["orphan-tool-result"]
    unanswered = found["unanswered-tool-call"]
    earlier: dict = {}  # id -> (message index, block index) of its first tool_use in an earlier reply
    reply: dict = {}  # id -> [(message index, block index, block), ...] of the current reply's calls
    answered: dict = {}  # id -> how many results the current reply's calls got

    def close(last: bool) -> None:
        for cid, calls in reply.items():
            for i, j, block in calls[answered.get(cid, 0):]:
                # a cancelled pass may leave the session's last reply unanswered; a loop checkpoint never
                cancelled = last and not in_loop
                unanswered.append((in_loop, _unanswered, (cid, block.get("name"), in_loop, base, (i, j), cancelled)))
        for cid, calls in reply.items():
            earlier.setdefault(cid, calls[0][:2])
        reply.clear()
        answered.clear()

    for i, msg in enumerate(messages):
        content = msg.get("content") if isinstance(msg, dict) else None
        blocks = [(j, b) for j, b in enumerate(content or ()) if isinstance(b, dict)]
        reply_msg = msg.get("role") == "assistant" if isinstance(msg, dict) else False
        if reply_msg or any(b.get("type") == "tool_use" for _j, b in blocks):
            close(False)  # every reply ends the one before it: its calls had to be answered by now
            for j, block in blocks:
                if block.get("type") != "tool_use":
                    continue
                cid = block.get("id")
                if cid in reply:  # two calls of one reply: their results cannot be told apart
                    duplicate.append((in_loop, _duplicate, (cid, where, base, (i, j), reply[cid][0][:2], True)))
                elif cid in earlier:  # reused by a later reply: upstream does this (text-tool-N)
                    duplicate.append((False, _duplicate, (cid, where, base, (i, j), earlier[cid], False)))
                reply.setdefault(cid, []).append((i, j, block))
        for j, block in blocks:
            if block.get("type") == "tool_result":
                rid = block.get("tool_use_id")
                if not reply_msg and rid in reply and answered.get(rid, 0) < len(reply[rid]):
                    answered[rid] = answered.get(rid, 0) + 1
                else:  # no call of the reply before it, a second result for one call, or inside a reply
                    again = not reply_msg and rid in reply
                    orphan.append((in_loop, _orphan, (rid, where, base, (i, j), again)))
    close(True)


def _block(base: str, at: tuple) -> str:
    return f"{base}/{at[0]}/content/{at[1]}"


def _duplicate(cid, where, base, at, first, one_reply):
    if one_reply:
        return (fmt("Tool call id {} is used by two tool calls of one reply in {}: their results cannot be told "
                    "apart, so the model provider would reject the resumed request.",
                    _fv(cid, "payload", _block(base, at) + "/id", form=repr), ours(where)),
                [_block(base, at), _block(base, first)])
    return (fmt("Tool call id {} is used again by a later reply in {}. A3S Code does not keep tool-call ids "
                "unique across passes (calls recovered from text are named text-tool-1, text-tool-2, ... afresh "
                "in every pass); each result still answers the call of its own reply.",
                _fv(cid, "payload", _block(base, at) + "/id", form=repr), ours(where)),
            [_block(base, at), _block(base, first)])


def _orphan(rid, where, base, at, again=False):
    if again:
        return (fmt("This tool result answers tool call {} again in {}: its call was answered already, and the "
                    "model provider would reject a request holding two results for one call (the import itself "
                    "accepts it).", _fv(rid, "payload", _block(base, at) + "/tool_use_id", form=repr), ours(where)),
                [_block(base, at)])
    return (fmt("This tool result answers tool call {}, which the reply before it in {} does not make: the model "
                "provider would reject a request holding it (the import itself accepts it).",
                _fv(rid, "payload", _block(base, at) + "/tool_use_id", form=repr), ours(where)), [_block(base, at)])


def _unanswered(cid, name, in_loop, base, at, cancelled=False):
    call = _fv(cid, "payload", _block(base, at) + "/id", form=repr)
    tool = _fv(name, "payload", _block(base, at) + "/name")
    if cancelled:
        return (fmt("Tool call {} ({}) of the session's last reply has no result: a cancelled pass leaves its "
                    "calls unanswered. The session restores, but a request continuing from here would be "
                    "rejected by the model provider until the call is answered.", call, tool), [_block(base, at)])
    end = "before the resume boundary" if in_loop else "before the next reply"
    return (fmt("Tool call {} ({}) has no result {}: the model provider would reject a request holding a call "
                "without its result (the import itself accepts it).", call, tool, ours(end)), [_block(base, at)])


def _boundary_findings(found: dict, lr: dict, runs: list) -> None:
    """``boundary-rounds``: the loop checkpoint's ``turn`` against the source run's passes, by event
    order (FORMAT.md 4.17; :mod:`.passes`)."""
    run_id = lr.get("run_id")
    for r, rec in enumerate(runs):
        if (rec.get("snapshot") or {}).get("id") == run_id:
            break
    else:
        return  # L-SOURCE-RUN says it
    events = rec.get("events") or []
    if not events:
        return  # nothing recorded to compare with
    turn = lr.get("turn")
    passes = passes_of(events)
    same = [p for p in passes if p.turn == turn]
    if same and same[-1].model_call[1] is not None:
        return  # pass `turn` is there and its model call ended
    first_seq = events[0].get("sequence", 0) if isinstance(events[0], dict) else 0
    if not same and isinstance(first_seq, int) and first_seq > 0 and all(
            isinstance(p.turn, int) and isinstance(turn, int) and p.turn > turn for p in passes):
        return  # the pass was trimmed away with the oldest events: nothing to contradict
    shown = [p.turn for p in passes if isinstance(p.turn, int)]
    pointers = [_LR + "/turn", f"/snapshot/run_records/{r}" if not same
                else f"/snapshot/run_records/{r}/events/{same[-1].first_index}"]
    if same:
        recorded = ours(f"pass {turn} started but its model call never ended (no turn_end)")
    elif shown:
        recorded = ours(f"passes {min(shown)} to {max(shown)}" if len(set(shown)) > 1 else f"only pass {shown[0]}")
    else:
        recorded = ours("no pass at all")
    found["boundary-rounds"].append((False, _given, (
        fmt("The loop checkpoint says pass {} completed, but source run {} records {}: the resume would continue "
            "from a point the run's events do not show (A3S Code writes the checkpoint of pass N only after "
            "turn_end N and the pass's tools).", _fv(turn, "payload", _LR + "/turn"),
            _fv(run_id, "payload", _LR + "/run_id", form=repr), recorded), pointers)))


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
    total = [0, 0, 0]  # the finished runs' agent_end usage
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
        for e in read.marked:  # the turn_end and agent_end events are among them
            body = events[e].get("event") or {}
            kind = body.get("type")
            if kind == "turn_end":
                per[body.get("turn")] = _usage(body.get("usage"))  # a retried pass: its last turn_end
            elif kind == "agent_end" and (rec.get("snapshot") or {}).get("status") == "completed":
                # a run that ended: the session's usage grew by this; a failed run never adds its own (4.17)
                u = _usage(body.get("usage"))
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
                                "sum of the source run's turn_end usage for passes 1..{} ({}); A3S Code writes "
                                "that sum.",
                                _usage_text(stated, _LR + "/total_usage"), _fv(lr["turn"], "payload", _LR + "/turn"),
                                ours("/".join(map(str, summed)))),
                            [_LR + "/total_usage", f"/snapshot/run_records/{r}"])))
                break
    stated = _usage(session.get("total_usage"))
    if any(stated[k] < total[k] for k in range(3)):
        out.append((False, _given, (
            fmt("The session's total_usage (prompt/completion/total {}) is smaller than the usage its finished "
                "runs' agent_end events record ({}); A3S Code adds a run's usage to the session when the run "
                "ends, so a counter was reset or the runs belong to another session.",
                _usage_text(stated, "/snapshot/session/total_usage"), ours("/".join(map(str, total)))),
            ["/snapshot/session/total_usage"])))


def _usage_text(stated: tuple, pointer: str):
    """``prompt/completion/total`` of a usage object at ``pointer`` (each number a slot)."""
    return join("/", [_fv(v, "payload", f"{pointer}/{k}") for k, v in zip(_USAGE_KEYS, stated)])
