"""A session's exports in order (FORMAT.md 4.18): what a folder scan found, grouped by session id.

A host exports a checkpoint at every completed tool round (FORMAT.md 4.17 step 5), so a folder holds a session's
series, re-saved copies, forks and exports of other sessions. :func:`group_series` says for each session only
what 4.18 proves, from what each export says about itself (:class:`~.folderscan.CheckpointFacts`), never from
file names, file sizes or a clock:

* **same export**: equal bytes, or a re-saved copy whose canonical form's SHA-256 is stated by a descriptor in
  the folder (as ``restore`` proves it); its files are one export (``duplicates``), never a fork;
* **order**: export B is later than A when every run A records is recorded by B with a largest retained
  ``RunEventRecord.sequence`` at least as large, and B records more; the series is sorted by this partial
  order (``checkpoint_ms`` is the host's clock and orders nothing; ties are broken by name for display only);
* **forks**: different exports at the same (run, pass), or two exports neither of which is later (diverged);
* **gaps**: a pass between two exports of one run is missing only when the later export's retained events show
  it completed with tool calls that all returned; a continuation pass is no gap; a trimmed pass is unknown;
* **latest resumable**: with one latest export, the latest export on its history that verifies and is
  resumable (and why each later one is not); with a fork at the head, none.
"""

from __future__ import annotations

import heapq
import os
import re
import urllib.parse
from dataclasses import dataclass, field

from inspector.checkpoint import display_path
from inspector.checkpoint.analysis.resumability import RESUMABLE
from inspector.session.folderscan import FolderRow
from inspector.session.sources import is_url, shown_location

__all__ = ["Series", "SeriesEntry", "Gap", "Fork", "group_series", "later", "history_order", "HistoryOrder", "series_json",
           "series_text"]


@dataclass(frozen=True)
class SeriesEntry:
    """One file (or pair) of a series: the folder scan's ``row``, its ``name`` (the payload's file name, else the
    descriptor's), its ``index`` in the series (0-based, in order) and ``export``: the 0-based position of its
    export in the order (files of the same export share it), ``None`` when its history is not known (a
    descriptor alone: no events to order it by)."""

    row: FolderRow
    name: str
    index: int
    export: int | None = None


@dataclass(frozen=True)
class Gap:
    """Between run ``run_id``'s exports at passes ``after`` < ``before``: ``missing``, the passes the later export's
    retained events show completed with returned tool calls (an export was written and is not here); ``unknown``,
    the passes whose events were trimmed away (FORMAT.md 4.18 "Gaps"). Continuation passes are in neither."""

    run_id: str | None
    after: int
    before: int
    missing: tuple[int, ...] = ()
    unknown: tuple[int, ...] = ()


@dataclass(frozen=True)
class Fork:
    """A fork (FORMAT.md 4.18 "Forks"): ``names`` (one per export, in order) are different exports at run
    ``run_id`` pass ``passes``, or, with ``diverged`` and ``run_id``/``passes`` ``None`` when their positions
    differ, exports neither of which is later than the other. ``positions``: each branch's (run, pass)."""

    run_id: str | None
    passes: int | None
    names: tuple[str, ...]
    diverged: bool = False
    positions: tuple[tuple, ...] = ()


@dataclass
class Series:
    """One session's exports in order (FORMAT.md 4.18), and what the order shows.

    ``entries``: every file of the session, export by export in order (files of one export together), then the
    ones without a known history; ``latest``: one entry per latest export (no other export is later);
    ``head_fork``: the :class:`Fork` of the latest exports when there are two or more (no single latest), else
    ``None``; ``latest_resumable``: with one latest export, the entry of the latest export on its history that
    verifies and is resumable, else ``None``; ``not_resumable``: ``(entry, why)`` for each export later than the
    latest resumable one (with none, for the latest export)."""

    session_id: str | None
    entries: list[SeriesEntry] = field(default_factory=list)
    gaps: list[Gap] = field(default_factory=list)
    forks: list[Fork] = field(default_factory=list)
    duplicates: list[tuple[str, ...]] = field(default_factory=list)
    latest: list[SeriesEntry] = field(default_factory=list)
    head_fork: Fork | None = None
    latest_resumable: SeriesEntry | None = None
    not_resumable: list[tuple[SeriesEntry, str]] = field(default_factory=list)

    @property
    def verified(self) -> int:
        """How many of its files (pairs) verify."""
        return sum(1 for e in self.entries if e.row.verified)

    def previous(self, entry: SeriesEntry) -> SeriesEntry | None:
        """The entry before ``entry`` in the series (for "compare with previous"), else ``None``."""
        return self.entries[entry.index - 1] if entry.index > 0 else None


_LINE = re.compile(r"^(.*):(\d+)$")


def _location(row: FolderRow) -> str:
    """The row's file as it may be shown, ``/``-separated: a URL without its credentials and query
    (:func:`.sources.shown_location`; a line ``URL?query:N`` of a JSON Lines file keeps its ``:N``), a path of
    this machine with ``/`` for its separator."""
    loc = row.payload or row.descriptor or row.other or ""
    if is_url(loc):
        m = _LINE.match(loc)
        if m and "?" in m.group(1):  # (the line number after the query: keep it)
            return shown_location(m.group(1)) + ":" + m.group(2)
        return shown_location(loc)
    return loc.replace(os.sep, "/") if os.sep != "/" else loc


def _base(location: str) -> str:
    """A file's base name as it may be shown (a URL's decoded, without its query)."""
    loc = shown_location(location)
    base = loc.rsplit("/", 1)[-1]
    return urllib.parse.unquote(base) if is_url(loc) else os.path.basename(loc)


def _names(rows: list[FolderRow]) -> dict[int, str]:
    """Each row's name (by ``id``): its file's path below the folder all the rows share, so that files of
    subfolders (a recursive scan) keep their subfolder (``a/p2.payload.json`` and ``b/p2.payload.json``, not two
    ``p2.payload.json``); the base name when they are all in one folder. A URL's name is shown decoded
    (``p 1.json``, not ``p%201.json``), never with its query."""
    shown = {id(r): _location(r) for r in rows}
    folders = [loc.split("/")[:-1] for loc in shown.values()]
    common: list[str] = folders[0] if folders else []
    for parts in folders[1:]:  # (the longest shared run of whole folder names)
        n = 0
        while n < min(len(common), len(parts)) and common[n] == parts[n]:
            n += 1
        common = common[:n]
    out = {}
    for key, loc in shown.items():
        parts = loc.split("/")
        rest = "/".join(parts[len(common):]) if len(parts) > len(common) else parts[-1]
        out[key] = urllib.parse.unquote(rest) if is_url(loc) else rest
    return out


def later(b: dict, a: dict) -> bool:
    """True when history ``b`` is later than history ``a`` (FORMAT.md 4.18 "Order is history"): every run of ``a``
    is in ``b`` with a largest retained sequence at least as large, and ``b`` records more (a larger sequence
    for some run, or a run ``a`` does not record). Histories map run id -> largest retained sequence (int)."""
    more = len(b) > len(a)
    for run, seq in a.items():
        other = b.get(run)
        if other is None or other < seq:
            return False
        more = more or other > seq
    return more


@dataclass(frozen=True)
class HistoryOrder:
    """How two payloads' exports stand in their session's history (FORMAT.md 4.18 "Order is history, never a
    clock"): ``order`` is ``"later"`` (B is later than A), ``"earlier"`` (A is later than B), ``"same"`` (the
    same history), ``"diverged"`` (one session, neither later: a fork), ``"sessions"`` (two sessions: no order) or
    ``"unknown"`` (a side does not decode); two different exports with the same history are ``"diverged"`` too
    (FORMAT.md 4.18 "Forks": different exports at the same point); ``sentence`` says so in words (ids through
    :func:`~inspector.session.visible.visible`)."""

    order: str
    sentence: str


def history_order(a, b) -> HistoryOrder:
    """The order of decoded payloads ``a`` and ``b`` (dicts, else anything: ``unknown``) by their runs' largest
    retained sequences (:func:`later`; never ``checkpoint_ms``, a host's clock)."""
    from inspector.session.folderscan import _history
    from inspector.session.visible import visible

    def session(p):
        snap = p.get("snapshot") if isinstance(p, dict) else None
        ses = snap.get("session") if isinstance(snap, dict) else None
        return (ses.get("id") if isinstance(ses, dict) else None), (snap.get("run_records") if isinstance(snap, dict)
                                                                     else None)

    (sa, ra), (sb, rb) = session(a), session(b)
    if not isinstance(a, dict) or not isinstance(b, dict) or sa is None or sb is None:
        return HistoryOrder("unknown", "The order of the two cannot be told: a side is not a decoded payload.")
    if sa != sb:
        return HistoryOrder("sessions", f"A and B are exports of two sessions ({visible(str(sa))}, "
                                        f"{visible(str(sb))}): neither is earlier.")
    ha, hb = _history(ra)[0], _history(rb)[0]
    if ha == hb:
        if a != b:  # two different exports at one point of the history: the host continued twice (a fork)
            return HistoryOrder("diverged", "A and B record the same history but hold different content: a fork "
                                            "of the session at the same point (neither is later).")
        return HistoryOrder("same", "A and B record the same history (the same runs, the same last sequences).")
    if later(hb, ha):
        return HistoryOrder("later", "B is later than A in the session's history (its runs' last event sequences).")
    if later(ha, hb):
        return HistoryOrder("earlier", "A is later than B in the session's history (its runs' last event "
                                       "sequences).")
    return HistoryOrder("diverged", "A and B have diverged: neither is later than the other (a fork of the "
                                    "session).")


def _key(history: dict) -> tuple[int, int]:
    """A sort key that is a linear extension of :func:`later`: later histories have strictly larger keys."""
    return sum(s + 1 for s in history.values()), len(history)


@dataclass
class _Export:
    """One export: its files (rows, by name), its history and position."""

    rows: list[FolderRow]
    history: dict
    position: tuple | None  # (run, pass) of its loop checkpoint, else None
    kinds: dict

    names: dict  # each row's name (by id: :func:`_names`)

    @property
    def name(self) -> str:
        return self.names[id(self.rows[0])]

    def good(self) -> FolderRow | None:
        """Its first file that verifies and is resumable, else ``None``."""
        return next((r for r in self.rows if r.verified and r.facts.resumability == RESUMABLE), None)

    def why_not(self) -> str:
        """Why no file of this export is resumable, in words."""
        verified = next((r for r in self.rows if r.verified), None)
        if verified is not None:
            return f"verifies; resumability: {verified.facts.resumability or 'not decided'}"
        r = self.rows[0]
        if r.root_rule:
            return f"does not verify (FAIL {r.root_rule})" + (
                "; restorable: a re-saved copy of the export, proven by its SHA-256" if r.facts.restorable else "")
        return "not verified (no descriptor)" if r.descriptor is None else "not verified"


def _identity(row: FolderRow, stated: set) -> str | None:
    """The export a payload is (FORMAT.md 4.18 "Same export"): its canonical form's digest when a descriptor in
    the folder states it (a re-saved copy is its original), else its bytes' digest."""
    f = row.facts
    if f.canonical_digest is not None and f.canonical_digest in stated:
        return f.canonical_digest
    return f.content_digest


def group_series(rows: list[FolderRow], stated_elsewhere: frozenset = frozenset()
                 ) -> tuple[list[Series], list[FolderRow]]:
    """``(series by session, rows that are no checkpoint of any session)``: checkpoints grouped by session id (in
    order of first appearance by name), each series ordered as FORMAT.md 4.18 says (see the module docstring).
    A checkpoint whose session id nothing says (neither payload nor descriptor decodes) is left out with the
    non-checkpoint rows. ``stated_elsewhere``: ``content_digest`` values stated by descriptors of the same
    folder that are not among ``rows`` (a caller grouping one part of a folder at a time; "Same export")."""
    by_session: dict[str, list[FolderRow]] = {}
    rest = []
    stated = {r.facts.stated_digest for r in rows if r.facts is not None and r.facts.stated_digest}
    stated |= stated_elsewhere
    names = _names(rows)
    for row in sorted(rows, key=lambda r: names[id(r)]):
        sid = row.facts.session_id if row.checkpoint and row.facts else None
        if isinstance(sid, str):
            by_session.setdefault(sid, []).append(row)
        else:
            rest.append(row)
    return [_series(sid, members, stated, names) for sid, members in by_session.items()], rest


def _series(sid: str, members: list[FolderRow], stated: set, names: dict) -> Series:
    groups: dict[str, _Export] = {}
    unplaced: list[FolderRow] = []
    for row in members:
        f = row.facts
        ident = _identity(row, stated) if f.history is not None else None
        if ident is None:
            unplaced.append(row)
            continue
        if ident in groups:
            groups[ident].rows.append(row)
        else:
            pos = (f.run_id, f.passes) if isinstance(f.passes, int) else None
            groups[ident] = _Export([row], f.history, pos, f.pass_kinds or {}, names)
    for x in groups.values():  # the files of one export: the verified ones first, then by name
        x.rows.sort(key=lambda r: (not r.verified, names[id(r)]))
    exports = _topological(list(groups.values()))
    s = Series(sid)
    at: dict[int, int] = {}
    for n, x in enumerate(exports):
        for row in x.rows:
            at[id(row)] = n
    for row in [r for x in exports for r in x.rows] + unplaced:
        s.entries.append(SeriesEntry(row, names[id(row)], len(s.entries), at.get(id(row))))
    first = {}
    for e in s.entries:
        if e.export is not None:
            first.setdefault(e.export, e)
    s.duplicates = [tuple(names[id(r)] for r in x.rows) for x in exports if len(x.rows) > 1]
    s.forks = _forks(exports)
    s.gaps = _gaps(exports)
    heads = _heads(exports)
    s.latest = [first[n] for n in heads]
    if len(heads) > 1:
        s.head_fork = _fork_of([exports[n] for n in heads])
    elif heads:
        _resumable(s, exports, heads[0], first)
    return s


def _topological(exports: list[_Export]) -> list[_Export]:
    """The exports sorted by :func:`later` (every export after the ones it is later than), exports neither of
    which is later than the other by name (display only). A series that is one chain (the common case) costs
    one comparison per export; otherwise every pair is compared once."""
    exports.sort(key=lambda x: (*_key(x.history), x.name))
    if all(later(b.history, a.history) for a, b in zip(exports, exports[1:])):
        return exports
    n = len(exports)
    succ: list[list[int]] = [[] for _ in range(n)]
    preds = [0] * n
    for i in range(n):
        for j in range(i + 1, n):  # (only a larger key can be later)
            if later(exports[j].history, exports[i].history):
                succ[i].append(j)
                preds[j] += 1
    ready = [(exports[i].name, i) for i in range(n) if preds[i] == 0]
    heapq.heapify(ready)
    out = []
    while ready:
        _, i = heapq.heappop(ready)
        out.append(exports[i])
        for j in succ[i]:
            preds[j] -= 1
            if preds[j] == 0:
                heapq.heappush(ready, (exports[j].name, j))
    return out


def _heads(exports: list[_Export]) -> list[int]:
    """Indexes of the latest exports (no other is later), in order. ``later`` is transitive, so an export is
    latest exactly when no latest export found so far (scanning from the largest key down) is later."""
    heads: list[int] = []
    for n in range(len(exports) - 1, -1, -1):
        if not any(later(exports[m].history, exports[n].history) for m in heads):
            heads.append(n)
    return sorted(heads)


def _fork_of(branches: list[_Export]) -> Fork:
    positions = tuple(x.position for x in branches)
    same = len(set(positions)) == 1 and positions[0] is not None
    run, passes = positions[0] if same else (None, None)
    return Fork(run, passes, tuple(x.name for x in branches), not same, positions)


def _forks(exports: list[_Export]) -> list[Fork]:
    """Different exports at one (run, pass), one fork per position; and diverged pairs at different positions,
    each said once: where a branch goes on, its next exports diverge from the other branch too, which is the
    same fork (the frontier of branch heads, scanned in order)."""
    forks: list[Fork] = []
    by_pos: dict[tuple, list[_Export]] = {}
    for x in exports:
        if x.position is not None:
            by_pos.setdefault(x.position, []).append(x)
    for pos, same in by_pos.items():
        if len(same) > 1:
            forks.append(Fork(pos[0], pos[1], tuple(x.name for x in same), False, tuple(pos for _ in same)))
    frontier: list[int] = []
    known: set[tuple[int, int]] = set()
    for n, x in enumerate(exports):
        parents = [f for f in frontier if later(x.history, exports[f].history)]
        others = [f for f in frontier if f not in parents]
        for f in others:  # neither is later: diverged
            if not any((p, f) in known for p in parents):
                y = exports[f]
                if x.position is None or x.position != y.position:  # (else the fork at that pass above)
                    forks.append(_fork_of([y, x]))
            known.add((n, f))
        frontier = others + [n]
    return forks


def _gaps(exports: list[_Export]) -> list[Gap]:
    """FORMAT.md 4.18 "Gaps", from the retained events of the exports at the later pass."""
    by_run: dict = {}
    for x in exports:
        if x.position is not None:
            by_run.setdefault(x.position[0], {}).setdefault(x.position[1], []).append(x)
    gaps = []
    for run, at in by_run.items():
        passes = sorted(at)
        for i, j in zip(passes, passes[1:]):
            missing, unknown = [], []
            for k in range(i + 1, j):
                seen = [x.kinds.get(run, {}).get(k) for x in at[j]]
                if "tools" in seen:
                    missing.append(k)
                elif all(kind is None for kind in seen):
                    unknown.append(k)
            if missing or unknown:
                gaps.append(Gap(run, i, j, tuple(missing), tuple(unknown)))
    return gaps


def _resumable(s: Series, exports: list[_Export], head: int, first: dict) -> None:
    """With one latest export ``head``: the latest export on its history that verifies and is resumable (the
    last such in the order: the last of a linear extension is maximal among them), and why each later one is
    not."""
    h = exports[head].history
    line = [n for n in range(len(exports)) if n == head or later(h, exports[n].history)]
    good = [n for n in line if exports[n].good() is not None]
    if good:
        n = good[-1]
        row = exports[n].good()
        s.latest_resumable = next(e for e in s.entries if e.row is row)
        after = [m for m in line if m != n and later(exports[m].history, exports[n].history)]
    else:
        after = [head]
    s.not_resumable = [(first[m], exports[m].why_not()) for m in after]


def _where(position) -> str:
    return f"run {position[0]} pass {position[1]}" if position is not None else "no loop checkpoint"


def _head_text(k: Fork) -> str:
    if not k.diverged:
        return f"fork at run {k.run_id} pass {k.passes} (branches {', '.join(k.names)})"
    return "diverged histories (branches " + ", ".join(
        f"{n} at {_where(p)}" for n, p in zip(k.names, k.positions)) + ")"


def _fork_json(k: Fork) -> dict:
    return {"run_id": k.run_id, "passes": k.passes, "names": [display_path(n) for n in k.names],
            "diverged": k.diverged, "positions": [list(p) if p is not None else None for p in k.positions]}


def series_json(series: list[Series], rest: list[FolderRow]) -> dict:
    """The ``scan --format json`` shape: ``sessions`` (each with its files in order and its findings; see
    :class:`Series`) and ``other_files`` (not checkpoints of any session, with why). ``no_single_latest`` is the
    head fork (its ``branches``) or ``None``; ``latest_resumable`` is then ``None``."""
    names = _names(rest + [e.row for s in series for e in s.entries])

    def entry(e: SeriesEntry) -> dict:
        f = e.row.facts
        return {"name": display_path(e.name), "payload": e.row.payload and display_path(_base(e.row.payload)),
                "descriptor": e.row.descriptor and display_path(_base(e.row.descriptor)),
                "export": e.export, "run_id": f.run_id, "passes": f.passes, "history": f.history,
                "checkpoint_ms": f.checkpoint_ms, "content_digest": f.content_digest,
                "canonical_digest": f.canonical_digest, "verified": e.row.verified, "root_cause": e.row.root_rule,
                "restorable": f.restorable, "resumability": f.resumability}
    return {
        "sessions": [{
            "session_id": s.session_id, "checkpoints": len(s.entries), "verified": s.verified,
            "latest": [display_path(e.name) for e in s.latest],
            "latest_resumable": display_path(s.latest_resumable.name) if s.latest_resumable else None,
            "no_single_latest": None if s.head_fork is None else {
                **_fork_json(s.head_fork), "branches": [display_path(n) for n in s.head_fork.names]},
            "not_resumable": [{"name": display_path(e.name), "why": why} for e, why in s.not_resumable],
            "series": [entry(e) for e in s.entries],
            "gaps": [{"run_id": g.run_id, "after": g.after, "before": g.before, "missing": list(g.missing),
                      "unknown": list(g.unknown)} for g in s.gaps],
            "forks": [_fork_json(k) for k in s.forks],
            "duplicates": [[display_path(n) for n in d] for d in s.duplicates],
        } for s in series],
        "other_files": [{"name": display_path(names[id(r)]), "why": display_path(r.summary)} for r in rest],
    }


def latest_text(s: Series) -> str:
    """The summary's answer: ``latest resumable: NAME (run R pass N)``, ``latest resumable: none`` or
    ``no single latest: fork at run R pass N (branches A, B)``."""
    if s.head_fork is not None:
        return "no single latest: " + _head_text(s.head_fork)
    e = s.latest_resumable
    if e is None:
        return "latest resumable: none"
    f = e.row.facts
    return f"latest resumable: {e.name} ({_where((f.run_id, f.passes) if f.passes is not None else None)})"


def series_text(series: list[Series], rest: list[FolderRow]) -> list[str]:
    """The ``scan`` text: per session, a summary line, then its files in order and what the order shows."""
    out = []
    for s in series:
        out.append(f"session {s.session_id}: {len(s.entries)} checkpoint{'s' * (len(s.entries) != 1)}, "
                   f"{s.verified} verified; {latest_text(s)}")
        for e, why in s.not_resumable:
            out.append(f"  not resumable: {e.name}: {why}")
        for e in s.entries:
            f = e.row.facts
            where = _where((f.run_id, f.passes) if f.passes is not None else None)
            verdict = "VERIFIED" if e.row.verified else f"FAIL {e.row.root_rule}" if e.row.root_rule else \
                "not verified"
            res = f", {f.resumability.lower()}" if f.resumability and e.row.verified else \
                " (restorable: a re-saved copy of the export, proven by its SHA-256)" if f.restorable else ""
            order = "" if e.export is not None else " (no history: not ordered)"
            out.append(f"  {e.index + 1:>3}. {e.name:40} {where}: {verdict}{res}{order}")
        for g in s.gaps:
            if g.missing:
                missing = ", ".join(map(str, g.missing))
                out.append(f"  gap: run {g.run_id}: no export at pass{'es' * (len(g.missing) > 1)} {missing} "
                           f"(between passes {g.after} and {g.before})")
            if g.unknown:
                unknown = ", ".join(map(str, g.unknown))
                out.append(f"  unknown: run {g.run_id}: pass{'es' * (len(g.unknown) > 1)} {unknown} trimmed away "
                           f"(between passes {g.after} and {g.before})")
        for k in s.forks:
            if k.diverged:
                out.append("  fork: " + " and ".join(f"{n} ({_where(p)})" for n, p in zip(k.names, k.positions))
                           + " have diverged")
            else:
                out.append(f"  fork: run {k.run_id}, pass {k.passes}: {', '.join(k.names)} are different exports")
        for d in s.duplicates:
            out.append(f"  same export: {' = '.join(d)}")
    if rest:
        out.append("other files:")
        names = _names(rest + [e.row for s in series for e in s.entries])
        out += [f"  {names[id(r)]}: {r.summary}" for r in rest]
    return out
