"""The audit's summary (Qt-free): totals from the records, the sessions (FORMAT.md 4.18), the slowest and
largest files, wall time and throughput; as text (stdout), JSON (``--summary``) and a self-contained HTML page
with inline SVG bar charts (``--summary-html``: no script, no external style sheet, every value HTML-escaped)."""

from __future__ import annotations

from inspector import jsonschemas

import collections
import html
import math
import os

__all__ = ["SUMMARY_SCHEMA", "summarize", "summary_text", "summary_html", "rows_for_series"]

#: The name and version of the summary (``--summary FILE.json``).
SUMMARY_SCHEMA = jsonschemas.AUDIT_SUMMARY
_TOP = 10


def rows_for_series(entries) -> list:
    """:class:`.folderscan.FolderRow` objects (with :class:`.folderscan.CheckpointFacts`) rebuilt from
    ``(record, journal facts)`` pairs, for :func:`.series.group_series` (FORMAT.md 4.18)."""
    from inspector.session.folderscan import CheckpointFacts, FolderRow

    rows = []
    for rec, facts in entries:
        f = None
        if facts is not None:
            f = dict(facts)
            if f.get("pass_kinds") is not None:
                f["pass_kinds"] = {run: {int(t): k for t, k in v.items()} for run, v in f["pass_kinds"].items()}
            f = CheckpointFacts(**f)
        rc = rec.get("root_cause") or {}
        rows.append(FolderRow(rec.get("payload"), rec.get("descriptor"), bool(rec.get("verified")),
                              bool(rec.get("ok")), rc.get("rule"), "", other=rec.get("other"), facts=f))
    return rows


def _session_of(rec: dict, facts: dict | None):
    sid = facts.get("session_id") if facts is not None and rec.get("checkpoint") else None
    return sid if isinstance(sid, str) else None


def _kept(items: list, key) -> list:
    """The first :data:`_TOP` of ``items`` by ``key``, duplicates dropped."""
    return sorted(set(items), key=key)[:_TOP]


def summarize(entries, *, seconds: float, batches: int, resumed: int = 0, startup: float | None = None,
              spill: str | None = None, partitions: int | None = None) -> dict:
    """The summary (:data:`SUMMARY_SCHEMA`) of ``entries``: ``(record, journal facts or None, seconds or
    None)`` per record of the audit (those of an earlier, interrupted run included), an iterable read once.

    Args:
        seconds: wall time of this run, in seconds. batches: Dask tasks sent in this run. startup: of
            ``seconds``, those until the cluster answered (listing the source, starting a local cluster).
        resumed: how many of the records an earlier run had written (``--resume``).
        spill: a folder that does not exist yet, where the checkpoints are spilled by session
            (:class:`.spill.Spill`, ``partitions`` files, default :data:`.spill.PARTITIONS`: a caller that knows
            how many records there are gives :func:`.spill.partitions_for` of it) so that a store of millions is
            grouped one partition of sessions at a time; made and removed here (default: a temporary folder).

    Holds: totals by verdict, ``by_root_cause`` (rule id), ``by_generation`` (FORMAT.md 3.4: ``current`` when
    the payload was read and parsed and says nothing else, ``unknown`` when it was not), ``by_resumability``,
    ``by_lint`` (kinds), ``by_error``; ``sessions`` (FORMAT.md 4.18, :func:`.series.group_series`, one partition
    of sessions at a time: every checkpoint of a session is in one partition, and every partition is given
    each descriptor's stated digest that is a re-saved copy's canonical digest, whatever session the
    descriptor's record is of): how many sessions, how many with a latest resumable export, how many end in a fork;
    ``slowest_files`` (per file, seconds) and ``largest_files`` (bytes), each at most 10; ``seconds`` and
    ``checkpoints_per_second``.

    Raises:
        OSError: the spill folder cannot be made or written.
    """
    import tempfile

    from inspector.session.series import group_series

    from .spill import PARTITIONS, Spill

    counts = {k: collections.Counter() for k in ("root_cause", "generation", "resumability", "lint", "error")}
    n_recs = n_cps = n_verified = 0
    timed: list = []  # (-seconds, order, location)
    sizes: list = []  # (-bytes, location)
    canonical: set = set()  # (the canonical digests of re-saved copies: few)
    temp = None
    if spill is None:
        temp = tempfile.TemporaryDirectory(prefix="checkpoint-audit-")
        spill = os.path.join(temp.name, "sessions")
    sessions = Spill(spill, partitions or PARTITIONS)
    stated_all = Spill(os.path.join(spill, "stated"), 1)

    def where(r):
        return r.get("payload") or r.get("descriptor") or r.get("other")

    try:
        for order, (r, facts, secs) in enumerate(entries):
            n_recs += 1
            if r["checkpoint"]:
                n_cps += 1
                n_verified += bool(r["verified"])
                if r.get("root_cause"):
                    counts["root_cause"][r["root_cause"]["rule"]] += 1
                counts["generation"][(r.get("generation") or "current") if r.get("payload") and not r.get("error")
                                     else "unknown"] += 1
                counts["resumability"][r.get("resumability") or "unknown"] += 1
                counts["lint"].update(r.get("lint") or ())
            if r.get("error"):
                counts["error"][r["error"]] += 1
            if secs is not None:
                timed.append((-secs, order, where(r)))
            for k in ("payload", "descriptor", "other"):
                if r.get(k) and r.get(k + "_bytes") is not None and (k != "descriptor" or r.get(k) != r.get("payload")):
                    sizes.append((-r[k + "_bytes"], r[k]))
            if len(timed) > 4096:
                timed = _kept(timed, lambda x: x[:2])
            if len(sizes) > 4096:
                sizes = _kept(sizes, lambda x: x)
            if facts is not None and facts.get("stated_digest"):
                stated_all.add("", facts["stated_digest"])
            if facts is not None and facts.get("canonical_digest"):
                canonical.add(facts["canonical_digest"])
            sid = _session_of(r, facts)
            if sid is not None:  # (what rows_for_series reads of the record, no more)
                rc = r.get("root_cause")
                sessions.add(sid, [{"payload": r.get("payload"), "descriptor": r.get("descriptor"),
                                    "other": r.get("other"), "verified": r.get("verified"), "ok": r.get("ok"),
                                    "root_cause": {"rule": rc.get("rule")} if rc else None}, facts])
        # (a descriptor's stated digest makes a re-saved copy its original in whatever session the copy is: a
        # descriptor paired by name may be of another session, so each partition is given every stated digest
        # that is some copy's canonical digest, read back once from the disk)
        stated = frozenset(d for d in stated_all.stream() if d in canonical)
        total = with_latest = fork = 0
        for part in sessions.partitions():
            series, _rest = group_series(rows_for_series((r, f) for r, f in part), stated)
            total += len(series)
            with_latest += sum(1 for s in series if s.latest_resumable is not None)
            fork += sum(1 for s in series if s.head_fork is not None)
    finally:
        stated_all.remove()
        sessions.remove()
        if temp is not None:
            temp.cleanup()
    timed = _kept(timed, lambda x: x[:2])
    sizes = _kept(sizes, lambda x: x)

    def count(c) -> dict:
        return dict(sorted(c.items()))

    return {
        "schema": SUMMARY_SCHEMA,
        "records": n_recs,
        "checkpoints": n_cps,
        "other_files": n_recs - n_cps,
        "verified": n_verified,
        "not_verified": n_cps - n_verified,
        "by_root_cause": count(counts["root_cause"]),
        "by_generation": count(counts["generation"]),
        "by_resumability": count(counts["resumability"]),
        "by_lint": count(counts["lint"]),
        "by_error": count(counts["error"]),
        "sessions": {"total": total, "with_latest_resumable": with_latest, "fork_at_head": fork},
        "slowest_files": [{"seconds": -s, "location": loc} for s, _o, loc in timed],
        "largest_files": [{"bytes": -b, "location": loc} for b, loc in sizes],
        "resumed_records": resumed,
        "batches": batches,
        "seconds": round(seconds, 3),
        "startup_seconds": None if startup is None else round(startup, 3),
        "checkpoints_per_second": round((n_cps - resumed) / seconds, 1) if seconds and n_cps > resumed
        else None,
    }


def summary_text(summary: dict) -> str:
    """The summary as the lines ``audit`` prints on stdout (locations as they are: the caller makes them safe
    for a terminal)."""
    s = summary
    lines = [f"{s['checkpoints']} checkpoint(s), {s['verified']} verified, {s['not_verified']} not "
             f"verified; {s['other_files']} other file(s)"]
    for title, key in (("root cause", "by_root_cause"), ("generation", "by_generation"),
                       ("resumability", "by_resumability"), ("lint", "by_lint"), ("error", "by_error")):
        for k, n in s[key].items():
            lines.append(f"  {title} {k}: {n}")
    ss = s["sessions"]
    lines.append(f"{ss['total']} session(s): {ss['with_latest_resumable']} with a latest resumable export, "
                 f"{ss['fork_at_head']} ending in a fork (no single latest)")
    if s["slowest_files"]:
        lines.append("slowest: " + ", ".join(f"{x['location']} {x['seconds']:.3f} s" for x in s["slowest_files"][:3]))
    if s["largest_files"]:
        lines.append("largest: " + ", ".join(f"{x['location']} {x['bytes']} bytes" for x in s["largest_files"][:3]))
    resumed = f"; {s['resumed_records']} record(s) from the interrupted run" if s["resumed_records"] else ""
    lines.append(f"{s['batches']} batch(es) in {s['seconds']} s"
                 + (f" ({s['checkpoints_per_second']} checkpoints/s)" if s["checkpoints_per_second"] else "")
                 + resumed)
    return "\n".join(lines) + "\n"


def _bars(title: str, counts: dict, colour: str) -> str:
    """One horizontal bar chart as inline SVG (every label escaped)."""
    if not counts:
        return f"<h2>{html.escape(title)}</h2><p>none</p>"
    row, left, width = 22, 260, 420
    top = max(counts.values()) or 1
    h = row * len(counts) + 8
    out = [f"<h2>{html.escape(title)}</h2>",
           f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 80}" height="{h}" role="img" '
           f'aria-label="{html.escape(title, quote=True)}">']
    for i, (label, n) in enumerate(counts.items()):
        y = 4 + i * row
        w = max(1, math.ceil(width * n / top))
        out.append(f'<text x="{left - 6}" y="{y + 15}" text-anchor="end" font-size="13">{html.escape(str(label))}'
                   f'</text><rect x="{left}" y="{y + 2}" width="{w}" height="{row - 6}" fill="{colour}"/>'
                   f'<text x="{left + w + 4}" y="{y + 15}" font-size="13">{int(n)}</text>')
    out.append("</svg>")
    return "".join(out)


def summary_html(summary: dict) -> str:
    """A self-contained HTML page of the summary: the totals, bar charts (inline SVG) of the verdicts, root
    causes, generations and resumability, the sessions, and the slowest and largest files. No script and no
    external resource; every value that came from a file (locations, labels) is HTML-escaped."""
    s = summary
    e = html.escape
    verdicts = {"verified": s["verified"], "not verified": s["not_verified"], "other files": s["other_files"]}
    ss = s["sessions"]

    def table(title, rows, cols):
        body = "".join("<tr>" + "".join(f"<td>{e(str(r[c]))}</td>" for c in cols) + "</tr>" for r in rows)
        head = "".join(f"<th>{e(c)}</th>" for c in cols)
        return f"<h2>{e(title)}</h2><table><tr>{head}</tr>{body}</table>" if rows else ""

    parts = [
        "<!DOCTYPE html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Checkpoint audit</title>",
        "<style>body{font-family:sans-serif;margin:2em;max-width:60em}td,th{padding:2px 8px;text-align:left}"
        "table{border-collapse:collapse}tr:nth-child(even){background:#f2f2f2}</style></head><body>",
        "<h1>Checkpoint audit</h1>",
        f"<p>{s['checkpoints']} checkpoint(s): <b>{s['verified']} verified</b>, <b>{s['not_verified']} not "
        f"verified</b>; {s['other_files']} other file(s). {ss['total']} session(s), {ss['with_latest_resumable']} "
        f"with a latest resumable export, {ss['fork_at_head']} ending in a fork. {s['batches']} batch(es) in "
        f"{e(str(s['seconds']))} s"
        + (f" ({e(str(s['checkpoints_per_second']))} checkpoints/s)" if s["checkpoints_per_second"] else "")
        + ".</p>",
        _bars("Verdicts", verdicts, "#4a7"),
        _bars("Root causes (rule id)", s["by_root_cause"], "#c44"),
        _bars("Generations (FORMAT.md 3.4)", s["by_generation"], "#48c"),
        _bars("Resumability", s["by_resumability"], "#a7c"),
        _bars("Files not read (why)", s["by_error"], "#c84"),
        table("Slowest files", s["slowest_files"], ("seconds", "location")),
        table("Largest files", s["largest_files"], ("bytes", "location")),
        "</body></html>\n",
    ]
    return "".join(parts)
