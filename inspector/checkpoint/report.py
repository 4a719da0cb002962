"""Result objects of a verification: :class:`Location`, :class:`Finding`, :class:`Report`.

A report is never raised; it holds one :class:`Finding` per catalogue rule, in evaluation
order, and names the root cause (the failure the reference would report first).
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field

from inspector.checkpoint.rules.catalogue import Rule
from inspector.checkpoint.rules.consequences import relations
from .slotted import ours

__all__ = ["Verdict", "Location", "Finding", "DigestRow", "Report"]


class Verdict(str, enum.Enum):
    """A rule's outcome.

    ``pass``/``fail``; ``not_reached``: a prerequisite failed (see ``blocked_by``);
    ``not_applicable``: the inputs lack what the rule checks (no descriptor, no loop
    checkpoint); ``not_evaluated``: the rule could not be evaluated, either because an internal
    error stopped it (the report is then inconclusive) or because the catalogue marks it so (a
    rule FORMAT.md 10 leaves unknowable; none today).
    """

    PASS = "pass"
    FAIL = "fail"
    NOT_REACHED = "not_reached"
    NOT_APPLICABLE = "not_applicable"
    NOT_EVALUATED = "not_evaluated"


@dataclass(frozen=True)
class Location:
    """Where a finding points: ``source`` is ``payload`` or ``descriptor``; ``pointer`` an RFC
    6901 JSON Pointer (``""`` for the whole document); ``span`` a half-open byte range in that
    file, or ``None`` when the value is absent from the file."""

    source: str
    pointer: str
    span: tuple[int, int] | None = None

    def to_json(self) -> dict:
        """``{source, pointer, span: {start, end} | null}`` (the JSON output's location shape)."""
        return {"source": self.source, "pointer": self.pointer,
                "span": None if self.span is None else {"start": self.span[0], "end": self.span[1]}}


@dataclass(frozen=True)
class Finding:
    """One rule's verdict.

    Attributes:
        rule: the catalogue :class:`~.catalogue.Rule`.
        verdict: the :class:`Verdict`.
        detail: for failures, the reference's message text without prefix (``message`` adds
            the prefix); for other verdicts an explanation.
        locations: where the failure is, primary first.
        expected, actual: the value the rule wanted and the one found (strings), if any.
        blocked_by: the prerequisite rule id for ``not_reached``.
        order: evaluation-order key; the smallest failing import-path key is the root cause.
        notes: further explanation lines (e.g. P-CANONICAL's difference classes).
        occurrences: how many times the rule failed (e.g. several run records).
    """

    rule: Rule
    verdict: Verdict
    detail: str = ""
    locations: tuple[Location, ...] = ()
    expected: str | None = None
    actual: str | None = None
    blocked_by: str | None = None
    order: tuple = ()
    notes: tuple[str, ...] = ()
    occurrences: int = 0

    @property
    def message(self) -> str:
        """Full reference error text: ``<variant prefix><detail>`` (FORMAT.md 5)."""
        return self.rule.prefix + self.detail if self.verdict is Verdict.FAIL else self.detail

    @property
    def failed(self) -> bool:
        """True for a ``fail`` verdict."""
        return self.verdict is Verdict.FAIL


@dataclass(frozen=True)
class DigestRow:
    """A digest or size shown with its stated and recomputed value.

    ``stated`` is what the descriptor says (``None`` without a descriptor); ``recomputed`` is
    what the engine computed from the payload (or from the descriptor's own fields for
    evidence/descriptor digests when no payload is given). ``preimage`` is the exact hashed
    bytes (domain, 0x00, canonical JSON) when small enough to keep, else ``None``;
    ``preimage_size`` its length in bytes.
    """

    label: str
    pointer: str
    stated: object
    recomputed: object
    domain: str | None = None
    preimage: bytes | None = None
    preimage_size: int = 0

    @property
    def matches(self) -> bool | None:
        """True/False when both values are known, ``None`` when one side is missing."""
        if self.stated is None or self.recomputed is None:
            return None
        return self.stated == self.recomputed


@dataclass
class Report:
    """Everything one verification found.

    Attributes:
        findings: one :class:`Finding` per catalogue rule, in evaluation order.
        root_cause: the failure the reference reports first, or ``None`` when none failed.
        expected_descriptor: canonical bytes of the descriptor rebuilt from the payload
            (``None`` when the payload does not decode).
        digests: :class:`DigestRow` values for the digests pane.
        canonical_bytes: the reference's re-encoding of the payload (``None`` if undecodable):
            ``bytes``, or a ``bytearray`` when the typed fast path assembled it while proving a
            pretty-printed copy (no second copy of up to 256 MiB is made).
        payload_size, descriptor_size: input sizes in bytes (``None`` when absent).
        internal_errors: engine defects caught while evaluating (rule id and exception); the
            affected rules are marked not evaluated. Empty in normal operation.
        generation: what the payload says about the A3S Code release that wrote it
            (:class:`~.generation.Generation`, FORMAT.md 3.4), or ``None``. Never changes a verdict.
        notes: sentences about the artifact that explain, never change, the verdicts: the
            generation's summary, a ``yolo_lanes`` order no one can reproduce (FORMAT.md 7.8).
        lint: integrity-lint findings (:class:`~.lint.LintFinding`); never change a verdict.
        resumability: the :class:`~.resumability.Resumability` answer, or ``None`` if it could not be made.
        views: ``(Timeline, Transcript)`` of :mod:`.views` when asked for (``verify(views=True)``), else ``None``.
        restoration: when X-BYTES failed and the canonical re-encoding of what the payload holds is exactly the
            bound content (:class:`~.analysis.restore.Restoration`: proven by size and SHA-256), else ``None``.
    """

    findings: list[Finding]
    root_cause: Finding | None
    expected_descriptor: bytes | None = None
    digests: list[DigestRow] = field(default_factory=list)
    canonical_bytes: bytes | bytearray | None = None
    payload_size: int | None = None
    descriptor_size: int | None = None
    has_payload: bool = False
    has_descriptor: bool = False
    internal_errors: list[str] = field(default_factory=list)
    generation: object | None = None
    notes: list[str] = field(default_factory=list)
    lint: list = field(default_factory=list)
    resumability: object | None = None
    views: object | None = None
    restoration: object | None = None

    @property
    def verified(self) -> bool:
        """True when both files were given, no rule failed and every rule could be evaluated."""
        return self.has_payload and self.has_descriptor and self.ok

    @property
    def ok(self) -> bool:
        """True when no rule failed and no engine defect left a rule unevaluated (fail safe)."""
        return not self.internal_errors and not any(f.failed for f in self.findings)

    @property
    def inconclusive(self) -> bool:
        """True when no rule failed but an engine defect left a rule unevaluated."""
        return bool(self.internal_errors) and not any(f.failed for f in self.findings)

    def failed(self) -> list[Finding]:
        """The failing findings in evaluation order."""
        return [f for f in self.findings if f.failed]

    def relation(self, finding: Finding):
        """How a failing ``finding`` relates to the root cause: a
        :class:`~.consequences.Relation` (root cause, consequence with ``caused_by``, or independent;
        declared in ``consequences.toml``), or ``None`` for a finding that did not fail."""
        if not finding.failed:
            return None
        cache = self.__dict__.get("_relations")
        if cache is None:
            cache = self.__dict__["_relations"] = relations(self)
        return cache.get(finding.rule.id)

    def for_rule(self, rule_id: str) -> Finding:
        """The finding of one rule. Raises ``KeyError`` for an unknown id."""
        for f in self.findings:
            if f.rule.id == rule_id:
                return f
        raise KeyError(rule_id)


#: :class:`Stage` names, in the order they come (hash before parse).
STAGE_BYTES = "bytes"
STAGE_STRUCTURE = "structure"


@dataclass
class Stage:
    """A partial verdict, given before the report is complete (``verify(on_stage=...)``).

    Rules are evaluated in the reference's order, and a stage is taken only at a boundary where
    every rule decided so far ranks before every rule still to come, so a stage never
    contradicts the final :class:`Report`: its findings are the report's (same verdict, message,
    expected and actual; an X-BYTES failure's note on the payload's own form, and a payload
    location's byte span, may come only with the report), and a root cause named here is the
    report's root cause.

    Attributes:
        name: :data:`STAGE_BYTES` (descriptor rules, payload size and content digest decided,
            payload not parsed yet) or :data:`STAGE_STRUCTURE` (payload parsed and typed too).
        findings: the findings decided so far, in evaluation order.
        root_cause: the final root cause when it is already known, else ``None``.
        digests: the payload size and content digest rows (stated vs recomputed).
        has_payload, has_descriptor: which inputs were given.
    """

    name: str
    findings: list[Finding]
    root_cause: Finding | None
    digests: list[DigestRow] = field(default_factory=list)
    has_payload: bool = False
    has_descriptor: bool = False

    @property
    def headline(self) -> str:
        """One line for people: the root cause once known, else what is known and what is being
        checked (``Bytes match the descriptor (size and content digest); checking structure…``)."""
        rc = self.root_cause
        if rc is not None:
            return ("NOT VERIFIED: " + rc.rule.id + " failed — ") + rc.message + "; checking the other rules…"
        if self.name == STAGE_BYTES:
            if self.has_descriptor and self.has_payload:
                return ours("Bytes match the descriptor (size and content digest); checking structure…")
            return ours("Payload read and hashed; checking structure…")
        if self.has_descriptor and self.has_payload:
            return ours("Bytes match the descriptor and the payload parses as a v1 payload; checking every rule…")
        return ours("The payload parses as a v1 payload; checking every rule…")
