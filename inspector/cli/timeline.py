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

import orjson

from inspector.checkpoint import Context, not_a_checkpoint, pair_inputs
from inspector.checkpoint.verify import collector_paused
from inspector.checkpoint.analysis.passes import (
    BoundaryWatch, boundary_of, event_summary as summary, iter_passes, run_passes,
)

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


def event_rows(pay: dict, passes: list | None = None) -> list[tuple]:
    """``(sequence, timestamp_ms, run_id, turn or None, kind, summary, is_boundary)`` for every
    retained event of every run, in record and event order, with one boundary row
    (``is_boundary`` True) right after the event the resume continues from. ``passes``: the payload's
    :func:`~inspector.checkpoint.analysis.passes.run_passes` when the caller has them."""
    runs = ((pay or {}).get("snapshot") or {}).get("run_records") or []
    passes = run_passes(pay) if passes is None else passes
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


_UNSEEN = object()


def boundary_reason(pay: dict, runs: list | None = None, *, found=_UNSEEN) -> str | None:
    """Why there is no resume boundary (``None`` when there is one): no loop checkpoint, its source run
    is not in the snapshot, or its pass is not among that run's retained events. ``runs``: the payload's
    :func:`~inspector.checkpoint.analysis.passes.run_passes` when the caller has them; ``found``: the
    boundary itself (a :class:`~inspector.checkpoint.analysis.passes.Boundary` or ``None``) when the caller
    found it already."""
    lr = (pay or {}).get("logical_resume")
    if not isinstance(lr, dict):
        return "the payload has no loop checkpoint (logical_resume): nothing to resume"
    if (boundary_of(pay, runs) if found is _UNSEEN else found) is not None:
        return None
    runs = ((pay or {}).get("snapshot") or {}).get("run_records") or []
    if not any((r.get("snapshot") or {}).get("id") == lr.get("run_id") for r in runs if isinstance(r, dict)):
        return f"the loop checkpoint's source run {lr.get('run_id')!r} is not in the snapshot"
    return (f"pass {lr.get('turn')} of run {lr.get('run_id')!r} (the loop checkpoint's) is not among the run's "
            "retained events")


def text_table(pay: dict) -> str:
    """The text form: a header and one line per event (see the module docstring), terminal-safe."""
    passes = run_passes(pay)
    rows = event_rows(pay, passes)
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
    reason = boundary_reason(pay, passes)
    if reason:
        lines.append(terminal_safe(f"(no resume boundary: {reason})"))
    return "\n".join(line.rstrip() for line in lines) + "\n"


def _shifted(value, indent: int) -> bytes:
    """``value`` as orjson's two-space indented JSON, every line after the first ``indent`` spaces further right
    (a JSON string holds no raw newline, so each newline is a line break)."""
    text = orjson.dumps(value, option=orjson.OPT_INDENT_2)
    return text.replace(b"\n", b"\n" + b" " * indent) if indent else text


def _items(passes: list) -> bytes:
    """The items of the list ``passes`` as they stand inside a run's ``"passes": [...]`` (eight spaces in), each
    on its lines, comma-separated, starting with the newline before the first."""
    inner = orjson.dumps(passes, option=orjson.OPT_INDENT_2)[2:-2]  # "[\n" ... "\n]" off
    return b"\n      " + inner.replace(b"\n", b"\n      ")


def timeline_json_pieces(pay: dict, chunk: int = 10_000):
    """The ``timeline --format json`` document of a typed payload as consecutive pieces of UTF-8 bytes, the same
    bytes ``json.dumps(doc, indent=2, ensure_ascii=False) + "\\n"`` writes for ``doc = {"schema",
    **timeline_json(pay), "boundary_reason"}`` (:func:`~inspector.checkpoint.analysis.passes.timeline_json`; the module
    docstring's shape, FORMAT.md 4.17), made as the passes go by: at most ``chunk`` passes' dicts are held at a time
    and no pass outlives its piece (a run of a million events makes half a million passes). Raises
    ``orjson.JSONEncodeError`` only for a value a typed payload cannot hold (an integer beyond 64 bits)."""
    dumps = orjson.dumps
    watch = BoundaryWatch(pay)
    yield b'{\n  "schema": ' + dumps(jsonschemas.TIMELINE) + b',\n  "runs": ['
    runs = ((pay or {}).get("snapshot") or {}).get("run_records") or []
    first_run = True
    for record, rec in enumerate(runs):
        if not isinstance(rec, dict):
            continue
        run_id = (rec.get("snapshot") or {}).get("id")
        watch.start(run_id, record)
        yield ((b"\n" if first_run else b",\n") + b'    {\n      "run_id": ' + _shifted(run_id, 6)
               + b',\n      "record": ' + dumps(record) + b',\n      "passes": [')
        first_run = False
        held: list = []
        first_piece = True
        for p in iter_passes(rec.get("events") or []):
            watch.see(p)
            held.append(p.to_json())
            if len(held) == chunk:
                yield (b"" if first_piece else b",") + _items(held)
                held, first_piece = [], False
        if held:
            yield (b"" if first_piece else b",") + _items(held)
            first_piece = False
        watch.end()
        yield (b"]" if first_piece else b"\n      ]") + b"\n    }"
    b = watch.boundary
    yield ((b"]" if first_run else b"\n  ]") + b',\n  "boundary": ' + _shifted(None if b is None else b.to_json(), 2)
           + b',\n  "boundary_reason": ' + _shifted(boundary_reason(pay, found=b), 2) + b"\n}\n")


def cmd_timeline(args, read, usage_error, out, err_out) -> int:
    """``timeline FILE...``: the payload's runs as passes and its resume boundary (text or JSON)."""
    files = [read(p) for p in args.files]
    reason = not_a_checkpoint(files)
    if reason:
        raise usage_error(reason)
    payload, _descriptor = pair_inputs(files)  # (PairingError: two payloads, two descriptors; exit 2)
    if payload is None or payload.data is None:
        raise usage_error("timeline needs a payload (the events are in the payload)")
    with collector_paused():  # millions of containers and no cycles, read and built from
        # the typed decode only, no rule evaluated; the three text fields may stay slices of the file (raw_text):
        # no summary reads them (FORMAT.md 4.17: structure, never message text or tool output)
        pay, err = Context(payload.data, None, raw_text=True).pay_result
        if err is not None:
            err_out(terminal_safe(f"checkpoint-inspector: the payload does not decode (P-PARSE: {err.text()})"))
            return 1
        if args.format == "json":
            for piece in timeline_json_pieces(pay):
                if out(piece) is False:  # the reader went away (``| head``): the rest is not made
                    break
            return 0
        text = text_table(pay)
    out(text)
    return 0


def run_timeline(args) -> int:
    """The ``timeline`` command as :mod:`.main` runs it: :func:`cmd_timeline` with the CLI's reader, usage
    error, standard output and standard error (:mod:`.common`)."""
    from .common import UsageError, err, out, read_file

    return cmd_timeline(args, read_file, UsageError, out, err)
