"""Report -> text / JSON / SARIF. Pure functions returning ``str``; no I/O.

The text is terminal-safe (:func:`.termsafe.terminal_safe` on each line it prints: a key, value,
pointer or message from a file is escaped and stays on its line); JSON and SARIF keep the exact values.
"""

from __future__ import annotations

from inspector import jsonschemas, sarif

import json
from inspector.checkpoint import InputFile, Report, Verdict, catalogue, display_path, file_uri
from inspector.checkpoint.diagnosis.hazards import REFERENCE_RELEASE
from inspector.checkpoint.analysis.story import comparison

from .common import NOT_REDACTED
from .termsafe import terminal_safe

__all__ = ["to_text", "to_json_obj", "to_json", "to_sarif", "VERDICT_WORD"]

VERDICT_WORD = {
    Verdict.PASS: "pass", Verdict.FAIL: "FAIL", Verdict.NOT_REACHED: "not reached",
    Verdict.NOT_APPLICABLE: "n/a", Verdict.NOT_EVALUATED: "not evaluated",
}


def _loc(loc) -> dict:
    return loc.to_json()


def _input(f: InputFile | None, digest: str | None = None) -> dict | None:
    if f is None:
        return None
    # path: for people (bytes that are not UTF-8 shown as \\xNN); uri: the exact bytes, percent-encoded
    out = {"path": display_path(f.path), "uri": None if f.path == "-" else file_uri(f.path), "size_bytes": f.size, "sha256": digest or f.sha256(),
           "role": f.role, "hint": f.hint, "role_note": f.role_note}
    if f.form is not None:  # (only then: the shape of every other file's entry is unchanged)
        out["form"] = f.form
    return out


def form_note(f: InputFile) -> str | None:
    """The note on a payload or descriptor taken out of an SDK export wrapper (FORMAT.md 1), else ``None``."""
    if f.form is None:
        return None
    if f.role == "payload":
        return f"decoded from the {f.form}'s contentBase64 in this file; byte offsets count in the decoded payload"
    return f"the {f.form}'s descriptor object in this file; byte offsets count from its first byte"


def to_json_obj(report: Report, payload: InputFile | None = None, descriptor: InputFile | None = None) -> dict:
    """The JSON shape of ``verify --format json`` (same keys whether it passes or fails)."""
    rc = report.root_cause
    rules = []
    for f in report.findings:
        entry = {"id": f.rule.id, "title": f.rule.title, "stage": f.rule.stage, "verdict": f.verdict.value,
                 "code": f.rule.code}
        if f.failed:
            entry.update({
                "message": f.message, "locations": [_loc(x) for x in f.locations],
                "location": _loc(f.locations[0]) if f.locations else None,
                "expected": f.expected, "actual": f.actual, "notes": list(f.notes),
                "occurrences": f.occurrences, "root_cause": f is rc,
                **report.relation(f).to_json(),  # root_cause, consequence (caused_by, because) or independent
            })
        elif f.verdict is Verdict.NOT_REACHED:
            entry["blocked_by"] = f.blocked_by
        elif f.verdict in (Verdict.NOT_APPLICABLE, Verdict.NOT_EVALUATED):
            entry["reason"] = f.detail
        rules.append(entry)
    return {
        "schema": jsonschemas.VERIFY,
        "verified": report.verified,
        "ok": report.ok,
        "inconclusive": report.inconclusive,
        "internal_errors": list(report.internal_errors),
        # the payload digest was already computed by the engine (X-BYTES); do not hash it again
        "inputs": {"payload": _input(payload, next((d.recomputed for d in report.digests
                                                    if d.label == "payload content_digest"), None)),
                   "descriptor": _input(descriptor)},
        "root_cause": None if rc is None else {
            "rule": rc.rule.id, "code": rc.rule.code, "message": rc.message,
            "location": _loc(rc.locations[0]) if rc.locations else None,
            "expected": rc.expected, "actual": rc.actual, "notes": list(rc.notes),
        },
        # what the payload says about the A3S Code release that wrote it (FORMAT.md 3.4); never a verdict
        "generation": None if report.generation is None else report.generation.to_json(),
        "notes": list(report.notes),
        # integrity lint and the resumability answer: never a verdict, never the exit code
        "lint": [x.to_json() for x in report.lint],
        "resumability": None if report.resumability is None else report.resumability.to_json(),
        # X-BYTES failed, and the canonical re-encoding of what the payload holds is the bound content
        "restoration": None if report.restoration is None else report.restoration.to_json(),
        "rules": rules,
        "digests": [{"label": d.label, "pointer": d.pointer, "stated": d.stated, "recomputed": d.recomputed,
                     "matches": d.matches} for d in report.digests],
        "expected_descriptor": None if report.expected_descriptor is None else json.loads(report.expected_descriptor),
    }


def to_json(report: Report, payload=None, descriptor=None, sibling=None) -> str:
    """``verify --format json`` output (one JSON document, newline-terminated). ``sibling``: the other half found
    beside a file given alone (:class:`~inspector.checkpoint.pairing.Sibling`): ``inputs.sibling`` then names it."""
    obj = to_json_obj(report, payload, descriptor)
    if sibling is not None:
        obj["inputs"]["sibling"] = {"path": display_path(sibling.path), "uri": file_uri(sibling.path), "found_by": sibling.how}
    return json.dumps(obj, ensure_ascii=False, indent=2) + "\n"


def _where(loc) -> str:
    if not loc.pointer:
        return f"{loc.source} file" + ("" if loc.span is None else f", byte offset {loc.span[0]}")
    span = "" if loc.span is None else f" (bytes {loc.span[0]}..{loc.span[1]})"
    return f"{loc.source} {loc.pointer}{span}"


def _inputs_text(payload, descriptor, sibling) -> list[str]:
    """The lines naming the input files, each with its notes (form, role, hint, the sibling found beside it)."""
    out = []
    for label, f in (("payload", payload), ("descriptor", descriptor)):
        if f is not None:
            out.append(f"{label + ':':12}{display_path(f.path)} ({f.size} bytes)")
            beside = None if sibling is None else (
                f"{sibling.sentence(label)}; verify the pair: checkpoint-inspector verify {display_path(f.path)} "
                f"{display_path(sibling.path)}")
            for note in (form_note(f), f.role_note, f.hint, beside):
                if note:
                    out.append(f"{'':12}note: {note}")
    return out


def to_text(report: Report, payload=None, descriptor=None, *, all_rules: bool = False, sibling=None) -> str:
    """Human-readable ``verify`` output: the not-redacted notice (:data:`.common.NOT_REDACTED`), then verdict,
    root cause, digests, rule summary. Each line is
    terminal-safe (:func:`.termsafe.terminal_safe`), whatever the files hold. ``sibling``: the other half found
    beside a file given alone (:class:`~inspector.checkpoint.pairing.Sibling`), named in a note."""
    out = [NOT_REDACTED] + _inputs_text(payload, descriptor, sibling)
    out.append("")
    rc = report.root_cause
    if report.inconclusive:
        out.append("INCONCLUSIVE: an internal error left rules unevaluated ("
                   + "; ".join(report.internal_errors) + "); not verified. Please report it.")
    elif report.verified:
        out.append("VERIFIED: the reference accepts this checkpoint.")
    elif rc is None and report.ok:
        only = "payload" if report.has_payload else "descriptor"
        out.append(f"CONSISTENT: no rule failed for this {only} alone (give both files to verify the pair).")
    else:
        out.append("NOT VERIFIED: the reference rejects this checkpoint.")
    if rc is not None:
        out.append("")
        out.append(f"Root cause: {rc.rule.id} ({rc.rule.title})")
        out.append(f"  code:     {rc.rule.code or '(none: host-side parse error)'}")
        out.append(f"  message:  {rc.message}")
        for loc in rc.locations[:1]:
            out.append(f"  where:    {_where(loc)}")
        for label, value in comparison(rc):  # the digests table's words and order for a cross-binding rule
            out.append(f"  {(label.lower() + ':').ljust(9)} {value if value is not None else '—'}")
        for n in rc.notes:
            out.append(f"  - {n}")
    if report.restoration is not None:
        out.append("")
        out.append(f"Restorable: {report.restoration.sentence}.")
        out.append("  checkpoint-inspector restore PAYLOAD DESCRIPTOR -o NEW_FILE writes it (never over a file)")
    g = report.generation
    if g is not None:
        out.append("")
        out.append(f"Written by: {g.written_by}; the verdict above is the pinned {REFERENCE_RELEASE} reference's")
        for sign in g.signs:
            out.append(f"  - {sign.field} at payload {sign.pointer}: {sign.change} in {sign.release}")
    shown = set(rc.notes) if rc is not None else set()
    for note in report.notes:
        if note not in shown:
            out.append(f"Note: {note}")
    out += _resume_text(report)
    if report.digests:
        out.append("")
        out.append("Digests (stated in descriptor / recomputed from payload):")
        for d in report.digests:
            mark = {True: "ok  ", False: "DIFF", None: "    "}[d.matches]
            out.append(f"  {mark} {d.label:32} {_val(d.stated)}")
            if d.matches is False or d.stated is None:
                out.append(f"       {'recomputed':32} {_val(d.recomputed)}")
    counts = {}
    for f in report.findings:
        counts[f.verdict] = counts.get(f.verdict, 0) + 1
    out.append("")
    out.append("Rules: " + ", ".join(f"{counts.get(v, 0)} {VERDICT_WORD[v]}" for v in Verdict))
    for f in report.findings:
        if all_rules or f.failed:
            rel = report.relation(f)
            tag = "" if rel is None or rc is None else (
                " (root cause)" if f is rc else f" (consequence of {rel.caused_by})" if rel.kind == "consequence"
                else " (independent: fixing the root cause does not fix it)")
            extra = f" x{f.occurrences}" if f.occurrences > 1 else ""
            line = f"  {VERDICT_WORD[f.verdict]:13} {f.rule.id:28} {f.rule.title}{tag}{extra}"
            out.append(line)
            if all_rules and f.verdict is Verdict.NOT_REACHED:
                out.append(f"  {'':13} {'':28} blocked by {f.blocked_by}")
    if not all_rules:
        out.append("  (use --all to list every rule)")
    return "\n".join(terminal_safe(line) for line in out) + "\n"


def _resume_text(report: Report) -> list[str]:
    """The ``Resumability:`` and ``Integrity lint`` sections of the text output."""
    out = []
    res = report.resumability
    if res is not None:
        out += ["", f"Resumability: {res.headline}"]
        out += [f"  because: {r.text}" for r in res.reasons]
        if res.loadable_as_session and res.answer != "Resumable":
            out.append("  the artifact is still loadable as a session")
        out += [f"  host must confirm: {u.text}" for u in res.unknowns]
    if report.lint:
        out += ["", f"Integrity lint ({len(report.lint)} finding(s); not rules of the reference, never change the verdict):"]
        for x in report.lint:
            flag = " [blocks resume]" if x.blocks_resume else ""
            out.append(f"  {x.kind}{flag}: {x.explanation}")
            out += [f"    where: {_where(loc)}" for loc in x.locations[:2]]
            if x.more:
                out.append(f"  ... and {x.more} more {x.kind} finding(s)")
    return out


def _val(v) -> str:
    return "-" if v is None else str(v)


def to_sarif(report: Report, payload=None, descriptor=None) -> str:
    """SARIF 2.1.0 log (:mod:`inspector.sarif`): every catalogue rule, one result per failing rule with byte
    regions in the files (``byteOffset``, ``byteLength``: bytes) and its JSON Pointer; the generation and notes,
    which never change a verdict (FORMAT.md 3.4, 7.8), in the run's properties."""
    def uri(f, name):
        return file_uri(f.path) if f is not None and f.path != "-" else name  # percent-encoded exact bytes: valid UTF-8

    files = {"payload": uri(payload, "payload"), "descriptor": uri(descriptor, "descriptor")}
    rules = [{"id": r.id, "name": r.id, "shortDescription": {"text": r.title},
              "fullDescription": {"text": r.message},
              "properties": {"code": r.code, "stage": r.stage, "doc_ref": r.doc_ref}} for r in catalogue()]
    results = []
    for f in report.failed():
        locs = []
        for loc in f.locations:
            phys = {"artifactLocation": {"uri": files[loc.source]}}
            if loc.span is not None:
                phys["region"] = {"byteOffset": loc.span[0], "byteLength": loc.span[1] - loc.span[0]}
            locs.append({"physicalLocation": phys,
                         "logicalLocations": [{"fullyQualifiedName": f"{loc.source}{loc.pointer}"}]})
        results.append(sarif.result(f.rule.id, f.message, {"root_cause": f is report.root_cause, "code": f.rule.code,
                                                           "expected": f.expected, "actual": f.actual}, locs))
    return sarif.dumps(sarif.log(rules, results, run_properties={
        "generation": None if report.generation is None else report.generation.to_json(),
        "notes": list(report.notes)}))


def rules_markdown() -> str:
    """The rule table of docs/rules.md, generated from the catalogue (tools/gen_rules_doc.py writes it; a test keeps them in sync)."""
    lines = ["| Rule | Stage | Requirement | Reference code | Evaluated |", "|---|---|---|---|---|"]
    for r in catalogue():
        if r.not_evaluated:
            status = f"no: {r.not_evaluated}"
        elif r.unreachable:
            status = f"yes (cannot fail here: {r.unreachable})"
        elif not r.import_path:
            status = "yes (host component check, never the root cause)"
        else:
            status = "yes"
        code = r.code.rsplit(".", 1)[1] if r.code else "(host serde error)"
        lines.append(f"| {r.id} | {r.stage} | {r.title} | {code} | {status} |")
    return "\n".join(lines) + "\n"
