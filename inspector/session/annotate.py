"""Human summaries for tree rows: messages, tool calls paired with results, runs, timestamps.

Qt-free. Summaries are display only: they never decide a verdict.
"""

from __future__ import annotations

import datetime as _dt
import re

from inspector.session.visible import preview as _visible_preview
from inspector.session.visible import visible as _visible

__all__ = ["summary", "timestamp_text", "preview", "ToolPairs", "is_timestamp_key"]

_MSG = re.compile(r"^(/snapshot/session|/logical_resume)/messages/(\d+)$")
_BLOCK = re.compile(r"^(/snapshot/session|/logical_resume)/messages/(\d+)/content/(\d+)$")
_RUN = re.compile(r"^/snapshot/run_records/(\d+)$")
_EVENT = re.compile(r"/run_records/\d+/events/\d+$")
_ART = re.compile(r"^/snapshot/artifacts/(\d+)$")
_TASK = re.compile(r"^/snapshot/subagent_tasks/(\d+)$")
_SECONDS_KEYS = {"created_at", "updated_at"}


def preview(text: str, n: int = 60) -> str:
    """First ``n`` characters of ``text`` on one line, invisible characters shown (␊, \\u2028),
    with an ellipsis when cut."""
    return _visible_preview(text, n)


def is_timestamp_key(key) -> str | None:
    """``"s"`` for Unix-seconds keys, ``"ms"`` for millisecond keys, else ``None``."""
    if not isinstance(key, str):
        return None
    if key in _SECONDS_KEYS:
        return "s"
    if key.endswith("_ms") or key == "timestamp_ms":
        return "ms"
    return None


def timestamp_text(value, unit: str) -> str | None:
    """``2023-11-14 22:13:20 UTC`` for an integer timestamp, ``None`` when out of range."""
    if not isinstance(value, int) or isinstance(value, bool):
        return None
    try:
        secs = value / 1000 if unit == "ms" else value
        d = _dt.datetime.fromtimestamp(secs, tz=_dt.timezone.utc)
    except (OverflowError, OSError, ValueError):
        return None
    fmt = "%Y-%m-%d %H:%M:%S.%f" if unit == "ms" else "%Y-%m-%d %H:%M:%S"
    s = d.strftime(fmt)
    if unit == "ms":
        s = s[:-3]
    return s + " UTC"


class ToolPairs:
    """tool_use id -> where it is used and where its result is, per messages array.

    Fed message by message (``add``), so it works on lazily loaded transcripts too.
    """

    def __init__(self):
        self.uses: dict[str, tuple[int, int, str]] = {}
        self.results: dict[str, tuple[int, int, object]] = {}
        self.seen: set[int] = set()

    def add(self, index: int, message) -> None:
        """Record the tool uses and results of message ``index`` (a decoded message dict; once per index)."""
        if index in self.seen or not isinstance(message, dict):
            return
        self.seen.add(index)
        for b, block in enumerate(message.get("content") or []):
            if not isinstance(block, dict):
                continue
            if block.get("type") == "tool_use" and isinstance(block.get("id"), str):
                self.uses[block["id"]] = (index, b, str(block.get("name")))
            elif block.get("type") == "tool_result" and isinstance(block.get("tool_use_id"), str):
                self.results[block["tool_use_id"]] = (index, b, block.get("is_error"))


def _block_text(block: dict) -> str:
    t = block.get("type")
    if t == "text":
        return f"text “{preview(str(block.get('text', '')), 48)}”"
    if t == "tool_use":
        return f"tool_use {block.get('name')}"
    if t == "tool_result":
        return "tool_result" + (" (error)" if block.get("is_error") is True else "")
    if t == "image":
        src = block.get("source") or {}
        return f"image {src.get('media_type', '')}".strip()
    return str(t)


def _usage(u: dict) -> str:
    return (f"{u.get('total_tokens')} tokens ({u.get('prompt_tokens')} prompt + "
            f"{u.get('completion_tokens')} completion)")


def summary(source: str, pointer: str, key, value, *, pairs: ToolPairs | None = None,
            resume_run_id: str | None = None) -> str | None:
    """A one-line description of a container row, or ``None`` for the generic one, shown through the window's
    one escaping (:func:`.visible.visible`: the ids and names it quotes come from the file).

    Args:
        source: ``payload`` or ``descriptor``. pointer: the row's JSON Pointer. key: its key.
        value: the decoded container value (``dict``/``list``), or ``None`` when too large.
        pairs: tool-call pairing for the messages array the row belongs to.
        resume_run_id: ``/logical_resume/run_id`` of the payload, to mark the resume source run.
    """
    text = _summary(source, pointer, key, value, pairs, resume_run_id)
    return None if text is None else _visible(text)


def _summary(source: str, pointer: str, key, value, pairs: ToolPairs | None, resume_run_id: str | None):
    if not isinstance(value, (dict, list)):
        return None
    if source == "descriptor":
        if pointer == "":
            return f"descriptor · {value.get('size_bytes')} payload bytes" if isinstance(value, dict) else None
        if pointer == "/snapshot" and isinstance(value, dict):
            return f"snapshot evidence · session {value.get('session_id')} · {value.get('size_bytes')} bytes"
        if pointer == "/logical_resume" and isinstance(value, dict):
            return (f"logical-resume evidence · run {value.get('source_run_id')} · "
                    f"{value.get('completed_tool_rounds')} completed tool rounds")
        return None
    if isinstance(value, dict):
        m = _MSG.match(pointer)
        if m:
            idx = int(m.group(2))
            if pairs is not None:
                pairs.add(idx, value)
            blocks = [_block_text(b) for b in value.get("content") or [] if isinstance(b, dict)]
            text = f"{value.get('role')} · " + (" + ".join(blocks) if blocks else "no content")
            if "reasoning_content" in value:
                text += " · with reasoning"
            return text
        m = _BLOCK.match(pointer)
        if m:
            return _block_summary(value, pairs)
        m = _RUN.match(pointer)
        if m:
            snap = value.get("snapshot") if isinstance(value.get("snapshot"), dict) else {}
            mark = " · ⟲ RESUME SOURCE" if resume_run_id is not None and snap.get("id") == resume_run_id else ""
            return f"run {snap.get('id')} · {snap.get('status')} · {len(value.get('events') or [])} events{mark}"
        if _EVENT.search(pointer):
            return _event_summary(value)
        if _ART.match(pointer):
            return f"{value.get('tool_name')} · {value.get('artifact_uri')} · {value.get('shown_bytes')} bytes shown"
        if _TASK.match(pointer):
            return f"{value.get('agent')} · {value.get('status')} · {preview(str(value.get('description', '')), 40)}"
        if pointer == "/snapshot":
            sess = value.get("session") if isinstance(value.get("session"), dict) else {}
            return (f"session {sess.get('id')} · {len(value.get('run_records') or [])} runs · "
                    f"{len(value.get('artifacts') or [])} artifacts")
        if pointer == "/snapshot/session":
            return (f"{value.get('id')} · {value.get('state')} · model {value.get('model_name', '—')} · "
                    f"{len(value.get('messages') or [])} messages")
        if pointer == "/snapshot/session/config":
            return f"“{value.get('name')}” · {value.get('workspace')}"
        if key in ("total_usage",) and "total_tokens" in value:
            return _usage(value)
        if key == "context_usage":
            return f"{value.get('used_tokens')} of {value.get('max_tokens')} tokens · {value.get('turns')} turns"
        if pointer == "/logical_resume":
            return (f"resume after {value.get('turn')} completed tool rounds · run {value.get('run_id')} · "
                    f"{value.get('tool_calls_count')} tool calls · {len(value.get('messages') or [])} messages")
        if pointer == "/logical_resume/convergence":
            return (f"{value.get('parse_error_count')} parse errors · {value.get('continuation_count')} continuations"
                    + (" · STALLED" if value.get("incomplete_response_stalled") else ""))
        if pointer.endswith("/snapshot") and "status" in value:
            return f"{value.get('id')} · {value.get('status')}"
    else:
        if pointer.endswith("/messages"):
            if pairs is not None:
                for i, msg in enumerate(value):
                    pairs.add(i, msg)
            return f"{len(value)} messages"
        if pointer == "/snapshot/run_records":
            return f"{len(value)} run records"
    return None


def _event_summary(record: dict) -> str | None:
    """``#12 tool_end (tool toolu_1)`` for a run event record ``{sequence, timestamp_ms, event}``
    (FORMAT.md run records): the sequence and the event's ``type``, then its tool call id or turn."""
    event = record.get("event")
    if not isinstance(event, dict):
        return None
    seq = record.get("sequence")
    text = (f"#{seq} " if isinstance(seq, int) and not isinstance(seq, bool) else "") + str(event.get("type", "?"))
    if isinstance(event.get("id"), str):
        return text + f" (tool {preview(event['id'], 40)})"
    if isinstance(event.get("turn"), int) and not isinstance(event.get("turn"), bool):
        return text + f" (turn {event['turn']})"
    return text


def _block_summary(block: dict, pairs: ToolPairs | None) -> str:
    t = block.get("type")
    if t == "tool_use":
        tid = block.get("id")
        res = pairs.results.get(tid) if pairs else None
        if res is None:
            where = "no result found" if pairs is not None else ""
        else:
            status = "error" if res[2] is True else "ok"
            where = f"→ result in message [{res[0]}] ({status})"
        return f"tool_use {block.get('name')} (id {tid}) {where}".rstrip()
    if t == "tool_result":
        tid = block.get("tool_use_id")
        use = pairs.uses.get(tid) if pairs else None
        err = " · ERROR" if block.get("is_error") is True else ""
        if use is None:
            return f"tool_result for {tid}{err}"
        return f"tool_result of {use[2]} from message [{use[0]}]{err}"
    return _block_text(block)
