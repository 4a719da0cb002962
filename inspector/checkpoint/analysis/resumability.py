"""The resumability answer: can the loop checkpoint be resumed, and if not, why.

One of three answers, decided in this order:

1. **Not resumable** when the artifact itself decides it:

   * a rule of FORMAT.md 6 fails on the import path: the reference's import refuses the
     artifact (the reason is the root cause; any other failing DL-/L- rule is listed too);
   * the payload (or, without a payload, the descriptor) has no loop checkpoint
     (``logical_resume``): nothing to continue a run from. If no rule failed, the artifact is
     still *loadable as a session* (``loadable_as_session``), only not as a loop resume;
   * an integrity-lint finding that blocks the resume (:attr:`.lint.LintFinding.blocks_resume`):
     the loop checkpoint's messages are not at a completed tool round.

2. **Cannot decide from the artifact** when what is given cannot settle it: only one of the two
   files (the import needs both: the payload is bound to its descriptor), or an internal error
   left rules unevaluated.

3. **Resumable** otherwise: every rule passes, there is a boundary, and no lint blocks it.

Every answer but "Not resumable" lists ``unknowns``: the host facts the artifact cannot prove and
a resume still depends on (the source run must still be non-terminal in the host's run store; the
host's cognitive package generation and run capability generation must still be the ones bound
here; a session bound to an immutable-content adapter needs the host to re-inject the same adapter;
a host-supplied tool presentation profile or tool-result transform policy that differs from the
snapshot's is refused: FORMAT.md 4.17 "Host re-binding on resume"). "Resumable" means "as far as the
artifact can show"; the unknowns are its conditions.
"""

from __future__ import annotations

from dataclasses import dataclass

from inspector.checkpoint.report import Location
from inspector.checkpoint.slotted import fmt, ours, value as _fv

__all__ = ["Resumability", "Reason", "Unknown", "decide", "RESUMABLE", "NOT_RESUMABLE", "CANNOT_DECIDE"]

RESUMABLE = "Resumable"
NOT_RESUMABLE = "Not resumable"
CANNOT_DECIDE = "Cannot decide from the artifact"


@dataclass(frozen=True)
class Reason:
    """Why: ``kind`` is ``rule`` (``id`` a rule id), ``lint`` (``id`` a lint kind) or ``artifact``
    (``id`` a fact: ``no-loop-checkpoint``, ``no-descriptor``...); ``text`` a plain sentence;
    ``location`` where, if anywhere."""

    kind: str
    id: str
    text: str
    location: Location | None = None


@dataclass(frozen=True)
class Unknown:
    """A host fact the artifact cannot prove: ``id`` (stable key) and ``text`` (a sentence)."""

    id: str
    text: str


@dataclass(frozen=True)
class Resumability:
    """The answer (:data:`RESUMABLE`, :data:`NOT_RESUMABLE` or :data:`CANNOT_DECIDE`), its
    ``reasons`` (the deciding one first), ``unknowns`` and ``loadable_as_session`` (True/False,
    ``None`` when unknown)."""

    answer: str
    reasons: tuple[Reason, ...] = ()
    unknowns: tuple[Unknown, ...] = ()
    loadable_as_session: bool | None = None

    @property
    def headline(self) -> str:
        """``answer`` plus the deciding reason's id: ``Not resumable (L-SOURCE-TERMINAL)``."""
        if self.answer == NOT_RESUMABLE and self.reasons:
            return f"{self.answer} ({self.reasons[0].id})"
        return self.answer

    def to_json(self) -> dict:
        """``{answer, reasons: [{kind, id, text, location}], unknowns: [{id, text}], loadable_as_session}``."""
        return {"answer": self.answer,
                "reasons": [{"kind": r.kind, "id": r.id, "text": r.text,
                             "location": None if r.location is None else r.location.to_json()}
                            for r in self.reasons],
                "unknowns": [{"id": u.id, "text": u.text} for u in self.unknowns],
                "loadable_as_session": self.loadable_as_session}


def _host_unknowns(lr: dict | None, pay: dict | None) -> list[Unknown]:
    run = lr.get("run_id") if lr else None
    out = [Unknown("source-run-live-status",
                   fmt("whether source run {} is still non-terminal in the host's run store (the artifact "
                       "records it as it was when exported)", _fv(run, "payload", "/logical_resume/run_id", form=repr))
                   if run else ours("whether the source run is still non-terminal in the host's run store"))]
    session = ((pay or {}).get("snapshot") or {}).get("session") or {}
    if session.get("cognitive_package_binding") is not None:
        b = session["cognitive_package_binding"] or {}
        at = "/snapshot/session/cognitive_package_binding"
        what = fmt(" ({} {}, lifecycle generation {})", _fv(b.get("packageId"), "payload", at + "/packageId"),
                   _fv(b.get("packageVersion"), "payload", at + "/packageVersion"),
                   _fv(b.get("lifecycleGeneration"), "payload", at + "/lifecycleGeneration"))
        out.append(Unknown("host-cognitive-generation",
                           "whether the host still serves the cognitive package generation bound here" + what))
    else:
        out.append(Unknown("host-cognitive-generation",
                           ours("whether the host runs without a cognitive package binding, as this session did")))
    if lr and lr.get("capability_binding") is not None:
        cb = lr["capability_binding"] or {}
        use = cb.get("useGeneration") or {}
        at = "/logical_resume/capability_binding"
        what = fmt(" (code catalog generation {}", _fv(cb.get("codeCatalogGeneration"), "payload",
                                                         at + "/codeCatalogGeneration"))
        what += fmt(", use generation {})", _fv(use.get("generation"), "payload", at + "/useGeneration/generation")) \
            if use else ")"
        out.append(Unknown("host-capability-generation",
                           "whether the host's run capability generation is still the one bound to the loop "
                           "checkpoint" + what))
    adapter = session.get("immutable_content_adapter_binding")
    if isinstance(adapter, dict):
        at = "/snapshot/session/immutable_content_adapter_binding"
        out.append(Unknown("host-immutable-adapter", fmt(
            "whether the host re-injects the same immutable-content adapter (authority {}, at most {} bytes): "
            "the session is bound to it, and the host must supply the same one to resume",
            _fv(adapter.get("authority_digest"), "payload", at + "/authority_digest"),
            _fv(adapter.get("maximum_bytes"), "payload", at + "/maximum_bytes"))))
    if lr is not None:
        out.append(Unknown("host-runtime-options", ours(
            "whether the host leaves the session's tool presentation profile and tool-result transform policy as "
            "the snapshot has them: a host-supplied one that differs is refused on resume")))
    return out


def decide(report, pay: dict | None, lint: list) -> Resumability:
    """The resumability answer of a verified report (see the module docstring for the mapping).

    Args:
        report: the :class:`~.report.Report` (rule verdicts, root cause, which files were given).
        pay: the decoded payload (serialized form), or ``None`` when there is none or it does not decode.
        lint: the :class:`~.lint.LintFinding` list of that payload.

    Returns:
        a :class:`Resumability`. Never raises.
    """
    rc = report.root_cause
    if rc is not None:
        reasons = [Reason("rule", rc.rule.id, rc.message, rc.locations[0] if rc.locations else None)]
        for f in report.failed():
            if f is not rc and f.rule.import_path and f.rule.id.startswith(("L-", "DL-")):
                reasons.append(Reason("rule", f.rule.id, f.message, f.locations[0] if f.locations else None))
        return Resumability(NOT_RESUMABLE, tuple(reasons), (), False)
    lr = pay.get("logical_resume") if pay is not None else None
    if pay is None and report.has_payload:
        # a payload that does not decode has a root cause; without one the engine was inconclusive
        return Resumability(CANNOT_DECIDE, (Reason("artifact", "inconclusive",
                                                   ours("an internal error left rules unevaluated")),), (), None)
    if pay is None:  # descriptor only
        try:
            has_lr = report.for_rule("DL-SCHEMA").verdict.value != "not_applicable"
        except KeyError:  # pragma: no cover - the catalogue has DL-SCHEMA
            has_lr = True
        if not has_lr:
            return Resumability(NOT_RESUMABLE, (Reason("artifact", "no-loop-checkpoint",
                                                       ours("the descriptor has no logical_resume evidence: the "
                                                       "checkpoint holds no tool-round boundary to resume a run "
                                                       "from")),), (), None)
        return Resumability(CANNOT_DECIDE, (Reason("artifact", "no-payload",
                                                   ours("only the descriptor was given: the loop checkpoint itself is "
                                                   "in the payload")),), tuple(_host_unknowns(None, None)), None)
    if lr is None:
        return Resumability(NOT_RESUMABLE, (Reason("artifact", "no-loop-checkpoint",
                                                   ours("the payload has no loop checkpoint (logical_resume): it restores "
                                                   "the session, but holds no tool-round boundary to continue a run "
                                                   "from"), Location("payload", "", None)),),
                            (), not report.internal_errors)
    blocking = [f for f in lint if f.blocks_resume]
    if blocking:
        return Resumability(NOT_RESUMABLE, tuple(Reason("lint", f.kind, f.explanation,
                                                        f.locations[0] if f.locations else None) for f in blocking),
                            (), not report.internal_errors)
    unknowns = _host_unknowns(lr, pay)
    if report.internal_errors:
        return Resumability(CANNOT_DECIDE, (Reason("artifact", "inconclusive",
                                                   ours("an internal error left rules unevaluated")),), tuple(unknowns), None)
    if not report.has_descriptor:
        return Resumability(CANNOT_DECIDE, (Reason("artifact", "no-descriptor",
                                                   ours("only the payload was given: the import also checks it against "
                                                   "its descriptor (sizes, digests, evidence)")),), tuple(unknowns), True)
    return Resumability(RESUMABLE, (), tuple(unknowns), True)
