"""``checkpoint-inspector timeline PAYLOAD [DESCRIPTOR] [--format text|json]``: a run's
events as the agent loop wrote them (FORMAT.md 4.17; :mod:`inspector.checkpoint.analysis.passes`).

JSON: ``{"runs": [{"run_id", "record", "passes": [{"turn", "first_sequence", "last_sequence",
"attempts", "model_call": {"first_sequence", "last_sequence"}, "tool_calls": [...]}]}],
"boundary": {"run_id", "after_sequence", "turn"} | null}``.

Text: one event per line, a compact table a developer can read in a terminal or pipe to ``grep``
(``SEQ  TIME  RUN  PASS  KIND  SUMMARY``; the resume boundary is a row of its own after the event it
follows; when there is none, the last line says why). Summaries are structural (turn numbers, tool
names and ids, usage), never message text, tool inputs or outputs; every line is terminal-safe.

It shows the events as written and does not verify them (``verify`` says whether the reference
accepts the checkpoint); a DESCRIPTOR given beside the payload only helps tell the two files apart.
Exit 0; 1 when the payload does not decode (serde's error on stderr, as P-PARSE); 2 for unreadable
input, a file that is not a checkpoint, a descriptor alone, or two payloads.
"""

from __future__ import annotations

from inspector import jsonschemas

import datetime as _dt
import json

from inspector.checkpoint import Context, not_a_checkpoint, pair_inputs
from inspector.checkpoint.analysis.passes import boundary_of, event_summary as summary, run_passes, timeline_json

from .termsafe import terminal_safe

__all__ = ["cmd_timeline", "run_timeline", "event_rows", "text_table"]


def _time(ms) -> str:
    if not isinstance(ms, int) or isinstance(ms, bool):
        return "-"
    try:
        t = _dt.datetime.fromtimestamp(ms / 1000, _dt.timezone.utc)
    except (OverflowError, OSError, ValueError):
        return str(ms)
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


def event_rows(pay: dict) -> list[tuple]:
    """``(sequence, timestamp_ms, run_id, turn or None, kind, summary, is_boundary)`` for every
    retained event of every run, in record and event order, with one boundary row
    (``is_boundary`` True) right after the event the resume continues from."""
    runs = ((pay or {}).get("snapshot") or {}).get("run_records") or []
    passes = run_passes(pay)
    b = boundary_of(pay, passes)
    rows = []
    for rp in passes:
        events = runs[rp.record].get("events") or []
        turn_of = {}
        for p in rp.passes:
            for j in range(p.first_index, p.last_index + 1):
                turn_of[j] = p.turn
        for j, ev in enumerate(events):
            body = ev.get("event") if isinstance(ev, dict) and isinstance(ev.get("event"), dict) else {}
            rows.append((ev.get("sequence"), ev.get("timestamp_ms"), rp.run_id, turn_of.get(j), body.get("type"),
                         summary(body), False))
            if b is not None and b.record == rp.record and b.after_index == j:
                rows.append((None, None, rp.run_id, b.turn, "resume-boundary", f"the loop checkpoint (pass {b.turn}) "
                             "resumes after this event", True))
    return rows


def boundary_reason(pay: dict) -> str | None:
    """Why there is no resume boundary (``None`` when there is one): no loop checkpoint, its source run
    is not in the snapshot, or its pass is not among that run's retained events."""
    lr = (pay or {}).get("logical_resume")
    if not isinstance(lr, dict):
        return "the payload has no loop checkpoint (logical_resume): nothing to resume"
    if boundary_of(pay) is not None:
        return None
    runs = ((pay or {}).get("snapshot") or {}).get("run_records") or []
    if not any((r.get("snapshot") or {}).get("id") == lr.get("run_id") for r in runs if isinstance(r, dict)):
        return f"the loop checkpoint's source run {lr.get('run_id')!r} is not in the snapshot"
    return (f"pass {lr.get('turn')} of run {lr.get('run_id')!r} (the loop checkpoint's) is not among the run's "
            "retained events")


def text_table(pay: dict) -> str:
    """The text form: a header and one line per event (see the module docstring), terminal-safe."""
    rows = event_rows(pay)
    head = ("SEQ", "TIME", "RUN", "PASS", "KIND", "SUMMARY")
    # escaped first, so the widths are those of what is printed
    cells = [tuple(terminal_safe("" if x is None else str(x)) for x in (
        seq, _time(ms) if not boundary else "", run, "-" if turn is None else turn, kind, text))
        for seq, ms, run, turn, kind, text, boundary in rows]
    widths = [max([len(head[i])] + [len(c[i]) for c in cells]) for i in range(5)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(head[:5], widths)) + "  " + head[5]]
    for c in cells:
        lines.append("  ".join(x.ljust(w) for x, w in zip(c[:5], widths)) + "  " + c[5])
    if not rows:
        lines.append("(no run events)")
    reason = boundary_reason(pay)
    if reason:
        lines.append(terminal_safe(f"(no resume boundary: {reason})"))
    return "\n".join(line.rstrip() for line in lines) + "\n"


def cmd_timeline(args, read, usage_error, out, err_out) -> int:
    """``timeline FILE...``: the payload's runs as passes and its resume boundary (text or JSON)."""
    files = [read(p) for p in args.files]
    reason = not_a_checkpoint(files)
    if reason:
        raise usage_error(reason)
    payload, _descriptor = pair_inputs(files)  # (PairingError: two payloads, two descriptors; exit 2)
    if payload is None or payload.data is None:
        raise usage_error("timeline needs a payload (the events are in the payload)")
    pay, err = Context(payload.data, None).pay_result  # the typed decode only: no rule is evaluated
    if err is not None:
        err_out(terminal_safe(f"checkpoint-inspector: the payload does not decode (P-PARSE: {err.text()})"))
        return 1
    if args.format == "json":
        doc = {"schema": jsonschemas.TIMELINE, **timeline_json(pay)}
        doc["boundary_reason"] = boundary_reason(pay)
        out(json.dumps(doc, indent=2, ensure_ascii=False) + "\n")
    else:
        out(text_table(pay))
    return 0


def run_timeline(args) -> int:
    """The ``timeline`` command as :mod:`.main` runs it: :func:`cmd_timeline` with the CLI's reader, usage
    error, standard output and standard error (:mod:`.common`)."""
    from .common import UsageError, err, out, read_file

    return cmd_timeline(args, read_file, UsageError, out, err)
