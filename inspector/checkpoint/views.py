"""Compact, picklable views of a decoded payload for the window's timeline and transcript (issue 11).

Built where the payload is decoded (a worker thread, or the verifier's process for large files),
so the window never walks the document on its GUI thread. No Qt. Flat loops only.

* :class:`Timeline`: one :class:`Lane` per run record (FORMAT.md 4.5) with its events (4.7) as
  parallel arrays (sequence, timestamp, kind code), tool rounds (``turn_start``..``turn_end``),
  tool spans (``tool_start``..``tool_end`` by id), the source run and the resume boundary of the
  loop checkpoint (4.6).
* :class:`Transcript`: the session's messages (4.4) as rows of blocks with short previews, tool
  calls paired with their results by tool-call id, and where the resume boundary falls.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field

import orjson

__all__ = ["Timeline", "Lane", "Transcript", "MessageRow", "Block", "build_views", "EVENT_KINDS", "CATEGORY",
           "TERMINAL", "PREVIEW_CHARS"]

#: Wire types of ``AgentEvent`` in declaration order (FORMAT.md 4.7); code = index, unknown = len.
EVENT_KINDS = (
    "agent_start", "agent_mode_changed", "turn_start", "text_delta", "reasoning_delta", "tool_start",
    "tool_input_delta", "tool_request_bound", "tool_execution_start", "tool_end", "tool_output_delta", "turn_end",
    "agent_end", "error", "confirmation_required", "confirmation_received", "confirmation_timeout",
    "external_task_pending", "external_task_completed", "permission_denied", "context_resolving",
    "context_resolved", "run_capability_bound", "model_presentation_bound", "model_input_bound",
    "model_usage_bound", "cognitive_context_bound", "command_dead_lettered", "command_retry", "queue_alert",
    "task_updated", "memory_stored", "memory_recalled", "memories_searched", "memory_cleared", "subagent_start",
    "subagent_progress", "subagent_end", "planning_start", "planning_end", "step_start", "step_end",
    "goal_extracted", "goal_progress", "goal_achieved", "context_compacted", "run_control_applied",
    "persistence_failed", "budget_threshold_hit", "passivation_requested", "peer_invocation",
)
_CODE = {k: i for i, k in enumerate(EVENT_KINDS)}

#: Mark category per kind: ``run`` (agent start/end), ``turn``, ``tool``, ``model``, ``cognitive``,
#: ``error`` or ``other``.
CATEGORY = {k: "other" for k in EVENT_KINDS}
CATEGORY.update({k: "run" for k in ("agent_start", "agent_end")})
CATEGORY.update({k: "turn" for k in ("turn_start", "turn_end")})
CATEGORY.update({k: "tool" for k in ("tool_start", "tool_input_delta", "tool_request_bound", "tool_execution_start",
                                     "tool_end", "tool_output_delta", "confirmation_required",
                                     "confirmation_received", "confirmation_timeout")})
CATEGORY.update({k: "model" for k in ("text_delta", "reasoning_delta", "model_presentation_bound",
                                      "model_input_bound", "model_usage_bound", "run_capability_bound")})
CATEGORY["cognitive_context_bound"] = "cognitive"
CATEGORY.update({k: "error" for k in ("error", "permission_denied", "command_dead_lettered", "persistence_failed")})

TERMINAL = ("completed", "failed", "cancelled")
#: Characters of text kept per block (the rest is read from the file on "show all").
PREVIEW_CHARS = 600
_DETAIL_CHARS = 120


@dataclass
class Lane:
    """One run record. ``seq``/``ts``/``kind`` are parallel arrays over its events (``kind`` codes
    index :data:`EVENT_KINDS`, ``len(EVENT_KINDS)`` for an unknown type); ``details`` maps an event
    index to a short description (ids, turn numbers, error text); ``rounds`` are ``(turn, first,
    last)`` event indexes (``last`` ``None`` when the round did not end); ``tools`` are ``(id, name,
    first, last)`` likewise; ``boundary`` is the event index after which the resume continues
    (source run only), ``None`` elsewhere; ``index`` the run's position in ``run_records``."""

    index: int
    id: str
    status: str
    created_ms: int
    updated_ms: int
    event_count: int
    source: bool = False
    seq: array = field(default_factory=lambda: array("q"))
    ts: array = field(default_factory=lambda: array("q"))
    kind: bytearray = field(default_factory=bytearray)
    details: dict = field(default_factory=dict)
    rounds: list = field(default_factory=list)
    tools: list = field(default_factory=list)
    boundary: int | None = None

    @property
    def terminal(self) -> bool:
        """True for ``completed``/``failed``/``cancelled`` (FORMAT.md 4.5 ``is_terminal``)."""
        return self.status in TERMINAL

    def pointer(self, e: int | None = None) -> str:
        """JSON Pointer of the run record, or of its event ``e``."""
        base = f"/snapshot/run_records/{self.index}"
        return base if e is None else f"{base}/events/{e}"


@dataclass
class Timeline:
    """The runs as lanes; ``boundary_turn``/``checkpoint_ms``/``source_run`` from the loop checkpoint
    (``None`` without one)."""

    lanes: list
    source_run: str | None = None
    boundary_turn: int | None = None
    checkpoint_ms: int | None = None

    @property
    def event_total(self) -> int:
        """Number of events in all lanes."""
        return sum(len(x.seq) for x in self.lanes)


@dataclass
class Block:
    """One content block: ``kind`` (``text``, ``reasoning``, ``image``, ``tool_use``, ``tool_result``),
    ``text`` (a preview of at most :data:`PREVIEW_CHARS`), ``length`` (characters in full),
    ``pointer`` (of the block, or of its text for ``text``), ``tool_id``/``name`` for tool blocks,
    ``is_error`` for results, ``pair`` (the message index of the other half of a tool call, or
    ``None`` when it has none), ``media``/``size`` for images (base64 characters)."""

    kind: str
    text: str = ""
    length: int = 0
    pointer: str = ""
    tool_id: str | None = None
    name: str | None = None
    is_error: bool | None = None
    pair: int | None = None
    media: str | None = None
    size: int = 0


@dataclass
class MessageRow:
    """One message: ``role``, ``blocks``, ``pointer``."""

    role: str
    blocks: list
    pointer: str


@dataclass
class Transcript:
    """The session's messages; ``boundary`` is the number of messages before the resume boundary
    (``None`` without a loop checkpoint); ``boundary_note`` says how it was placed."""

    messages: list
    boundary: int | None = None
    boundary_note: str = ""


def _clip(s, n=PREVIEW_CHARS) -> str:
    s = s if isinstance(s, str) else str(s)
    return s if len(s) <= n else s[:n]


def _detail(body: dict) -> str | None:
    parts = []
    for key in ("turn", "id", "tool_id", "name", "tool_name", "message", "exit_code", "error", "reason", "task_id"):
        if key in body and body[key] is not None and not isinstance(body[key], (dict, list)):
            parts.append(f"{key} {body[key]}")
    if body.get("type") == "cognitive_context_bound":
        b = body.get("binding") or {}
        parts.append(f"lifecycle generation {b.get('lifecycleGeneration')}")
    if not parts:
        return None
    return _clip(", ".join(parts), _DETAIL_CHARS)


def build_timeline(pay: dict) -> Timeline:
    """The :class:`Timeline` of a decoded payload (serialized form)."""
    snap = pay.get("snapshot") or {}
    lr = pay.get("logical_resume")
    src = lr.get("run_id") if lr else None
    tl = Timeline([], src, lr.get("turn") if lr else None, lr.get("checkpoint_ms") if lr else None)
    unknown = len(EVENT_KINDS)
    for r, rec in enumerate(snap.get("run_records") or ()):
        s = rec.get("snapshot") or {}
        lane = Lane(r, str(s.get("id")), str(s.get("status")), s.get("created_at_ms", 0), s.get("updated_at_ms", 0),
                    s.get("event_count", 0), source=(src is not None and s.get("id") == src))
        open_rounds: dict = {}
        open_tools: dict = {}
        last_end_before_cut = None
        last_before_cut = None
        for e, ev in enumerate(rec.get("events") or ()):
            body = ev.get("event") or {}
            t = body.get("type")
            lane.seq.append(ev.get("sequence", 0))
            ts = ev.get("timestamp_ms", 0)
            lane.ts.append(ts)
            lane.kind.append(_CODE.get(t, unknown))
            d = _detail(body)
            if d:
                lane.details[e] = d
            if t == "turn_start":
                open_rounds[body.get("turn")] = len(lane.rounds)
                lane.rounds.append((body.get("turn"), e, None))
            elif t == "turn_end":
                k = open_rounds.pop(body.get("turn"), None)
                if k is None:
                    lane.rounds.append((body.get("turn"), e, e))
                else:
                    lane.rounds[k] = (lane.rounds[k][0], lane.rounds[k][1], e)
                if lane.source and (tl.checkpoint_ms is None or ts <= tl.checkpoint_ms) \
                        and body.get("turn") == tl.boundary_turn:
                    last_end_before_cut = e
            elif t in ("tool_start", "tool_end"):
                tid = body.get("id")
                if t == "tool_start":
                    open_tools[tid] = len(lane.tools)
                    lane.tools.append((tid, body.get("name"), e, None))
                else:
                    k = open_tools.pop(tid, None)
                    if k is None:
                        lane.tools.append((tid, body.get("name"), e, e))
                    else:
                        lane.tools[k] = (tid, lane.tools[k][1], lane.tools[k][2], e)
            if lane.source and (tl.checkpoint_ms is None or ts <= tl.checkpoint_ms):
                last_before_cut = e
        if lane.source:
            # after the turn_end of the last completed round if recorded, else after the last event
            # before checkpoint_ms (-1: before the first event)
            lane.boundary = last_end_before_cut if last_end_before_cut is not None else (
                last_before_cut if last_before_cut is not None else -1)
        tl.lanes.append(lane)
    return tl


def _blocks(content, base: str) -> list:
    out = []
    for j, b in enumerate(content or ()):
        if not isinstance(b, dict):
            continue
        ptr = f"{base}/content/{j}"
        t = b.get("type")
        if t == "text":
            s = b.get("text") or ""
            out.append(Block("text", _clip(s), len(s), ptr + "/text"))
        elif t == "image":
            src = b.get("source") or {}
            data = src.get("data") or ""
            out.append(Block("image", pointer=ptr, media=src.get("media_type"), size=len(data)))
        elif t == "tool_use":
            s = orjson.dumps(b.get("input")).decode()
            out.append(Block("tool_use", _clip(s), len(s), ptr, tool_id=b.get("id"), name=b.get("name")))
        elif t == "tool_result":
            c = b.get("content")
            if isinstance(c, list):
                texts = [x.get("text", "") for x in c if isinstance(x, dict) and x.get("type") == "text"]
                images = sum(1 for x in c if isinstance(x, dict) and x.get("type") == "image")
                s = "\n".join(texts) + (f"\n[{images} image(s)]" if images else "")
            else:
                s = c if isinstance(c, str) else ""
            out.append(Block("tool_result", _clip(s), len(s), ptr, tool_id=b.get("tool_use_id"),
                             is_error=b.get("is_error")))
        else:
            out.append(Block(str(t), "", 0, ptr))
    return out


def build_transcript(pay: dict) -> Transcript:
    """The :class:`Transcript` of a decoded payload's session messages."""
    session = ((pay.get("snapshot") or {}).get("session")) or {}
    msgs = session.get("messages") or []
    rows = []
    calls: dict = {}
    for i, m in enumerate(msgs):
        base = f"/snapshot/session/messages/{i}"
        blocks = _blocks(m.get("content"), base)
        if m.get("reasoning_content"):
            rc = m["reasoning_content"]
            blocks.insert(0, Block("reasoning", _clip(rc), len(rc), base + "/reasoning_content"))
        for b in blocks:
            if b.kind == "tool_use":
                calls.setdefault(b.tool_id, (i, b))
            elif b.kind == "tool_result" and b.tool_id in calls:
                ci, cb = calls[b.tool_id]
                b.pair, b.name = ci, cb.name
                if cb.pair is None:
                    cb.pair = i
        rows.append(MessageRow(str(m.get("role")), blocks, base))
    tr = Transcript(rows)
    lr = pay.get("logical_resume")
    if lr is not None:
        lm = lr.get("messages") or []
        n = len(lm)
        if n <= len(msgs) and lm == msgs[:n]:
            tr.boundary = n
            tr.boundary_note = (f"the loop checkpoint holds the first {n} of these messages; the resume continues "
                                f"after message {n}")
        else:
            tr.boundary = len(msgs)
            tr.boundary_note = (f"the loop checkpoint holds {n} messages of its own, not the first {n} of the "
                                f"session's; shown at the end")
    return tr


def build_views(pay: dict) -> tuple[Timeline, Transcript]:
    """Both views of a decoded payload."""
    return build_timeline(pay), build_transcript(pay)
