"""A run's events as passes of the agent loop, and where the resume boundary sits (FORMAT.md 4.17).

The upstream loop numbers its passes with one 1-based counter shared by ``turn_start.turn``,
``turn_end.turn`` and ``LoopCheckpoint.turn``. One pass, in order: ``turn_start {turn: N}``; the
streamed model call; ``turn_end {turn: N}`` (it closes the *model call*, not the round); the tools of
that reply (``tool_execution_start`` ... ``tool_end``); then, when every call returned, the loop
checkpoint with ``turn: N``. A retried stream emits ``turn_start {turn: N}`` again with the same N.

So here:

* a **pass** runs from its first ``turn_start`` to the event before the next pass's ``turn_start``
  (a ``turn_start`` with another number), or to the run's last retained event; a retried
  ``turn_start`` with the same number belongs to the same pass (it is an *attempt*);
* its **model call** runs from its last attempt's ``turn_start`` to its ``turn_end`` (``None``: the
  call never ended);
* a **tool call** starts at its ``tool_start`` (a streamed call) or, without one, at its
  ``tool_execution_start``, and ends at its ``tool_end`` (``None``: it never ended); calls are
  matched by id in order, so two calls of one reply that share an id stay two calls;
* the **resume boundary** sits after the last event of the source run's pass
  ``logical_resume.turn``. Event order, never ``timestamp_ms``, places events against it: the host's
  clock (``checkpoint_ms``) and the run store's may disagree.

Nothing here changes a verdict. Walks are flat loops over the events (no recursion).
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections import deque
from dataclasses import dataclass, field

__all__ = ["ToolCall", "Pass", "Passes", "RunPasses", "Boundary", "BoundaryWatch", "passes_of", "iter_passes", "run_passes",
           "boundary_of", "timeline_json", "event_summary"]


@dataclass(slots=True)
class ToolCall:
    """One tool call of a pass: ``id``, ``name``; ``first_sequence``/``first_index`` at its
    ``tool_start`` (``streamed``) or ``tool_execution_start``; ``last_sequence``/``last_index`` at its
    ``tool_end`` (``None`` when it never ended)."""

    id: object
    name: object
    first_sequence: int
    first_index: int
    streamed: bool
    executed: bool = False
    last_sequence: int | None = None
    last_index: int | None = None

    def to_json(self) -> dict:
        """``{id, name, first_sequence, last_sequence, streamed}``."""
        return {"id": self.id, "name": self.name, "first_sequence": self.first_sequence,
                "last_sequence": self.last_sequence, "streamed": self.streamed}


@dataclass(slots=True)
class Pass:
    """One pass of the loop (FORMAT.md 4.17).

    Attributes:
        turn: the pass number (``turn_start.turn``).
        first_sequence, last_sequence: the sequences of its first and last event (inclusive).
        first_index, last_index: the same events' indices in the run record's ``events``.
        attempts: the sequences of its ``turn_start`` events (more than one: a retried stream).
        model_call: ``(first_sequence, last_sequence)`` of the last attempt's model call; the second
            is ``None`` when no ``turn_end`` closed it. ``model_call_index``: the same as event indices.
        tool_calls: the :class:`ToolCall` list, in the order they started.
    """

    turn: object
    first_sequence: int
    first_index: int
    last_sequence: int = 0
    last_index: int = 0
    attempts: list = field(default_factory=list)
    model_call: tuple = (0, None)
    model_call_index: tuple = (0, None)
    tool_calls: list = field(default_factory=list)

    def to_json(self) -> dict:
        """``{turn, first_sequence, last_sequence, attempts, model_call: {first_sequence, last_sequence},
        tool_calls: [...]}`` (the ``timeline --format json`` shape)."""
        return {"turn": self.turn, "first_sequence": self.first_sequence, "last_sequence": self.last_sequence,
                "attempts": list(self.attempts),
                "model_call": {"first_sequence": self.model_call[0], "last_sequence": self.model_call[1]},
                "tool_calls": [c.to_json() for c in self.tool_calls]}


@dataclass(frozen=True)
class RunPasses:
    """The passes of one run record: ``run_id``, ``record`` (its index in ``run_records``), ``passes``."""

    run_id: object
    record: int
    passes: tuple


@dataclass(frozen=True)
class Boundary:
    """Where a resume continues: after event ``after_sequence`` (index ``after_index``) of run
    ``run_id`` (record ``record``), the last event of pass ``turn``."""

    run_id: object
    record: int
    turn: object
    after_sequence: int
    after_index: int

    def to_json(self) -> dict:
        """``{run_id, after_sequence, turn}``."""
        return {"run_id": self.run_id, "after_sequence": self.after_sequence, "turn": self.turn}


def _body(ev) -> dict:
    body = ev.get("event") if isinstance(ev, dict) else None
    return body if isinstance(body, dict) else {}


def passes_of(events: list) -> list[Pass]:
    """The passes of one run's retained ``events`` (a run record's ``events`` list), in order
    (:func:`iter_passes`, listed)."""
    return list(iter_passes(events))


def iter_passes(events: list):
    """The passes of one run's retained ``events`` (a run record's ``events`` list), in order, each
    yielded once it is complete (when the next begins, or at the end): a caller that keeps only what it
    needs of each holds one pass at a time, not half a million (a run of a million events). The passes are
    FORMAT.md 4.17's (the module docstring); yields :class:`Pass`.
    Events before the first ``turn_start`` belong to no pass. A ``turn_start`` that repeats the pass's
    number is an attempt: it restarts the model call only when the last one had not ended (a
    retried stream); after a ``turn_end`` of that number the ended call stands. Linear in the events
    (calls are matched by id through per-pass queues). Never raises for a typed payload."""
    cur: Pass | None = None
    waiting_run: dict = {}  # id -> calls of the current pass not yet executed, in order
    waiting_end: dict = {}  # id -> calls of the current pass not yet ended, in order
    empty: dict = {}
    for j, ev in enumerate(events):  # _body(ev) inline: this loop runs once per event
        if isinstance(ev, dict):
            body = ev.get("event")
            seq = ev.get("sequence")
            if not isinstance(body, dict):
                body = empty
        else:
            body, seq = empty, None
        kind = body.get("type")
        if kind == "turn_start":
            turn = body.get("turn")
            if cur is None or cur.turn != turn:
                if cur is not None:
                    yield cur
                cur = Pass(turn, seq, j)
                waiting_run, waiting_end = {}, {}
            cur.attempts.append(seq)
            if cur.model_call[1] is None:
                cur.model_call = (seq, None)
                cur.model_call_index = (j, None)
        if cur is None:
            continue
        cur.last_sequence, cur.last_index = seq, j
        if kind == "turn_end" and body.get("turn") == cur.turn and cur.model_call[1] is None:
            cur.model_call = (cur.model_call[0], seq)
            cur.model_call_index = (cur.model_call_index[0], j)
        elif kind == "tool_start":
            call = ToolCall(body.get("id"), body.get("name"), seq, j, True)
            cur.tool_calls.append(call)
            waiting_run.setdefault(_key(call.id), deque()).append(call)
            waiting_end.setdefault(_key(call.id), deque()).append(call)
        elif kind == "tool_execution_start":
            cid = body.get("id")
            queue = waiting_run.get(_key(cid))
            call = queue.popleft() if queue else None
            if call is None:  # not streamed: the call starts when it runs
                call = ToolCall(cid, body.get("name"), seq, j, False)
                cur.tool_calls.append(call)
                waiting_end.setdefault(_key(cid), deque()).append(call)
            call.executed = True
            if call.name is None:
                call.name = body.get("name")
        elif kind == "tool_end":
            cid = body.get("id")
            queue = waiting_end.get(_key(cid))
            call = queue.popleft() if queue else None
            if call is None:
                call = ToolCall(cid, body.get("name"), seq, j, False, True)
                cur.tool_calls.append(call)
            else:
                queue_run = waiting_run.get(_key(cid))
                if queue_run and queue_run[0] is call:  # ended without an execution start
                    queue_run.popleft()
            call.last_sequence, call.last_index = seq, j
    if cur is not None:
        yield cur


def _key(cid):
    """A dict key for a tool-call id of any JSON type (ids are strings in a typed payload)."""
    return cid if isinstance(cid, (str, int)) or cid is None else repr(cid)


def run_passes(pay: dict) -> list[RunPasses]:
    """:func:`passes_of` for every run record of a decoded payload (serialized form)."""
    runs = ((pay or {}).get("snapshot") or {}).get("run_records") or []
    return [RunPasses((rec.get("snapshot") or {}).get("id"), i, tuple(passes_of(rec.get("events") or [])))
            for i, rec in enumerate(runs) if isinstance(rec, dict)]


class BoundaryWatch:
    """The resume boundary (:func:`boundary_of`) found while a payload's passes go by, one run at a time, so a
    caller that streams the passes holds none of them: :meth:`start` each run record, :meth:`see` each of its
    passes, :meth:`end` it; ``boundary`` is then the :class:`Boundary` or ``None``, and ``done`` says no later
    run can change it (the source run is the first record with the loop checkpoint's ``run_id``)."""

    __slots__ = ("boundary", "done", "_run_id", "_turn", "_run", "_last")

    def __init__(self, pay: dict) -> None:
        lr = (pay or {}).get("logical_resume")
        self.boundary: Boundary | None = None
        self.done = not isinstance(lr, dict)
        self._run_id = None if self.done else lr.get("run_id")
        self._turn = None if self.done else lr.get("turn")
        self._run = self._last = None

    def start(self, run_id, record: int) -> None:
        """A run record begins: ``run_id`` (its ``snapshot.id``) at index ``record`` of ``run_records``."""
        if not self.done and run_id == self._run_id:
            self._run, self._last = (run_id, record), None

    def see(self, p: Pass) -> None:
        """One pass of the run begun last: the last pass numbered ``logical_resume.turn`` is the boundary's."""
        if self._run is not None and p.turn == self._turn:
            self._last = p

    def end(self) -> None:
        """The run begun last has no more passes."""
        if self._run is not None:
            p = self._last
            if p is not None:
                self.boundary = Boundary(self._run[0], self._run[1], p.turn, p.last_sequence, p.last_index)
            self.done, self._run, self._last = True, None, None


def boundary_of(pay: dict, runs: list[RunPasses] | None = None) -> Boundary | None:
    """The resume boundary of a payload's loop checkpoint: after the last event of the source run's
    pass ``logical_resume.turn`` (the last pass of that number). ``None`` without a loop checkpoint,
    without its source run, or when that pass is not among the retained events."""
    watch = BoundaryWatch(pay)
    if watch.done:
        return None
    for rp in run_passes(pay) if runs is None else runs:
        watch.start(rp.run_id, rp.record)
        for p in rp.passes:
            watch.see(p)
        watch.end()
        if watch.done:
            break
    return watch.boundary


def timeline_json(pay: dict, runs: list[RunPasses] | None = None) -> dict:
    """``{runs: [{run_id, record, passes: [...]}], boundary: {run_id, after_sequence, turn} | null}``:
    the ``timeline --format json`` document (FORMAT.md 4.17). ``runs``: :func:`run_passes` of ``pay`` when the
    caller has them (computed here otherwise)."""
    runs = run_passes(pay) if runs is None else runs
    b = boundary_of(pay, runs)
    return {"runs": [{"run_id": r.run_id, "record": r.record, "passes": [p.to_json() for p in r.passes]} for r in runs],
            "boundary": None if b is None else b.to_json()}


def _usage(u) -> str:
    if not isinstance(u, dict):
        return ""
    return "usage {}/{}/{}".format(*(u.get(k, 0) for k in ("prompt_tokens", "completion_tokens", "total_tokens")))


def event_summary(body: dict) -> str:
    """A one-line structural summary of an event (FORMAT.md 4.7): its turn, tool name and id, usage,
    exit code; never message text, tool input or output."""
    kind = body.get("type")
    parts = []
    if "turn" in body and kind in ("turn_start", "turn_end"):
        parts.append(f"turn {body.get('turn')}")
    name = body.get("name") or body.get("tool_name")
    cid = body.get("id") or body.get("tool_id")
    if name is not None:
        parts.append(f"{name}({cid})" if cid is not None else str(name))
    elif cid is not None:
        parts.append(str(cid))
    if "exit_code" in body and body.get("exit_code") is not None:
        parts.append(f"exit {body.get('exit_code')}")
    if kind in ("turn_end", "agent_end"):
        parts.append(_usage(body.get("usage")))
    return " ".join(p for p in parts if p)


class Passes:
    """The passes of one lane (FORMAT.md 4.17, this module) by name, over :attr:`.views.Lane.rounds`'s flat
    ``(turn, first, last)`` triples: three C-speed slices (a lane of 500,000 passes: about 10 ms), nothing per
    pass built. Pass ``k`` runs from event ``firsts[k]`` to event ``lasts[k]`` (event indexes in the lane;
    -1: no later event closed it, it runs to the lane's end); ``turns[k]`` is its turn number (-1: its
    ``turn_start`` carries no integer turn). Passes are disjoint and in event order."""

    __slots__ = ("turns", "firsts", "lasts")

    def __init__(self, rounds: array) -> None:
        self.turns, self.firsts, self.lasts = rounds[0::3], rounds[1::3], rounds[2::3]

    def __len__(self) -> int:
        return len(self.firsts)

    def turn(self, k: int) -> int | None:
        """Pass ``k``'s turn number, ``None`` when its ``turn_start`` gave none."""
        t = self.turns[k]
        return None if t < 0 else t

    def last(self, k: int) -> int | None:
        """Pass ``k``'s last event index, ``None`` when it runs to the lane's end."""
        b = self.lasts[k]
        return None if b < 0 else b

    def containing(self, e: int) -> int | None:
        """The pass event ``e`` belongs to (by bisection over the first events), ``None`` before the first pass
        or between passes."""
        k = bisect_right(self.firsts, e) - 1
        if k < 0 or (self.lasts[k] >= 0 and e > self.lasts[k]):
            return None
        return k

    def turn_of(self, e: int) -> int | None:
        """The turn number of the pass event ``e`` belongs to, ``None`` when it is in no pass or its pass has no
        turn number."""
        k = self.containing(e)
        return None if k is None else self.turn(k)
