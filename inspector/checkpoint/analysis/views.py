"""Compact, picklable views of a decoded payload for the window's timeline and transcript.

Built where the payload is decoded (a worker thread, or the verifier's process for large files),
so the window never walks the document on its GUI thread. No Qt. Flat loops only.

* :class:`Timeline`: one :class:`Lane` per run record (FORMAT.md 4.5) with its events (4.7) as
  parallel arrays (sequence, timestamp, kind code), the loop's passes with their model calls and
  tool calls as :mod:`.passes` reads them (FORMAT.md 4.17), the source run and the resume boundary
  of the loop checkpoint (4.6): after the last event of its pass, by event order.
* :class:`Transcript`: the session's messages (4.4) as roles and byte spans (a view reads a
  message from the file when it is shown: :func:`message_blocks`), tool calls paired with their
  results by tool-call id, and where the resume boundary falls.

Both are flat arrays and short lists, so they cross a process boundary in milliseconds.
"""

from __future__ import annotations

import operator
from array import array
from dataclasses import dataclass, field
from itertools import islice

import orjson

from inspector.checkpoint.analysis.passes import Passes, iter_passes
from inspector.checkpoint.read.door import text_of
from inspector.checkpoint.schema.model import AGENT_EVENT

__all__ = ["Timeline", "Lane", "Passes", "Transcript", "Block", "build_views", "message_blocks", "EVENT_KINDS", "CATEGORY",
           "TERMINAL", "PREVIEW_CHARS", "SHOWN_CHARS", "LARGE_MESSAGE", "bounded_blocks"]

#: Wire types of ``AgentEvent`` in declaration order (FORMAT.md 4.7); code = index, unknown = len.
EVENT_KINDS = AGENT_EVENT.names
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
#: Characters of text shown per block before "show all".
PREVIEW_CHARS = 600
#: A message whose bytes span at least this many bytes gets its blocks read when the views are built
#: (:attr:`Transcript.previews`), off the window's thread: decoding a 42 MB message there held it 80 ms
#: and more.
LARGE_MESSAGE = 256 * 1024
#: The most characters of one block's text any view shows ("Show all" included); the whole value stays
#: in the snapshot tree (Copy Value). A text view laying out 42 million characters stalls for seconds.
SHOWN_CHARS = 100_000


def _n(x) -> int:
    """An event index or -1 for ``None`` (:meth:`Lane.compact`'s flat form)."""
    return -1 if x is None else x


def _turn_code(t) -> int:
    """A pass number in :meth:`Lane.compact`'s flat form: -1 when it is not an integer."""
    return t if isinstance(t, int) else -1


@dataclass
class Lane:
    """One run record. ``seq``/``ts``/``kind`` are parallel arrays over its events (``kind`` codes
    index :data:`EVENT_KINDS`, ``len(EVENT_KINDS)`` for an unknown type); ``starts``/``ends`` the
    events' byte spans in the payload (``None`` when unavailable or not asked for: :func:`build_views`
    leaves them out); ``rounds`` are the passes of the loop (FORMAT.md 4.17, :mod:`.passes`) as
    ``(turn, first, last)`` event indexes (a pass runs from its first ``turn_start`` to the event before
    the next pass, its tools included), ``models`` their model calls ``(first, last)`` (``last`` ``None``
    when no ``turn_end`` closed it) and ``tools`` the tool calls ``(first, last)`` likewise (from
    ``tool_start``, or ``tool_execution_start`` without streaming, to ``tool_end``), all flattened into
    arrays by :meth:`compact` (read them with :meth:`iter_rounds`, :meth:`iter_models` and
    :meth:`iter_tools`); ``errors`` the indexes of error events; ``boundary`` the event index after
    which the resume continues (source run only: the last event of pass ``logical_resume.turn``;
    ``None`` when that pass is not among the retained events, and elsewhere); ``index`` the run's
    position in ``run_records``."""

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
    starts: array | None = None
    ends: array | None = None
    rounds: list = field(default_factory=list)
    models: list = field(default_factory=list)
    tools: list = field(default_factory=list)
    errors: list = field(default_factory=list)
    boundary: int | None = None
    seq_sorted: bool | None = None
    ts_sorted: bool | None = None
    pass_seq: array | None = None
    pass_ts: array | None = None
    kinds_present: bytes | None = None

    def compact(self) -> None:
        """Store ``rounds`` as ``array('q')`` triples and ``tools`` as ``(first, last)`` pairs (-1 for
        ``None``; tool ids and names are read from the file when shown), ``errors`` as an array:
        flat arrays cross a process boundary and unpickle far faster than lists of tuples. Also sets
        ``seq_sorted``/``ts_sorted``: whether the sequences and the timestamps never decrease (the timeline
        draws a sorted lane by bisection; found here, off the window's thread: 45 ms a million events), and
        ``pass_seq``/``pass_ts``: the sequence and the timestamp of each pass's first event (the timeline finds
        a pixel column's first pass by bisection over them, in C), and ``kinds_present``: the kind codes its events
        have, sorted (the Events tab offers those only)."""
        self.kinds_present = bytes(sorted(set(self.kind)))
        self.seq_sorted = all(map(operator.le, self.seq, islice(self.seq, 1, None)))
        self.ts_sorted = all(map(operator.le, self.ts, islice(self.ts, 1, None)))
        if type(self.rounds) is not array:  # else appended flat already (:meth:`add_pass`)
            self.rounds = array("q", [v for t, a, b in self.rounds for v in (_turn_code(t), a, _n(b))])
            self.models = array("q", [v for a, b in self.models for v in (a, _n(b))])
            self.tools = array("q", [v for _id, _name, a, b in self.tools for v in (a, _n(b))])
        firsts = self.rounds[1::3]
        self.pass_seq = array("q", map(self.seq.__getitem__, firsts))
        self.pass_ts = array("q", map(self.ts.__getitem__, firsts))
        self.errors = array("q", self.errors)

    def add_pass(self, p) -> None:
        """Append one :class:`.passes.Pass` to ``rounds``, ``models`` and ``tools`` in the flat form
        :meth:`compact` leaves (no tuple per pass: a run of a million events makes half a million)."""
        if type(self.rounds) is not array:
            self.rounds, self.models, self.tools = array("q", self.rounds), array("q", self.models), array("q", self.tools)
        self.rounds.extend((_turn_code(p.turn), p.first_index, _n(p.last_index)))
        a, b = p.model_call_index
        self.models.extend((a, _n(b)))
        for c in p.tool_calls:
            self.tools.extend((c.first_index, _n(c.last_index)))

    def passes(self) -> Passes:
        """The lane's passes by name (:class:`Passes`), sliced once and kept while ``rounds`` is the same array of
        the same length (the timeline's text asks for them per event line, its painter per paint: a lane of
        500,000 passes is 10 ms a slicing)."""
        rounds = self.rounds
        kept = self.__dict__.get("_passes")
        if kept is not None and kept[0] is rounds and kept[1] == len(rounds):
            return kept[2]
        if type(rounds) is not array:  # (before compact: the triples as built)
            return Passes(array("q", [v for t, a, b in rounds for v in (_turn_code(t), a, _n(b))]))
        passes = Passes(rounds)
        self.__dict__["_passes"] = (rounds, len(rounds), passes)
        return passes

    def __getstate__(self) -> dict:  # pickled without the kept passes (they are slices of ``rounds``)
        state = dict(self.__dict__)
        state.pop("_passes", None)
        return state

    def iter_rounds(self):
        """``(turn, first, last or None)`` per tool round (after :meth:`compact`)."""
        r = self.rounds
        for k in range(0, len(r), 3):
            yield r[k], r[k + 1], (None if r[k + 2] < 0 else r[k + 2])

    def iter_models(self):
        """``(first, last or None)`` event indexes per pass's model call (after :meth:`compact`)."""
        m = self.models
        for k in range(0, len(m), 2):
            yield m[k], (None if m[k + 1] < 0 else m[k + 1])

    def iter_tools(self):
        """``(first, last or None)`` event indexes per tool call (after :meth:`compact`)."""
        t = self.tools
        for k in range(0, len(t), 2):
            yield t[k], (None if t[k + 1] < 0 else t[k + 1])

    @property
    def terminal(self) -> bool:
        """True for ``completed``/``failed``/``cancelled`` (FORMAT.md 4.5 ``is_terminal``)."""
        return self.status in TERMINAL

    def pointer(self, e: int | None = None) -> str:
        """JSON Pointer of the run record, or of its event ``e``."""
        base = f"/snapshot/run_records/{self.index}"
        return base if e is None else f"{base}/events/{e}"

    def kind_name(self, e: int) -> str:
        """The wire type of event ``e`` (``?`` when unknown)."""
        k = self.kind[e]
        return EVENT_KINDS[k] if k < len(EVENT_KINDS) else "?"


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

    def kinds(self) -> list[int]:
        """The kind codes (:data:`EVENT_KINDS` indexes; ``len(EVENT_KINDS)`` for an unknown type) the events of
        any lane have, sorted (from :meth:`Lane.compact`, else counted here)."""
        found: set[int] = set()
        for lane in self.lanes:
            found.update(lane.kinds_present if lane.kinds_present is not None else set(lane.kind))
        return sorted(found)


@dataclass
class Block:
    """One content block as shown: ``kind`` (``text``, ``reasoning``, ``image``, ``tool_use``,
    ``tool_result``), ``text`` (whole), ``pointer``, ``tool_id``/``name`` for tool blocks,
    ``is_error`` for results, ``media``/``size`` for images (base64 characters); ``whole_chars`` the
    length (characters) of the whole text when ``text`` holds only its first :data:`SHOWN_CHARS`
    (:func:`bounded_blocks`), else ``None``."""

    kind: str
    text: str = ""
    pointer: str = ""
    tool_id: str | None = None
    name: str | None = None
    is_error: bool | None = None
    media: str | None = None
    size: int = 0
    whole_chars: int | None = None


class Roles:
    """A message role per message, stored as one byte each (``names`` holds the distinct roles)."""

    def __init__(self, roles: list):
        self.names: list = []
        index: dict = {}
        self.codes = array("H")
        for r in roles:
            k = index.get(r)
            if k is None:
                k = index[r] = len(self.names)
                self.names.append(r)
            self.codes.append(k)

    def __len__(self) -> int:
        return len(self.codes)

    def __getitem__(self, i: int) -> str:
        return self.names[self.codes[i]]

    def __eq__(self, other) -> bool:
        """Equal when every message has the same role (the views built twice compare equal)."""
        return isinstance(other, Roles) and [self[i] for i in range(len(self))] == [other[i] for i in range(len(other))]

    __hash__ = None  # mutable: no hash


#: The JSON Pointer of the session's messages.
SESSION_MESSAGES = "/snapshot/session/messages"
#: The JSON Pointer of the loop checkpoint's own messages.
RESUME_MESSAGES = "/logical_resume/messages"


@dataclass
class Transcript:
    """The session's messages, read lazily: ``roles`` per message, ``starts``/``ends`` their byte
    spans in the payload (``None`` when unavailable), ``calls`` maps a tool-call id to ``(call
    message, result message or -1)``, ``boundary`` the number of messages before the resume
    boundary (``None`` without a loop checkpoint), ``boundary_note`` how it was placed, ``previews``
    the :func:`bounded_blocks` of each message of at least :data:`LARGE_MESSAGE` bytes (message index ->
    blocks), read while the views are built so that no view decodes such a message again."""

    roles: list
    starts: array | None
    ends: array | None
    calls: dict = field(default_factory=dict)
    boundary: int | None = None
    boundary_note: str = ""
    previews: dict = field(default_factory=dict)
    #: the JSON Pointer of the message list: the session's (``/snapshot/session/messages``) or the loop
    #: checkpoint's own (``/logical_resume/messages``, FORMAT.md 4: what the resumed run sends first)
    base: str = SESSION_MESSAGES
    #: the loop checkpoint's own messages as a transcript of their own (on the session's transcript, when the
    #: payload has a loop checkpoint), else ``None``
    resume_point: Transcript | None = None

    def __len__(self) -> int:
        return len(self.roles)

    def pointer(self, i: int) -> str:
        """JSON Pointer of message ``i``."""
        return f"{self.base}/{i}"

    def index_of(self, pointer: str) -> int | None:
        """The message ``pointer`` is at or inside (``/logical_resume/messages/2/content/0`` -> 2), or ``None``
        when it is not in this list."""
        prefix = self.base + "/"
        if not pointer.startswith(prefix):
            return None
        tok = pointer[len(prefix):].split("/", 1)[0]
        return int(tok) if tok.isdigit() and int(tok) < len(self.roles) else None


def build_timeline(pay: dict, item_spans=None) -> Timeline:
    """The :class:`Timeline` of a decoded payload (serialized form); ``item_spans(pointer, items)``
    gives the events' spans (:meth:`.context.Context.item_spans`), left out (``None``) without it."""
    snap = pay.get("snapshot") or {}
    lr = pay.get("logical_resume")
    src = lr.get("run_id") if lr else None
    tl = Timeline([], src, lr.get("turn") if lr else None, lr.get("checkpoint_ms") if lr else None)
    unknown = len(EVENT_KINDS)
    errors = {_CODE[k] for k, c in CATEGORY.items() if c == "error"}
    for r, rec in enumerate(snap.get("run_records") or ()):
        s = rec.get("snapshot") or {}
        lane = Lane(r, str(s.get("id")), str(s.get("status")), s.get("created_at_ms", 0), s.get("updated_at_ms", 0),
                    s.get("event_count", 0), source=(src is not None and s.get("id") == src))
        events = rec.get("events") or []
        spans = item_spans(f"/snapshot/run_records/{r}/events", events) if item_spans is not None else None
        if spans is not None:
            lane.starts, lane.ends = spans
        for e, ev in enumerate(events):
            body = ev.get("event") or {}
            t = body.get("type")
            lane.seq.append(ev.get("sequence", 0))
            lane.ts.append(ev.get("timestamp_ms", 0))
            code = _CODE.get(t, unknown)
            lane.kind.append(code)
            if code in errors:
                lane.errors.append(e)
        # passes, model calls and tool calls as the loop writes them; the boundary by event order,
        # never by timestamp_ms (the host clock and the run store's may disagree: FORMAT.md 4.17)
        # (one pass at a time: a run of a million events makes half a million of them)
        boundary = None
        for p in iter_passes(events):
            lane.add_pass(p)
            if p.turn == tl.boundary_turn:
                boundary = p.last_index
        if lane.source:
            lane.boundary = boundary
        lane.compact()
        tl.lanes.append(lane)
    return tl


def message_blocks(msg: dict, base: str) -> list:
    """The :class:`Block` list of one decoded message (``base``: its JSON Pointer). Its text fields may be
    ``str`` or, as the typed fast read leaves large ones, ``memoryview`` string tokens (:func:`.door.text_of`)."""
    out = []
    if msg.get("reasoning_content"):
        out.append(Block("reasoning", str(text_of(msg["reasoning_content"])), base + "/reasoning_content"))
    for j, b in enumerate(msg.get("content") or ()):
        if not isinstance(b, dict):
            continue
        ptr = f"{base}/content/{j}"
        t = b.get("type")
        if t == "text":
            out.append(Block("text", str(text_of(b.get("text")) or ""), ptr))
        elif t == "image":
            src = b.get("source") or {}
            data = src.get("data") or ""
            out.append(Block("image", "", ptr, media=src.get("media_type"), size=len(data)))
        elif t == "tool_use":
            out.append(Block("tool_use", orjson.dumps(b.get("input")).decode(), ptr, tool_id=b.get("id"),
                             name=b.get("name")))
        elif t == "tool_result":
            c = text_of(b.get("content"))
            if isinstance(c, list):
                texts = [str(text_of(x.get("text", ""))) for x in c if isinstance(x, dict) and x.get("type") == "text"]
                images = sum(1 for x in c if isinstance(x, dict) and x.get("type") == "image")
                text = "\n".join(texts) + (f"\n[{images} image(s)]" if images else "")
            else:
                text = c if isinstance(c, str) else ""
            out.append(Block("tool_result", text, ptr, tool_id=b.get("tool_use_id"), is_error=b.get("is_error")))
        else:
            out.append(Block(str(t), "", ptr))
    return out


def bounded_blocks(msg: dict, base: str) -> list:
    """:func:`message_blocks` with each text cut to its first :data:`SHOWN_CHARS` characters
    (``Block.whole_chars`` then says how long it was)."""
    blocks = message_blocks(msg, base)
    for b in blocks:
        if len(b.text) > SHOWN_CHARS:
            b.whole_chars = len(b.text)
            b.text = b.text[:SHOWN_CHARS]
    return blocks


def _transcript(msgs: list, base: str, item_spans) -> Transcript:
    """The :class:`Transcript` of the message list ``msgs`` at JSON Pointer ``base``: roles, spans, the previews
    of large messages, and each tool call paired with its result by tool-call id."""
    spans = item_spans(base, msgs) if item_spans is not None else None
    msgs = [m if isinstance(m, dict) else {} for m in msgs]  # (a message that is no object: no role, no block)
    tr = Transcript(Roles([str(m.get("role")) for m in msgs]), *(spans or (None, None)), base=base)
    if spans is not None:
        starts, ends = spans
        for i, m in enumerate(msgs):
            if ends[i] - starts[i] >= LARGE_MESSAGE:
                tr.previews[i] = bounded_blocks(m, tr.pointer(i))
    for i, m in enumerate(msgs):
        for b in m.get("content") or ():
            if not isinstance(b, dict):
                continue
            if b.get("type") == "tool_use":
                tr.calls.setdefault(b.get("id"), (i, -1))
            elif b.get("type") == "tool_result":
                c = tr.calls.get(b.get("tool_use_id"))
                if c is not None and c[1] < 0:
                    tr.calls[b.get("tool_use_id")] = (c[0], i)
    return tr


def build_transcript(pay: dict, item_spans=None) -> Transcript:
    """The :class:`Transcript` of a decoded payload's session messages, with the resume boundary placed in it
    (FORMAT.md 4: the loop checkpoint's messages are what the resumed run sends first), and, when there is a
    loop checkpoint, its own messages as :attr:`Transcript.resume_point` (boundary after the last of them: the
    resume continues after them). A live export's session holds no message yet (they are only in the loop
    checkpoint), so the window shows the resume point's list for it."""
    session = ((pay.get("snapshot") or {}).get("session")) or {}
    msgs = session.get("messages") or []
    if not isinstance(msgs, list):
        msgs = []
    tr = _transcript(msgs, SESSION_MESSAGES, item_spans)
    lr = pay.get("logical_resume")
    if isinstance(lr, dict):
        lm = lr.get("messages") or []
        if not isinstance(lm, list):
            lm = []
        rp = _transcript(lm, RESUME_MESSAGES, item_spans)
        rp.boundary = len(lm)
        rp.boundary_note = (f"the resume continues after the last of these {len(lm)} message(s): the resumed run "
                            "sends them first" if lm else "the loop checkpoint holds no message")
        tr.resume_point = rp
        n = len(lm)
        if n <= len(msgs) and lm == msgs[:n]:
            tr.boundary = n
            tr.boundary_note = (f"the loop checkpoint holds the first {n} of these messages; the resume continues "
                                f"after message {n}")
        else:
            tr.boundary = len(msgs)
            tr.boundary_note = (f"the loop checkpoint holds {n} messages of its own, not the first {n} of the "
                                f"session's; the resume continues from those")
    return tr


def build_views(pay: dict, item_spans=None) -> tuple[Timeline, Transcript]:
    """Both views of a decoded payload: the transcript's message spans from ``item_spans``
    (:meth:`.context.Context.item_spans`), the timeline without its events' spans (``Lane.starts``
    ``None``: measured at 0.24 s of the verifier's time on the 247 MiB bench payload's 188,895 events, for
    a hover; the window finds a run's when it is first hovered, ``gui.resume.ResumePanes._lane_spans``)."""
    return build_timeline(pay), build_transcript(pay, item_spans)


class PackedViews:
    """Views pickled in small chunks (``chunks``: bytes), to cross a process boundary.

    Unpickling holds Python's GIL for the whole call; one chunk of :data:`LANES_PER_CHUNK` lanes
    takes a few milliseconds, so a thread that calls :meth:`unpack` lets the GUI thread run between
    chunks (the whole timeline of a 256 MiB checkpoint at once would hold it for ~100 ms).
    """

    LANES_PER_CHUNK = 64
    #: Elements of a lane's array that cross in one chunk of their own (1 MiB of ``array('q')``): a run of a
    #: million events held the interpreter lock 44-58 ms in one unpickling of its lane.
    ARRAY_PIECE = 1 << 17
    _ARRAYS = ("seq", "ts", "kind", "starts", "ends", "rounds", "models", "tools", "errors", "pass_seq", "pass_ts")

    def __init__(self, views: tuple):
        import pickle
        tl, tr = views
        head = Timeline([], tl.source_run, tl.boundary_turn, tl.checkpoint_ms)
        rp, tr.resume_point = tr.resume_point, None
        try:
            self.chunks = []
            self._pack_transcript(pickle, tr, (head, tr), "")
            if rp is not None:  # (the loop checkpoint's own messages: as long as the session's, at worst)
                self._pack_transcript(pickle, rp, ("resume_point", rp), "resume_point ")
        finally:
            tr.resume_point = rp
        n = self.LANES_PER_CHUNK
        for i in range(0, len(tl.lanes), n):
            self._pack_lanes(pickle, tl.lanes[i:i + n], i)

    def _pack_transcript(self, pickle, tr, first, tag: str) -> None:
        """``first`` (what holds ``tr``) as one chunk without ``tr``'s calls and previews, then those in chunks
        of their own, tagged ``tag + "calls"`` and ``tag + "previews"``."""
        calls, tr.calls = tr.calls, {}
        previews, tr.previews = tr.previews, {}
        try:
            self.chunks.append(pickle.dumps(first, protocol=pickle.HIGHEST_PROTOCOL))
        finally:
            tr.calls, tr.previews = calls, previews
        items = list(calls.items())
        self.chunks += [pickle.dumps((tag + "calls", items[i:i + 4096]), protocol=pickle.HIGHEST_PROTOCOL)
                        for i in range(0, len(items), 4096)]
        # a large message's preview holds up to SHOWN_CHARS characters a block: a few messages a chunk
        shown = list(previews.items())
        self.chunks += [pickle.dumps((tag + "previews", shown[i:i + 4]), protocol=pickle.HIGHEST_PROTOCOL)
                        for i in range(0, len(shown), 4)]

    def _pack_lanes(self, pickle, group: list, first: int) -> None:
        """One chunk for the lanes ``group`` (``first``: the first one's index), their long arrays left out and
        sent after it in pieces of :data:`ARRAY_PIECE` elements (``("array", lane, name, piece)``)."""
        piece = self.ARRAY_PIECE
        moved = []
        for j, lane in enumerate(group):
            for name in self._ARRAYS:
                a = getattr(lane, name, None)
                if a is not None and not isinstance(a, list) and len(a) > piece:
                    moved.append((first + j, lane, name, a))
                    setattr(lane, name, None)
        try:
            self.chunks.append(pickle.dumps(group, protocol=pickle.HIGHEST_PROTOCOL))
        finally:
            for _k, lane, name, a in moved:
                setattr(lane, name, a)
        for k, _lane, name, a in moved:
            self.chunks += [pickle.dumps(("array", k, name, a[s:s + piece]), protocol=pickle.HIGHEST_PROTOCOL)
                            for s in range(0, len(a), piece)]

    def unpack(self) -> tuple:
        """``(Timeline, Transcript)`` again, one chunk at a time."""
        import gc
        import pickle
        was = gc.isenabled()
        gc.disable()  # a full collection triggered by the new objects would hold the GIL for long
        try:
            return self._unpack(pickle)
        finally:
            if was:
                gc.enable()

    def _unpack(self, pickle) -> tuple:
        head, tr = pickle.loads(self.chunks[0])
        for c in self.chunks[1:]:
            part = pickle.loads(c)
            if isinstance(part, tuple) and part[0] == "array":
                _tag, k, name, piece = part
                lane = head.lanes[k]
                if getattr(lane, name) is None:
                    setattr(lane, name, piece)
                else:
                    getattr(lane, name).extend(piece)
            elif isinstance(part, tuple) and part[0] == "resume_point":
                tr.resume_point = part[1]
            elif isinstance(part, tuple):
                tag, _sep, what = part[0].rpartition(" ")
                t = tr.resume_point if tag == "resume_point" else tr
                (t.calls if what == "calls" else t.previews).update(part[1])
            else:
                head.lanes.extend(part)
        return head, tr
