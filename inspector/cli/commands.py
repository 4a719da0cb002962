"""The engine's own subcommands: ``verify``, ``describe``, ``canon``, ``rules`` and ``explain`` (:mod:`.main`
imports this module when one of them runs; exit codes as :mod:`.main` says)."""

from __future__ import annotations

import sys
import time

from inspector.checkpoint import (
    CanonicalError, catalogue, display_path, not_a_checkpoint, rule, verify,
)
from inspector.checkpoint.artifact import expand_exports
from inspector.checkpoint.pairing import find_sibling
from inspector.session.sources import is_url
from inspector.checkpoint.sdk_export import wrap as wrap_export
from inspector.checkpoint.analysis.story import comparison

from . import render
from .common import (
    EXIT_FAIL, EXIT_OK, EXIT_USAGE, UsageError, out as _out, err as _err, read_file as _read,
    not_a_checkpoint_error as _not_a_checkpoint_error, verified as _verified, exit_code as _exit_code,
    write_new as _write_new,
)
from .termsafe import terminal_safe

__all__ = ["cmd_verify", "cmd_describe", "cmd_canon", "cmd_rules", "cmd_explain"]


def _stage_printer(t0: float):
    """``on_stage`` for ``verify --progress``: each partial verdict on stderr as soon as it is known
    (with the failing rule's two compared values when the root cause is already decided).
    Progress lines carry stage names, rule ids, our words and counts, and no content: every
    engine text goes through the redaction gate (a digest or size shows, a value of the files does
    not), and every line is terminal-safe."""
    from inspector.ticket import Gate

    gate = Gate(file_digests=True)  # (verify's own output shows the files' digests: so does its progress)
    said = []

    def show(stage) -> None:
        rc = stage.root_cause
        if rc is not None and said:  # the root cause was given already: only say what was added
            _err(f"[{time.perf_counter() - t0:5.1f} s] payload structure read; checking the other rules…")
            return
        lines = [f"[{time.perf_counter() - t0:5.1f} s] {gate.text(stage.headline)}"]
        if rc is not None:
            said.append(rc.rule.id)
            for label, value in comparison(rc):  # (Stated, Recomputed for a cross-binding rule)
                lines.append(f"    {(label.lower() + ':').ljust(9)} {gate.text(value) if value is not None else '—'}")
            lines += [f"    - {gate.text(n)}" for n in rc.notes]
        _err("\n".join(terminal_safe(line) for line in lines))
        sys.stderr.flush()
    return show


def cmd_verify(args) -> int:
    """``verify FILE...``: one payload and/or one descriptor, recognised by content; returns the exit code.
    Files that are not checkpoint files at all are refused (exit 2), not reported as P-PARSE failures."""
    t0 = time.perf_counter()
    files = [_read(p) for p in args.files]
    reason = not_a_checkpoint(files)
    if reason:
        raise _not_a_checkpoint_error(reason)
    if args.progress:
        payload, descriptor, report = _verified(files, _stage_printer(t0))
    else:
        payload, descriptor, report = _verified(files)
    for problem in report.internal_errors:
        _err(terminal_safe(f"checkpoint-inspector: internal error, please report it: {problem}"))
    alone = payload if descriptor is None else descriptor if payload is None else None
    sibling = None if alone is None or alone.form or is_url(alone.path) or alone.path == "-" else find_sibling(
        alone.path, alone.role, alone.data, alone.size)
    if args.format == "json":
        _out(render.to_json(report, payload, descriptor, sibling))
    elif args.format == "sarif":
        _out(render.to_sarif(report, payload, descriptor))
    else:
        _out(render.to_text(report, payload, descriptor, all_rules=args.all, sibling=sibling))
    return _exit_code(report)


def cmd_describe(args) -> int:
    """``describe PAYLOAD``: the canonical descriptor bytes the payload should have (``--sdk-export``: the SDK
    export wrapper of the payload and that descriptor, FORMAT.md 1); exit 1 if a payload rule fails, 2 for a file
    that is not a checkpoint file or is clearly a descriptor (as ``verify``). An SDK export wrapper given as
    PAYLOAD is described by the payload it holds."""
    f = _read(args.payload)
    reason = not_a_checkpoint([f])
    if reason:
        raise _not_a_checkpoint_error(reason)
    f = next((x for x in expand_exports([f]) if x.role == "payload"), f)  # an SDK export wrapper: the payload it holds
    if f.role == "descriptor" and f.doubt is None:
        raise UsageError(f"{display_path(args.payload)} is a descriptor; describe takes a payload "
                         "('checkpoint-inspector verify PAYLOAD DESCRIPTOR' checks the pair)")
    report = verify(f.data, None, payload_size=f.size)
    if report.root_cause is not None:
        _err(terminal_safe(f"checkpoint-inspector: the payload fails {report.root_cause.rule.id}: "
                           f"{report.root_cause.message}"))
        return EXIT_FAIL
    data = report.expected_descriptor
    if args.sdk_export:
        data = wrap_export(f.data, data)
    if args.output:
        _write_new(args.output, data)  # never over an existing file, the input included
        return EXIT_OK
    _out(data)
    return EXIT_OK


def cmd_canon(args) -> int:
    """``canon FILE``: canonical_json_v1 bytes (FORMAT.md 3.1) to stdout, or serde_json's error and exit 1."""
    if args.diff:
        from . import compare

        return compare.cmd_canon_diff(args, _read, UsageError, _out)
    f = _read(args.file)
    if f.data is None:
        raise UsageError(f"{display_path(args.file)}: {f.hint}")
    from inspector.checkpoint.read.door import canonical_form
    from inspector.checkpoint.verify import collector_paused

    try:
        with collector_paused():  # millions of containers, no cycles
            text = canonical_form(f.data)
    except CanonicalError as e:
        _err(terminal_safe(f"{e} (serde_json {e.category} error at byte {e.offset})"))
        return EXIT_FAIL
    _out(text)
    return EXIT_OK


def cmd_rules(args) -> int:
    """``rules``: the catalogue as text, JSON or the Markdown table of docs/rules.md."""
    if args.format == "json":
        import json

        _out(json.dumps([{"id": r.id, "stage": r.stage, "title": r.title, "code": r.code, "message": r.message,
                          "requires": list(r.requires), "doc_ref": r.doc_ref, "import_path": r.import_path,
                          "not_evaluated": r.not_evaluated,
                          "plain": None if r.plain is None else {"meaning": r.plain.meaning, "causes": list(r.plain.causes),
                                                                 "next_step": r.plain.next_step}}
                         for r in catalogue()], indent=2) + "\n")
        return EXIT_OK
    if args.format == "markdown":
        _out(render.rules_markdown())
        return EXIT_OK
    lines = [f"{r.id:28} {r.stage}  {r.title}" + ("  [not evaluated]" if r.not_evaluated else "") for r in catalogue()]
    _out("\n".join(terminal_safe(line) for line in lines) + "\n")
    return EXIT_OK


def cmd_explain(args) -> int:
    """``explain RULE-ID``: one rule in plain language (meaning, likely causes, next step), then its
    code, verbatim message, prerequisites and FORMAT.md section."""
    try:
        r = rule(args.rule_id.upper())
    except KeyError:
        _err(f"checkpoint-inspector: unknown rule '{display_path(args.rule_id)}'; see 'checkpoint-inspector rules'")
        return EXIT_USAGE
    lines = [f"{r.id}: {r.title}"]
    if r.plain is not None:
        lines += ["", f"  In plain words: {r.plain.meaning}", "  Likely causes:"]
        lines += [f"    - {c}" for c in r.plain.causes]
        lines += [f"  Next step: {r.plain.next_step}", "", "  Reference:"]
    lines += [f"  stage:     {r.group} ({r.stage})",
             f"  code:      {r.code or '(none: host-side serde error, no upstream variant)'}",
             f"  message:   {r.prefix}{r.message}", f"  source:    {r.doc_ref}",
             f"  requires:  {', '.join(r.requires) or '-'}",
             f"  reported by the import path: {'yes' if r.import_path else 'no (host component check)'}",
             f"  documented: docs/rules.md#{r.id.lower()} (the rule reference)"]
    if r.not_evaluated:
        lines.append(f"  not evaluated: {r.not_evaluated}")
    _out("\n".join(terminal_safe(line) for line in lines) + "\n")
    return EXIT_OK
