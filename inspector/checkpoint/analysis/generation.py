"""Which A3S Code release wrote an artifact, when its content says so (FORMAT.md 3.4, 0.1).

The verdict is always the pinned reference's (8.3.0, commit 06c82e9). This module only explains it:

* a P-CANONICAL failure whose differences are fields a later release added (``LoopConvergenceState``
  ``gate_continuation_count``/``mutations``/..., ``VerificationReport.effect_digest``,
  ``Message.transcript_text``/``transcript_visibility``, ``SessionSnapshotV1.session_review``):
  written by a newer A3S Code, not corrupted;
* a P-CANONICAL failure that is exactly the earlier generation's bytes (commits b49e2b2/b5ab240);
* a durable-memory binding in ``shadow_candidates`` mode: valid here, but A3S Code 8.4.0 removed the
  mode, so newer readers reject the artifact (P-PARSE ``unknown variant``).

Under the 8.3.0 reference every one of these newer fields sits in a struct without
``deny_unknown_fields``, so it shows as P-CANONICAL (dropped on read), never as P-PARSE.
"""

from __future__ import annotations

from dataclasses import dataclass

from inspector.checkpoint.diagnosis.diagnose import diagnose_canonical
from inspector.checkpoint.diagnosis.hazards import REFERENCE_RELEASE, RELEASES
from inspector.checkpoint.diagnosis.newer import GenerationSign, newer_signs, newer_summary

__all__ = ["GenerationSign", "Generation", "detect_generation", "newer_summary"]

_DURABLE_MODE = "/snapshot/session/durable_memory_binding/mode"


@dataclass(frozen=True)
class Generation:
    """What the content says about the writer, next to the pinned reference's verdict.

    ``detected``: ``newer`` (written by a later release), ``earlier`` (the earlier reference
    generation's exact bytes) or ``rejected-by-newer`` (valid here, not readable by later
    releases). ``written_by``: the release, in words. ``explains``: the failing rule it explains
    (``P-CANONICAL``) or ``None`` when nothing failed. ``explains_all``: every difference of that
    failure is such a field. ``summary``: one sentence for the user. ``signs``: the fields.
    """

    detected: str
    written_by: str
    summary: str
    explains: str | None
    explains_all: bool
    signs: tuple[GenerationSign, ...]

    def to_json(self) -> dict:
        """The ``generation`` object of ``verify --format json``."""
        return {"detected": self.detected, "written_by": self.written_by, "reference": REFERENCE_RELEASE,
                "explains": self.explains, "explains_all": self.explains_all, "summary": self.summary,
                "signs": [s.to_json() for s in self.signs]}


def detect_generation(ctx, report) -> Generation | None:
    """The :class:`Generation` the payload of ``ctx`` shows, given its ``report``, else ``None``.

    Reads the (cached) P-CANONICAL diagnosis when that rule failed, and the decoded payload's
    durable-memory mode. Never changes a verdict."""
    pay = ctx.pay_result[0] if ctx.payload is not None else None
    if pay is None:
        return None
    signs: list[GenerationSign] = []
    canonical = report.for_rule("P-CANONICAL")
    if canonical.failed:
        diag = diagnose_canonical(ctx)
        signs = newer_signs(diag.differences)
        if signs:
            only = all(d.kind == "newer-field" for d in diag.differences)
            releases = sorted({s.release for s in signs})
            return Generation("newer", " / ".join(releases), newer_summary(diag.differences), "P-CANONICAL", only,
                              tuple(signs))
        if diag.generation:
            sign = GenerationSign("SessionSnapshotV1.retained_artifact_uris", "/snapshot/retained_artifact_uris",
                                  "A3S Code before 8.3.0 (commits b49e2b2/b5ab240)", "absent",
                                  "the earlier generation does not write it; 8.3.0 always does (P-CANONICAL)")
            return Generation("earlier", sign.release, diag.generation, "P-CANONICAL", True, (sign,))
    binding = pay.get("snapshot", {}).get("session", {}).get("durable_memory_binding")
    if isinstance(binding, dict) and binding.get("mode") == "shadow_candidates":
        sign = GenerationSign("DurableMemoryBindingV1.mode = shadow_candidates", _DURABLE_MODE, RELEASES["8.4.0"],
                              "removed", "valid here; A3S Code 8.4.0 and later reject it (P-PARSE: unknown variant "
                              "`shadow_candidates`, expected `active_recall`)")
        summary = (f"the durable memory binding is in shadow_candidates mode: valid for the pinned {REFERENCE_RELEASE} "
                   "reference (and for the verdict here), but A3S Code 8.4.0 removed that mode, so 8.4.0 and later reject "
                   "this artifact (P-PARSE: unknown variant `shadow_candidates`, expected `active_recall`)")
        return Generation("rejected-by-newer", "A3S Code 8.3.0 or earlier", summary, None, False, (sign,))
    return None
