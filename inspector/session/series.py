"""A session's checkpoints in order (issue 26): what a folder scan found, grouped by session id.

A host exports a checkpoint at every tool boundary, so a folder holds a session's series, sometimes two
sessions interleaved, forks and stale copies. :func:`group_series` orders each session's checkpoints by
``checkpoint_ms`` and completed passes (``logical_resume.turn``, FORMAT.md 4.17), and says for each session:
how many checkpoints, which verify, the latest resumable one, **gaps** (a run's completed passes skip a number:
1, 2, 4 means the export after pass 3 is missing), **forks** (two checkpoints of one run at the same pass with
different content) and **duplicates** (the same content under several names). Order, gaps and forks come from
what the checkpoints say about themselves (:class:`~.folderscan.CheckpointFacts`), never from file names.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from inspector.checkpoint import display_path
from inspector.checkpoint.analysis.resumability import RESUMABLE
from inspector.session.folderscan import FolderRow

__all__ = ["Series", "SeriesEntry", "Gap", "Fork", "group_series", "series_json", "series_text"]


@dataclass(frozen=True)
class SeriesEntry:
    """One checkpoint of a series: the folder scan's ``row``, its ``name`` (the payload's file name, else the
    descriptor's) and its ``index`` in the series (0-based, in order)."""

    row: FolderRow
    name: str
    index: int


@dataclass(frozen=True)
class Gap:
    """Run ``run_id``'s completed passes jump from ``after`` to ``before``: the passes between are missing."""

    run_id: str | None
    after: int
    before: int

    @property
    def missing(self) -> list[int]:
        """The pass numbers no checkpoint shows."""
        return list(range(self.after + 1, self.before))


@dataclass(frozen=True)
class Fork:
    """Checkpoints of run ``run_id`` at the same ``passes`` whose content differs (``names``, in order)."""

    run_id: str | None
    passes: int | None
    names: tuple[str, ...]


@dataclass
class Series:
    """One session's checkpoints in order, and what the order shows."""

    session_id: str | None
    entries: list[SeriesEntry] = field(default_factory=list)
    gaps: list[Gap] = field(default_factory=list)
    forks: list[Fork] = field(default_factory=list)
    duplicates: list[tuple[str, ...]] = field(default_factory=list)

    @property
    def verified(self) -> int:
        """How many of its checkpoints verify."""
        return sum(1 for e in self.entries if e.row.verified)

    @property
    def latest_resumable(self) -> SeriesEntry | None:
        """The last checkpoint (in order) that verifies and is resumable, else ``None``."""
        good = [e for e in self.entries if e.row.verified and e.row.facts and e.row.facts.resumability == RESUMABLE]
        return good[-1] if good else None

    def previous(self, entry: SeriesEntry) -> SeriesEntry | None:
        """The checkpoint before ``entry`` in the series (for "compare with previous"), else ``None``."""
        return self.entries[entry.index - 1] if entry.index > 0 else None


def _name(row: FolderRow) -> str:
    return os.path.basename(row.payload or row.descriptor or "")


def _order(row: FolderRow) -> tuple:
    f = row.facts
    ms = f.checkpoint_ms if f and isinstance(f.checkpoint_ms, int) else -1
    passes = f.passes if f and isinstance(f.passes, int) else -1
    return ms, passes, _name(row)


def group_series(rows: list[FolderRow]) -> tuple[list[Series], list[FolderRow]]:
    """``(series by session, rows that are no checkpoint of any session)``: checkpoints grouped by session id (in
    order of first appearance by name), each series ordered by ``checkpoint_ms``, then completed passes, then
    name. A checkpoint whose session id nothing says (neither payload nor descriptor decodes) is left out with
    the non-checkpoint rows."""
    by_session: dict[str, list[FolderRow]] = {}
    rest = []
    for row in sorted(rows, key=_name):
        sid = row.facts.session_id if row.checkpoint and row.facts else None
        if isinstance(sid, str):
            by_session.setdefault(sid, []).append(row)
        else:
            rest.append(row)
    out = []
    for sid, members in by_session.items():
        ordered = sorted(members, key=_order)
        s = Series(sid, [SeriesEntry(r, _name(r), i) for i, r in enumerate(ordered)])
        s.gaps, s.forks, s.duplicates = _gaps(s.entries), _forks(s.entries), _duplicates(s.entries)
        out.append(s)
    return out, rest


def _runs(entries: list[SeriesEntry]) -> dict:
    runs: dict = {}
    for e in entries:
        f = e.row.facts
        if f is not None and isinstance(f.passes, int):
            runs.setdefault(f.run_id, []).append(e)
    return runs


def _gaps(entries: list[SeriesEntry]) -> list[Gap]:
    gaps = []
    for run_id, members in _runs(entries).items():
        passes = sorted({e.row.facts.passes for e in members})
        gaps += [Gap(run_id, a, b) for a, b in zip(passes, passes[1:]) if b > a + 1]
    return gaps


def _forks(entries: list[SeriesEntry]) -> list[Fork]:
    """Checkpoints whose own descriptor binds them (X-BYTES holds) at one pass of one run with different content,
    one name per content (the first; copies of it are :func:`_duplicates`, so no name is said to differ from its
    own copy). A copy damaged in transport (X-BYTES fails) is not a fork: its verdict says what happened to it."""
    forks = []
    for run_id, members in _runs(entries).items():
        at: dict[int, list[SeriesEntry]] = {}
        for e in members:
            if e.row.root_rule != "X-BYTES" and e.row.facts.content_digest:
                at.setdefault(e.row.facts.passes, []).append(e)
        for passes, same in sorted(at.items()):
            first: dict[str, str] = {}  # one name per content: the copies are the duplicates' line
            for e in same:
                first.setdefault(e.row.facts.content_digest, e.name)
            if len(first) > 1:
                forks.append(Fork(run_id, passes, tuple(first.values())))
    return forks


def _duplicates(entries: list[SeriesEntry]) -> list[tuple[str, ...]]:
    by_content: dict[str, list[str]] = {}
    for e in entries:
        digest = e.row.facts.content_digest if e.row.facts else None
        if digest:
            by_content.setdefault(digest, []).append(e.name)
    return [tuple(names) for names in by_content.values() if len(names) > 1]


def series_json(series: list[Series], rest: list[FolderRow]) -> dict:
    """The ``scan --format json`` shape: ``sessions`` (each with its checkpoints in order and its findings)
    and ``other_files`` (not checkpoints of any session, with why)."""
    def entry(e: SeriesEntry) -> dict:
        f = e.row.facts
        return {"name": display_path(e.name), "payload": e.row.payload and display_path(os.path.basename(e.row.payload)),
                "descriptor": e.row.descriptor and display_path(os.path.basename(e.row.descriptor)),
                "run_id": f.run_id, "passes": f.passes, "checkpoint_ms": f.checkpoint_ms,
                "content_digest": f.content_digest, "verified": e.row.verified, "root_cause": e.row.root_rule,
                "restorable": f.restorable, "resumability": f.resumability}
    return {
        "sessions": [{
            "session_id": s.session_id, "checkpoints": len(s.entries), "verified": s.verified,
            "latest_resumable": display_path(s.latest_resumable.name) if s.latest_resumable else None,
            "series": [entry(e) for e in s.entries],
            "gaps": [{"run_id": g.run_id, "after": g.after, "before": g.before, "missing": g.missing} for g in s.gaps],
            "forks": [{"run_id": k.run_id, "passes": k.passes, "names": [display_path(n) for n in k.names]}
                      for k in s.forks],
            "duplicates": [[display_path(n) for n in d] for d in s.duplicates],
        } for s in series],
        "other_files": [{"name": display_path(os.path.basename(r.other or r.payload or r.descriptor or "")),
                         "why": display_path(r.summary)} for r in rest],
    }


def series_text(series: list[Series], rest: list[FolderRow]) -> list[str]:
    """The ``scan`` text: per session, a summary line, then its checkpoints in order and what the order shows."""
    out = []
    for s in series:
        latest = s.latest_resumable
        out.append(f"session {s.session_id}: {len(s.entries)} checkpoint{'s' * (len(s.entries) != 1)}, "
                   f"{s.verified} verified; latest resumable: "
                   + (f"{latest.name} (pass {latest.row.facts.passes})" if latest else "none"))
        for e in s.entries:
            f = e.row.facts
            where = f"pass {f.passes}" if f.passes is not None else "no loop checkpoint"
            verdict = "VERIFIED" if e.row.verified else f"FAIL {e.row.root_rule}" if e.row.root_rule else \
                "not verified"
            res = f", {f.resumability.lower()}" if f.resumability and e.row.verified else \
                " (restorable: a re-saved copy of the export, proven by its SHA-256)" if f.restorable else ""
            out.append(f"  {e.index + 1:>3}. {e.name:40} run {f.run_id or '-'}, {where}, "
                       f"checkpoint_ms {f.checkpoint_ms}: {verdict}{res}")
        for g in s.gaps:
            missing = ", ".join(map(str, g.missing))
            out.append(f"  gap: run {g.run_id}: no checkpoint at pass{'es' * (len(g.missing) > 1)} {missing} "
                       f"(between passes {g.after} and {g.before})")
        for k in s.forks:
            out.append(f"  fork: run {k.run_id}, pass {k.passes}: {', '.join(k.names)} differ in content")
        for d in s.duplicates:
            out.append(f"  duplicate: {' = '.join(d)} (the same content)")
    if rest:
        out.append("other files:")
        out += [f"  {os.path.basename(r.other or r.payload or r.descriptor or '')}: {r.summary}" for r in rest]
    return out
