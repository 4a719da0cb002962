"""The audit's work on one batch (a Dask task; Qt-free, Dask-free): classify entries, pair them, verify pairs,
and make the records.

Phase 1 (:func:`classify_batch`): each entry is read once from a bounded read, its role decided by the engine
(``inspector.checkpoint.file_role``, as ``scan`` decides it), the payload's SHA-256 and a descriptor's stated
``content_digest`` taken (FORMAT.md 3.2, 3.3). Phase 2 (:func:`pair_found`, on the client): payloads and
descriptors of the whole source are paired by digest, then by name, exactly as ``scan`` pairs them
(:func:`inspector.checkpoint.pairing.pair_by_digest`), so a payload and its descriptor always meet whatever batch
each was classified in. Phase 3 (:func:`verify_batch`): each pair is read again and verified in-process by the
engine; one record per pair (:data:`RECORD_SCHEMA`), and one per file that is no checkpoint or could not be read.
"""

from __future__ import annotations

from inspector import jsonschemas

import collections
import hashlib
import os
import shutil
import threading
import time
from dataclasses import asdict, dataclass

from inspector import checkpoint
from inspector.checkpoint.constants import MAX_CONTENT_BYTES
from inspector.checkpoint.pairing import name_stem, stated_binding
from inspector.checkpoint.safeopen import NotAFile, read_regular
from inspector.session.manifest import open_audit_source
from inspector.session.sources import Entry, Source, SourceError, shown_location

__all__ = ["RECORD_SCHEMA", "Found", "classify_batch", "pair_found", "verify_batch", "other_record", "record_key",
           "FILE_SECONDS", "PARSE_RULES", "Pairing", "where", "pair_key", "other_key"]

#: The name and version of one record of RESULTS (a change of its shape changes the version).
RECORD_SCHEMA = jsonschemas.AUDIT_RECORD
#: The time one file's verification may take, in seconds, before it is given up (its record says so).
FILE_SECONDS = 120.0
#: Root causes that mean a file could not be parsed as what it claims to be (FORMAT.md 6.1, 6.2).
PARSE_RULES = frozenset({"P-PARSE", "D-PARSE"})


@dataclass(frozen=True)
class Found:
    """One listed entry after phase 1 (small: it travels from worker to client and back).

    ``location``: as listed (a path, URL or ``FILE:LINE``); ``size``: bytes (``None`` when unknown);
    ``role``: ``payload``, ``descriptor``, ``export`` (an SDK export wrapper, FORMAT.md 8), ``unknown`` (no
    checkpoint file) or ``error`` (not read); ``sha256``: ``sha256:<hex>`` of its bytes when read whole (not for
    a payload over the 256 MiB ceiling); ``stated``: a descriptor's ``content_digest``; ``error``: why it was not
    read, in words that name no content."""

    location: str
    name: str
    size: int | None
    role: str
    sha256: str | None = None
    stated: str | None = None
    error: str | None = None


def _sha(data: bytes) -> str:
    return "sha256:" + hashlib.sha256(data).hexdigest()


def read_error(exc: BaseException) -> str:
    """Why a file could not be read, in words (no content): ``not a regular file (FIFO)``, ``vanished ...``."""
    if isinstance(exc, NotAFile):
        return f"not a regular file ({exc.kind.upper() if exc.kind == 'fifo' else exc.kind})"
    if isinstance(exc, FileNotFoundError):
        return "vanished (listed, then gone before it was read)"
    if isinstance(exc, SourceError):
        low = exc.reason.lower()
        if "no such file" in low or "gone" in low:
            return "vanished (listed, then gone before it was read)"
        return "could not be read (" + (exc.reason.split(": ", 1)[1] if ": " in exc.reason else exc.reason) + ")"
    if isinstance(exc, OSError):
        return f"could not be read ({exc.strerror or type(exc).__name__})"
    return f"could not be read ({type(exc).__name__})"


def _classify(src: Source, entry: Entry) -> Found:
    from inspector.checkpoint.roles import role_of_entry, role_of_path  # (the roles the scan gives: one place)

    # (a FIFO or device is refused without blocking: NotAFile)
    if src.local_paths:
        f = role_of_path(entry.location)
    else:
        f = role_of_entry(src.head(entry, 256), entry.size, lambda n: src.read(entry, n))
    return _found(entry, f)


def _found(entry: Entry, f) -> Found:
    stated = stated_binding(f.data)[1] if f.role == "descriptor" and f.data is not None else None
    return Found(entry.location, entry.name, f.size, f.role, f.sha256, stated)


def _open(location: str, recursive: bool, manifest: bool) -> Source:
    """The source again, on a worker (a manifest is not read again to be recognised: it is not read at all, its
    entries are URLs)."""
    if manifest:
        from inspector.session.manifest import Manifest

        return Manifest(location)
    return open_audit_source(location, recursive=recursive)


def classify_batch(location: str, recursive: bool, entries: list[Entry], manifest: bool = False
                   ) -> tuple[list[Found], float]:
    """Phase 1 on one batch (a Dask task): ``([Found] in entry order, seconds)``. The source is opened again
    here from ``location`` (what :func:`.manifest.open_audit_source` takes), so only strings and entries travel,
    never a connection or credentials. A file that cannot be read is a :class:`Found` of role ``error``; hidden
    files (a name starting with ``.``) are skipped as ``scan`` skips them. ``manifest``: ``location`` is a
    manifest (:class:`.manifest.Manifest`)."""
    t0 = time.perf_counter()
    src = _open(location, recursive, manifest)
    out = []
    for e in entries:
        if e.name.startswith("."):
            continue
        try:
            out.append(_classify(src, e))
        except (OSError, SourceError, ValueError) as exc:
            out.append(Found(e.location, e.name, e.size, "error", error=read_error(exc)))
    return out, time.perf_counter() - t0


def _rounds(payloads: list[Found], descs: list[Found], rounds) -> tuple[list, list[Found], list[Found]]:
    """``(pairs, payloads left, descriptors left)`` after ``rounds`` (``(key of a payload, key of a descriptor)``
    functions, ``None`` for no key) of :func:`pair_found`, in turn: in each, each descriptor in listing order
    takes the first free payload (in listing order) whose key equals its own. ``pairs``: ``(payload, descriptor)``."""
    used = [False] * len(payloads)
    taken = [False] * len(descs)
    pairs = []
    for key_p, key_d in rounds:
        index: dict = collections.defaultdict(collections.deque)
        for i, p in enumerate(payloads):
            k = key_p(p)
            if not used[i] and k is not None:
                index[k].append(i)
        for j, d in enumerate(descs):
            k = key_d(d)
            if taken[j] or k is None or k not in index:
                continue
            q = index[k]
            while q and used[q[0]]:
                q.popleft()
            if q:
                i = q.popleft()
                used[i], taken[j] = True, True
                pairs.append((payloads[i], d))
    return (pairs, [p for i, p in enumerate(payloads) if not used[i]],
            [d for j, d in enumerate(descs) if not taken[j]])


def _stem(f: Found) -> str:
    return name_stem(f.location)


#: The rounds by digest (:func:`pair_found`'s first two): same digest and name stem; same digest.
_BY_DIGEST = ((lambda p: (p.sha256, _stem(p)) if p.sha256 else None,
               lambda d: (d.stated, _stem(d)) if d.stated else None),
              (lambda p: p.sha256, lambda d: d.stated))
#: The round by name stem (the third).
_BY_STEM = ((_stem, _stem),)


def pair_found(found: list[Found]) -> tuple[list[tuple[Found | None, Found | None]], list[Found]]:
    """Phase 2 (client): ``(pairs, others)``. ``pairs``: ``(payload, descriptor)`` paired over the whole source as
    :func:`inspector.checkpoint.pairing.pair_by_digest` pairs them (rounds: same digest and name stem; same
    digest; same name stem; each descriptor in listing order takes the first free payload that matches), plus
    each export wrapper as ``(wrapper, wrapper)``, sorted by the payload's location (else the descriptor's), as
    ``scan`` lists them. Indexed, so linear in the number of files (``pair_by_digest`` compares every payload with
    every descriptor). ``others``: the files of role ``unknown`` or ``error``, in listing order. Holds every file
    in memory: :class:`Pairing` gives the same pairs from partitions on the disk."""
    payloads = [f for f in found if f.role == "payload"]
    descs = [f for f in found if f.role == "descriptor"]
    got, payloads, descs = _rounds(payloads, descs, _BY_DIGEST + _BY_STEM)
    pairs = [(p.location, (p, d)) for p, d in got]
    pairs += [(d.location, (None, d)) for d in descs]
    pairs += [(p.location, (p, None)) for p in payloads]
    pairs += [(f.location, (f, f)) for f in found if f.role == "export"]
    pairs.sort(key=lambda kp: kp[0])
    return [pair for _, pair in pairs], [f for f in found if f.role in ("unknown", "error")]


def found_row(f: Found) -> list:
    """``f`` as a JSON list (``Found(*row)`` makes it again): how a file is spilled to the disk."""
    return [f.location, f.name, f.size, f.role, f.sha256, f.stated, f.error]


class Pairing:
    """Phase 2 for a source too large to hold (:func:`pair_found`'s pairs, the same ones, order aside), in
    bounded memory: files are spilled to the disk (:class:`.spill.Spill`, under the new folder ``folder``).

    :meth:`add` takes each classified file; after the last, :meth:`pairs` gives every pair.
    Why it is the same answer: the rounds by digest only ever pair files of one digest, so they are run one
    partition by digest at a time; what they leave is spilled again by name stem, and the round by name stem
    is run one partition by stem at a time; within a partition the files are sorted by location, which is the
    listing order :func:`pair_found` is given (every source lists sorted by location).

    Raises:
        OSError: the folder cannot be made or written (a full disk).
    """

    def __init__(self, folder: str, partitions: int | None = None):
        from .spill import PARTITIONS, Spill

        self.folder = folder
        self.partitions = partitions or PARTITIONS
        os.mkdir(folder)
        self._digest = Spill(os.path.join(folder, "digest"), self.partitions)
        self._stem = Spill(os.path.join(folder, "stem"), self.partitions)
        self._export = Spill(os.path.join(folder, "export"), 1)

    def add(self, f: Found) -> None:
        """Take one file of role ``payload``, ``descriptor`` or ``export`` (others are not pairs: the caller
        records them). Raises ``ValueError`` for another role."""
        if f.role == "export":
            self._export.add("", found_row(f))
            return None
        key = f.sha256 if f.role == "payload" else f.stated if f.role == "descriptor" else None
        if f.role not in ("payload", "descriptor"):
            raise ValueError(f"not a payload, descriptor or export: {f.role}")
        if key:
            self._digest.add(key, found_row(f))
        else:
            self._stem.add(_stem(f), found_row(f))
        return None

    def pairs(self):
        """Every pair: ``(payload, descriptor)``, ``(None, descriptor)``, ``(payload, None)`` or an export
        wrapper's ``(wrapper, wrapper)``, partition by partition. Removes its folder when done."""
        try:
            for r in self._export.stream():
                f = Found(*r)
                yield (f, f)
            for rows in self._digest.partitions():
                files = sorted((Found(*r) for r in rows), key=lambda f: f.location)
                got, payloads, descs = _rounds([f for f in files if f.role == "payload"],
                                               [f for f in files if f.role == "descriptor"], _BY_DIGEST)
                yield from got
                for f in payloads + descs:
                    self._stem.add(_stem(f), found_row(f))
            for rows in self._stem.partitions():
                files = sorted((Found(*r) for r in rows), key=lambda f: f.location)
                got, payloads, descs = _rounds([f for f in files if f.role == "payload"],
                                               [f for f in files if f.role == "descriptor"], _BY_STEM)
                yield from got
                yield from ((None, d) for d in descs)
                yield from ((p, None) for p in payloads)
        finally:
            self.remove()

    def remove(self) -> None:
        """Remove the spilled files and the folder."""
        for spill in (self._digest, self._stem, self._export):
            spill.remove()
        shutil.rmtree(self.folder, ignore_errors=True)


# ----------------------------------------------------------------------------------------- phase 3
def _gate(pdata: bytes | None, ddata: bytes | None, texts: bool):
    """The ticket's redaction gate for one checkpoint (file digests in clear): with ``texts`` (an engine message
    to render) :func:`inspector.ticket.redact.gate_for`, which parses the files so that each place's tagged
    unions narrow its types, as the ticket report's gate does; else a gate without the parsed files (the ids'
    places are in no tagged union: judged the same, without a second parse). Its tag key is derived from the
    files' first bytes (never written): equal values within one record share a tag, a record written again is
    the same bytes, and a tag cannot be checked against a guess without the files themselves."""
    from inspector.ticket import Gate
    from inspector.ticket.redact import gate_for

    h = hashlib.sha256(b"checkpoint-inspector audit tag key\0")  # (the files' first 64 KiB: content, not digests)
    h.update((pdata or b"")[:65536])
    h.update(b"\0")
    h.update((ddata or b"")[:65536])
    if texts:
        return gate_for(pdata, ddata, key=h.digest(), file_digests=True)
    return Gate(key=h.digest(), file_digests=True)


def _id(gate, pointer: str, value):
    """An id as the gate shows it (a credential-shaped one is a marker); ``None`` as it is."""
    if value is None:
        return None
    shown, kind = gate.judge("payload", pointer, value)
    return value if shown else gate.mark(value, kind or gate.kind("payload", pointer))


def _read(src: Source, f: Found) -> bytes:
    if src.local_paths:
        return read_regular(f.location)[0]
    return src.read(Entry(f.location, f.name, f.size, ""))


def where(location: str) -> str:
    """A file's location as a record gives it: a URL without its credentials and query
    (:func:`.sources.shown_location`), every character that would not show (a byte of a file name that is not
    UTF-8, a control, a bidi override) escaped as the CLI escapes it (:func:`.artifact.display_text`: ``p\\xff.json``,
    as ``verify`` and ``scan`` show the same name), so that a record is always UTF-8."""
    from inspector.checkpoint.artifact import display_text

    return display_text(shown_location(location))


def other_record(f: Found) -> dict:
    """The record of a file that is no checkpoint (``error``: ``not a checkpoint file``) or was not read
    (``error``: why)."""
    rec = _blank()
    rec.update(other=where(f.location), other_bytes=f.size, other_sha256=f.sha256, checkpoint=False,
               error=f.error or "not a checkpoint file")
    return rec


def _blank() -> dict:
    return {"schema": RECORD_SCHEMA, "checkpoint": True, "payload": None, "descriptor": None, "other": None,
            "payload_bytes": None, "descriptor_bytes": None, "other_bytes": None,
            "payload_sha256": None, "descriptor_sha256": None, "other_sha256": None, "sha256": None,
            "session_id": None, "run_id": None, "pass": None, "verified": False, "ok": False, "root_cause": None,
            "generation": None, "resumability": None, "lint": [], "error": None}


def record_key(rec: dict) -> tuple:
    """A record's key from its own members (each location as shown, with the SHA-256 of its bytes): what a
    journal written before keys were journaled is resumed by (:func:`pair_key` is what is journaled now)."""
    return (rec.get("payload"), rec.get("payload_sha256"), rec.get("descriptor"), rec.get("descriptor_sha256"),
            rec.get("other"), rec.get("other_sha256"))


def pair_key(p: Found | None, d: Found | None) -> tuple:
    """What says the record of a pair was written already (``--resume``, and once per pair): each file's
    location as listed (not as shown: two names that are shown alike, ``a\xff`` with a byte that is not UTF-8
    and ``a\\xff`` with a backslash, or two URLs that differ only in their query, are two checkpoints) with the
    SHA-256 of its bytes. The journal keeps its digest only (:meth:`.spill.KeySet.digest`: no query, no
    credential on the disk)."""
    return (p.location if p else None, p.sha256 if p else None,
            d.location if d else None, d.sha256 if d else None, None, None)


def shown_key(p: Found | None, d: Found | None) -> tuple:
    """:func:`record_key` of the record a pair will give: what a journal written before keys were journaled
    says of it."""
    return (where(p.location) if p else None, p.sha256 if p else None,
            where(d.location) if d else None, d.sha256 if d else None, None, None)


def other_key(f: Found) -> tuple:
    """:func:`pair_key` for the record of a file that is no checkpoint or was not read."""
    return (None, None, None, None, f.location, f.sha256)


def _verify_one(src: Source, p: Found | None, d: Found | None) -> tuple[dict, dict | None]:
    """``(record, facts)`` of one pair (see :func:`verify_batch`)."""
    from inspector.session import folderscan as fs

    rec = _blank()
    rec.update(payload=where(p.location) if p else None, descriptor=where(d.location) if d else None,
               payload_bytes=p.size if p else None, descriptor_bytes=d.size if d else None,
               payload_sha256=p.sha256 if p else None, descriptor_sha256=d.sha256 if d else None)
    errors = []
    pdata = ddata = None
    psize = None
    try:
        if d is not None and d.role != "export":
            ddata = _read(src, d)
            rec["descriptor_sha256"], rec["descriptor_bytes"] = _sha(ddata), len(ddata)
        if p is not None:
            if p.size is not None and p.size > MAX_CONTENT_BYTES and p.role == "payload":
                psize = p.size
            else:
                pdata = _read(src, p)
                rec["payload_bytes"] = psize = len(pdata)
                if psize > MAX_CONTENT_BYTES:
                    pdata = None
                else:
                    rec["payload_sha256"] = _sha(pdata)
            if pdata is None:
                errors.append(f"over the {MAX_CONTENT_BYTES >> 20} MiB ceiling (not read further)")
    except (OSError, SourceError, ValueError) as exc:
        rec["error"] = read_error(exc)
        return rec, None
    if p is not None and p.role == "export" and pdata is not None:
        rec["descriptor_sha256"] = rec["payload_sha256"]
        try:
            wrapper = checkpoint.InputFile(p.location, len(pdata), pdata, *checkpoint.detect_role(pdata)[:2])
            pay, desc = checkpoint.pair_inputs([wrapper])
        except (checkpoint.UnreadableInput, checkpoint.PairingError) as exc:
            rec["error"] = f"could not be read (the SDK export wrapper's content: {type(exc).__name__})"
            return rec, None
        pdata, ddata = (pay.data if pay else None), (desc.data if desc else None)
        psize = pay.size if pay else None
    kept: list = []
    known = rec["payload_sha256"] if p is not None and p.role == "payload" and pdata is not None else None
    report = checkpoint.verify(pdata, ddata, payload_size=psize, keep=kept, payload_digest=known,
                                 lint_spans=False)  # (the record keeps the lint kinds, not their spans)
    facts = fs._facts_of(kept[0], report, pdata is not None, ddata is not None)
    rc = report.root_cause
    gate = _gate(pdata, ddata, rc is not None)
    rec.update(verified=bool(report.verified), ok=bool(report.ok), sha256=facts.content_digest,
               session_id=_id(gate, "/snapshot/session/id", facts.session_id),
               run_id=_id(gate, "/logical_resume/run_id", facts.run_id), **{"pass": facts.passes},
               resumability=facts.resumability,
               root_cause=None if rc is None else {"rule": rc.rule.id, "code": rc.rule.code,
                                                   "message": gate.text(rc.message)},
               generation=None if report.generation is None else report.generation.detected,
               lint=sorted({x.kind for x in report.lint}))
    if rc is not None and rc.rule.id in PARSE_RULES:
        errors.append(f"could not be parsed: {rc.rule.id}")
    if errors:
        rec["error"] = "; ".join(errors)
    return rec, _journal_facts(facts)


def _h(v):
    """An id as the journal keeps it for grouping sessions: a keyed hash, equal for equal ids, never the id."""
    return None if v is None else "h:" + hashlib.sha256(b"audit id\0" + str(v).encode("utf-8", "surrogatepass")
                                                         ).hexdigest()[:32]


def _journal_facts(facts) -> dict:
    """The :class:`.folderscan.CheckpointFacts` that FORMAT.md 4.18's grouping needs, ids hashed (:func:`_h`)."""
    d = asdict(facts)
    d["session_id"], d["run_id"] = _h(d["session_id"]), _h(d["run_id"])
    if d["history"] is not None:
        d["history"] = {_h(k): v for k, v in d["history"].items()}
    if d["pass_kinds"] is not None:
        d["pass_kinds"] = {_h(k): {str(t): kind for t, kind in v.items()} for k, v in d["pass_kinds"].items()}
    return d


def verify_batch(location: str, recursive: bool, pairs: list[tuple[Found | None, Found | None]],
                 file_seconds: float = FILE_SECONDS, manifest: bool = False) -> dict:
    """Phase 3 on one batch (a Dask task): each pair read again and verified in-process by the engine.

    Returns ``{"items": [(record, facts or None, seconds)], "rest": pairs, "stuck": bool}``: per pair its record
    (:data:`RECORD_SCHEMA`: locations without credentials, sizes, SHA-256 of each file, ids through the ticket's
    gate, run and pass, verified, the root cause as ``verify --format json`` gives it (rule, code, and the
    message as the gate renders it), the detected generation (FORMAT.md 3.4), the resumability answer, the lint
    kinds, and ``error`` when a file could not be read or parsed), the facts FORMAT.md 4.18 groups by (ids
    hashed), and the seconds it took. A pair whose verification takes over ``file_seconds`` is given up: its
    record says so, ``stuck`` is True and the pairs after it are ``rest``, not verified here (the thread cannot
    be stopped: the client restarts the worker and sends ``rest`` again). ``manifest``: as for
    :func:`classify_batch`."""
    src = _open(location, recursive, manifest)
    items = []
    for n, (p, d) in enumerate(pairs):
        t0 = time.perf_counter()
        box: list = []

        def work(p=p, d=d, box=box):
            try:
                box.append(_verify_one(src, p, d))
            except Exception as exc:  # noqa: BLE001 - one file's failure is one record, never the batch
                box.append(exc)

        t = threading.Thread(target=work, name="audit file", daemon=True)
        t.start()
        t.join(file_seconds)
        if t.is_alive():  # (its thread cannot be stopped: the client restarts this worker, the rest go again)
            items.append((_given_up(p, d, f"over the {file_seconds:g} s time limit")[0], None,
                          round(time.perf_counter() - t0, 6)))
            return {"items": items, "rest": list(pairs[n + 1:]), "stuck": True}
        res = box[0]
        if isinstance(res, Exception):
            res = _given_up(p, d, f"could not be verified ({type(res).__name__})")
        items.append((res[0], res[1], round(time.perf_counter() - t0, 6)))
    return {"items": items, "rest": [], "stuck": False}


def _given_up(p: Found | None, d: Found | None, why: str) -> tuple[dict, None]:
    rec = _blank()
    rec.update(payload=where(p.location) if p else None, descriptor=where(d.location) if d else None,
               payload_bytes=p.size if p else None, descriptor_bytes=d.size if d else None,
               payload_sha256=p.sha256 if p else None, descriptor_sha256=d.sha256 if d else None, error=why)
    return rec, None
