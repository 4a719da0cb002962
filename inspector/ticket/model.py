"""The ticket report as data: what a support person sends engineering, redacted.

:func:`build_ticket` turns a verification :class:`~inspector.checkpoint.Report` (always computed
on the original bytes) and its input files into a plain ``dict`` (JSON-ready; the shape of
``report --format json``). Every engine text and every value from the files passes through one
:class:`~.gate.Gate`: our words as they are, each value from a file shown only when proven harmless.
The renderers in :mod:`.render` only format this dict.
"""

from __future__ import annotations

from inspector import jsonschemas

import datetime as _dt
import hashlib
import os
from dataclasses import asdict, is_dataclass

from inspector import __version__
from inspector.checkpoint import InputFile, Report, Verdict, display_path
from inspector.checkpoint.safeopen import open_file
from inspector.checkpoint.analysis.story import compared_fields, plain_of, plain_verdict
from inspector.checkpoint.rules.catalogue import REFERENCE_PIN as _REFERENCE_PIN, catalogue_version, plain_texts

from .gate import CREDENTIAL_ID, TAG_NOTE, Gate
from .redact import gate_for

__all__ = ["TICKET_SCHEMA", "REFERENCE_PIN", "build_ticket", "report_date", "VERDICT_COUNTS", "decodes"]

TICKET_SCHEMA = jsonschemas.TICKET
#: The reference this inspector reproduces (FORMAT.md 0, 3.1): defined with the rule catalogue.
REFERENCE_PIN = _REFERENCE_PIN
#: Rule counts in this order, with the words the text report uses.
VERDICT_COUNTS = ((Verdict.PASS, "pass"), (Verdict.FAIL, "fail"), (Verdict.NOT_REACHED, "not reached"),
                  (Verdict.NOT_APPLICABLE, "n/a"), (Verdict.NOT_EVALUATED, "not evaluated"))


def report_date(now: _dt.datetime | None = None) -> str:
    """The report's date, UTC, ``YYYY-MM-DDTHH:MM:SSZ``. ``$SOURCE_DATE_EPOCH`` (seconds since
    1970, the reproducible-builds convention) fixes it, e.g. for pinned test outputs.

    Raises:
        ValueError: ``$SOURCE_DATE_EPOCH`` is not an integer.
    """
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    if epoch is not None and epoch.strip():
        now = _dt.datetime.fromtimestamp(int(epoch), _dt.timezone.utc)
    now = now or _dt.datetime.now(_dt.timezone.utc)
    return now.strftime("%Y-%m-%dT%H:%M:%SZ")


def _file_sha256(f: InputFile, known: str | None = None) -> str:
    if known:
        return known
    if f.data is not None:
        return f.sha256()
    h = hashlib.sha256()  # over the ceiling: hashed in 1 MiB steps, never held whole
    try:
        fh, _st = open_file(f.path)  # (never a FIFO or device: refused without blocking)
        with fh:
            for chunk in iter(lambda: fh.read(1 << 20), b""):
                h.update(chunk)
    except OSError:
        return "(could not be read again)"
    return "sha256:" + h.hexdigest()


def _files(payload, descriptor, others, payload_digest, gate: Gate | None = None) -> list[dict]:
    """The input files: name (the file's own name, not its folder; not a value from a file), role,
    size, SHA-256 and the inspector's note on it (our words: :mod:`inspector.checkpoint.artifact`
    says what a file looks like without quoting its content)."""
    out = []
    for role, f in (("payload", payload), ("descriptor", descriptor)) + tuple(("not a checkpoint", o) for o in others):
        if f is None:
            continue
        name = display_path(os.path.basename(os.fspath(f.path)) or f.path)
        out.append({"role": role, "name": name,
                    "size_bytes": f.size,
                    "sha256": _shown_file_digest(gate, _file_sha256(f, payload_digest if role == "payload" else None)),
                    "note": _note(f)})
    return out


def _shown_file_digest(gate: Gate | None, digest: str) -> str:
    """A file's SHA-256 for the ticket: through ``gate`` (:meth:`~.gate.Gate.file_value`: a tagged marker
    unless the report shows the files' digests); a file that could not be read again keeps our words."""
    if gate is None or not digest.startswith("sha256:"):
        return digest
    return gate.file_value(digest)


def _note(f: InputFile) -> str | None:
    """How the file's role was chosen (when its content did not decide) and what looks wrong with
    it, in one line (the window shows the same line)."""
    return "; ".join(x for x in (getattr(f, "role_note", None), f.hint) if x) or None


def _where(finding, gate: Gate) -> str | None:
    """Where a finding points: the file and the JSON Pointer (its keys through the gate) or byte offset."""
    if not finding.locations:
        return None
    loc = finding.locations[0]
    span = "" if loc.span is None else f" (bytes {loc.span[0]}..{loc.span[1]})"
    if not loc.pointer:
        return f"{loc.source} file" + ("" if loc.span is None else f", byte offset {loc.span[0]}")
    return f"{loc.source} {gate.pointer(loc.source, loc.pointer)}{span}"


def _finding(f, gate: Gate, *, full: bool, report=None) -> dict:
    """A failing rule: the catalogue's words as they are (or the story's, :func:`.story.plain_of`: a proven restore
    says so); the engine's message, compared values and notes through the gate (slot by slot). ``compared``: the two
    values in the digests table's words and order (:func:`.story.comparison`; ``expected``/``actual`` kept as the
    finding holds them)."""
    plain = plain_of(f, report)
    entry = {"rule": f.rule.id, "title": f.rule.title, "code": f.rule.code,
             "message": gate.text(f.message),
             "where": _where(f, gate),
             "meaning": plain.meaning if plain else None}
    if full:
        # "compared": the two values' order and words (the digests table's), naming the fields that hold them: each
        # value is written once, so the redaction counts stay the markers' counts
        compared = [] if f.expected is None and f.actual is None else \
            [{"label": label, "field": attr} for label, attr in compared_fields(f.rule)]
        entry.update({
            "expected": gate.text(f.expected), "actual": gate.text(f.actual), "compared": compared,
            "details": [gate.text(n) for n in f.notes],
            "occurrences": f.occurrences,
            "causes": list(plain.causes) if plain else [],
            "next_step": plain.next_step if plain else None,
        })
    return entry


def _generation(report):
    """What the payload says about the release that wrote it (FORMAT.md 3.4). Its words and fields
    come from the engine's release tables (:mod:`inspector.checkpoint.diagnosis.hazards`), never from the file."""
    gen = getattr(report, "generation", None)
    if gen is None:
        return None
    if is_dataclass(gen):
        gen = asdict(gen)
    if isinstance(gen, dict):
        return {str(k): str(v) if isinstance(v, str) else v for k, v in gen.items()
                if v is None or isinstance(v, (str, int, float, bool))}
    return str(gen)


def _resumability(report, gate: Gate) -> dict | None:
    """Can it resume?: the answer, its reasons and the host facts it depends on."""
    r = getattr(report, "resumability", None)
    if r is None:
        return None
    return {"answer": r.answer, "headline": r.headline,
            "reasons": [{"kind": x.kind, "id": x.id, "text": gate.text(x.text)} for x in r.reasons],
            "unknowns": [gate.text(u.text) for u in r.unknowns]}


def decodes(report: Report | None) -> dict:
    """Which inputs decode as their typed layout (D-PARSE / P-PARSE pass): ``{source: bool}``.
    Only then are strings in fields in clear known to be ids, enum values, digests or names."""
    if report is None:
        return {}
    return {"payload": report.for_rule("P-PARSE").verdict is Verdict.PASS,
            "descriptor": report.for_rule("D-PARSE").verdict is Verdict.PASS}


def _verdict(report: Report) -> tuple[str, str, str]:
    """(word, plain headline, next step) of a report (:func:`.story.plain_verdict`)."""
    v = plain_verdict(report)
    return v.word, v.headline, v.next_step


def build_ticket(report: Report | None, payload: InputFile | None = None, descriptor: InputFile | None = None, *,
                 not_a_checkpoint: list[InputFile] = (), not_a_checkpoint_text: str | None = None,
                 hash_prefix: bool = False, redacted_payload: dict | None = None, date: str | None = None,
                 gate: Gate | None = None) -> dict:
    """The ticket report as a JSON-ready ``dict``.

    Args:
        report: the verification of ``payload``/``descriptor`` (on their original bytes), or
            ``None`` when no given file is a checkpoint file (then ``not_a_checkpoint`` lists the
            files and ``not_a_checkpoint_text`` says why, one line per file).
        payload, descriptor: the input files (names, sizes and bytes are read from them).
        hash_prefix: redacted values also carry a tag keyed per report (:data:`.gate.TAG_NOTE`; opt-in).
        gate: the :class:`~.gate.Gate` to render through (the redacted payload's, so the two share
            one tag key); default one made for these files.
        redacted_payload: facts on a redacted copy written beside the report (``name``,
            ``size_bytes``, ``sha256``, ``replacements``), or ``None``.
        date: the report date (default :func:`report_date`).

    Returns:
        a dict with keys ``schema``, ``verdict``, ``headline``, ``next_step``, ``files``,
        ``root_cause``, ``consequences``, ``digests``, ``rules``, ``generation``,
        ``not_proven``, ``inspector``, ``date``, ``redaction`` (values: str, int, bool, None, lists, dicts).
    """
    texts = plain_texts()
    files_data = [f for f in (payload, descriptor) if f is not None] + list(not_a_checkpoint)
    if gate is None:
        gate = gate_for(payload.data if payload else None, descriptor.data if descriptor else None, tags=hash_prefix)
    ticket = {"schema": TICKET_SCHEMA}
    if report is None:
        ticket.update(_not_a_checkpoint_fields(texts, files_data, not_a_checkpoint_text, gate))
    else:
        ticket.update(_verdict_fields(report, payload, descriptor, gate))
    ticket.update({
        "not_proven": list(texts["not_proven"]) if report is not None else [],
        "inspector": {"version": __version__, "rule_catalogue": catalogue_version(), "reference": dict(REFERENCE_PIN)},
        "date": date or report_date(),
        "redaction": {
            "policy": "allow-list and value checks, fail closed: a value from the files is shown only where the "
                      "allow-list names its place and it passes that place's check (an integer in a count, limit, "
                      "sequence or timestamp field, a size of the files themselves, a digest of values shown, "
                      "a variant the format lists, an id that passes the id check and does not look like a "
                      "credential or a personal number); message text, tool inputs and outputs, tool results, "
                      "file contents, prompts, memory contents, paths and environment values never are, nor a "
                      "digest or size computed over any of them (a tagged marker stands in its place); the files' own "
                      "digests are tagged too unless asked for (report --file-digests), since beside a "
                      "redacted payload each would test guesses at short redacted values",
            "values_redacted": gate.count,
            "credential_shaped_ids": gate.redacted[CREDENTIAL_ID],
            "digests_and_sizes_withheld": sum(gate.redacted[k] for k in gate.allow.tagged_kinds
                                              if k != gate.allow.file_kind),
            "file_digests_withheld": gate.redacted[gate.allow.file_kind],
            "file_digests": gate.file_digests,
            "sha256_prefixes": hash_prefix,
            "tags": TAG_NOTE if hash_prefix or any(gate.redacted[k] for k in gate.allow.tagged_kinds) else None,
            "redacted_payload": redacted_payload,
        },
    })
    return ticket


def _not_a_checkpoint_fields(texts: dict, files_data: list, not_a_checkpoint_text: str | None,
                             gate: Gate | None = None) -> dict:
    """The ticket's fields when no given file is a checkpoint file: the files and why, no verdict."""
    return {"verdict": "NOT A CHECKPOINT",
            "headline": texts["not_a_checkpoint"],
            "next_step": texts["what_checkpoints_look_like"],
            "files": [{**f, "note": None} for f in _files(None, None, files_data, None, gate)],
            "reasons": [line for line in (not_a_checkpoint_text or "").splitlines()],
            "root_cause": None, "consequences": [], "digests": [], "rules": None, "generation": None,
            "notes": [], "resumability": None, "lint": []}


def _verdict_fields(report: Report, payload, descriptor, gate: Gate) -> dict:
    """The ticket's fields of a verification: verdict, files, root cause and the other failures, digests,
    rule counts, generation, notes, resumability and lint, every value from the files through ``gate``."""
    word, headline, next_step = _verdict(report)
    rc = report.root_cause
    payload_digest = next((d.recomputed for d in report.digests if d.label == "payload content_digest"), None)
    counts = {v.value: 0 for v, _w in VERDICT_COUNTS}
    for f in report.findings:
        counts[f.verdict.value] += 1
    return {
        "verdict": word, "headline": headline, "next_step": next_step,
        "files": _files(payload, descriptor, (), payload_digest, gate),
        "root_cause": None if rc is None else _finding(rc, gate, full=True, report=report),
        # every other failure, each with its relation to the root cause (consequences.toml)
        "consequences": [{**_finding(f, gate, full=False, report=report), "relation": report.relation(f).kind,
                          "caused_by": report.relation(f).caused_by}
                         for f in report.failed() if f is not rc],
        # stated: the descriptor's value through the gate; recomputed: computed here (sizes, digests)
        "digests": [{"label": d.label, "stated": gate.value(d.stated, "descriptor", d.pointer),
                     "recomputed": d.recomputed if isinstance(d.recomputed, (int, type(None)))
                     else gate.file_value(str(d.recomputed)),
                     "matches": d.matches} for d in report.digests],
        "rules": counts,
        "internal_errors": list(report.internal_errors),
        "generation": _generation(report),
        "notes": [gate.text(n) for n in getattr(report, "notes", ())],
        "resumability": _resumability(report, gate),
        "lint": [{"kind": f.kind, "title": f.title, "explanation": gate.text(f.explanation),
                  "where": _where(f, gate), "blocks_resume": f.blocks_resume}
                 for f in getattr(report, "lint", ())],
    }
