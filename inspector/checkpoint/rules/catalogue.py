"""The rule catalogue: ``rules.toml`` loaded into frozen :class:`Rule` records.

Metadata (id, title, stage, reference error code, verbatim message, prerequisites, FORMAT.md
section) is data; the logic lives in :mod:`.checks`, joined by id. Catalogue order is the
reference's evaluation order (FORMAT.md 5), which is how the root cause is chosen.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

__all__ = ["Rule", "Plain", "catalogue", "rule", "PREFIX", "plain_texts", "catalogue_version"]

#: ``SessionCheckpointError`` Display prefixes by error code (FORMAT.md 5).
PREFIX = {
    "a3s.code.session_checkpoint.invalid_descriptor": "invalid session checkpoint descriptor: ",
    "a3s.code.session_checkpoint.invalid_payload": "invalid session checkpoint payload: ",
    "a3s.code.session_checkpoint.content_drift": "session checkpoint content drift: ",
    "a3s.code.session_checkpoint.encoding": "session checkpoint encoding failed: ",
}


@dataclass(frozen=True)
class Plain:
    """A rule in plain language, for support staff (``plain.toml``).

    Attributes:
        meaning: one sentence a non-developer understands.
        causes: the likely causes, most likely first.
        next_step: what to do next (one sentence).
    """

    meaning: str
    causes: tuple[str, ...]
    next_step: str


@dataclass(frozen=True)
class Rule:
    """One rule of FORMAT.md section 6.

    Attributes:
        id: stable rule id (``X-BYTES``). stage: ``D``/``P``/``S``/``L``/``X``.
        group: stage in words. title: the requirement, phrased positively.
        code: reference error code, or ``None`` (D-PARSE has no upstream variant).
        message: the reference's message text (``{…}`` marks interpolations).
        requires: rule ids whose failure makes this rule *not reached*.
        doc_ref: the governing FORMAT.md section. rank: position in evaluation order.
        import_path: False for host component checks the import path never reports.
        not_evaluated: reason the engine cannot evaluate it (an open item of FORMAT.md 10), or
            ``None``; every rule is evaluated today.
        unreachable: reason no input can make it fail on the checkpoint path, or ``None``.
        per_run: the reference checks it inside its loop over run records (FORMAT.md 6.3): its
            failures are ordered run by run with the other per-run rules (``rules.toml`` ``per_run``).
        plain: the rule in plain language (:class:`Plain`, from ``plain.toml``), or ``None``
            when ``plain.toml`` has no entry (a test requires one for every rule).
        compares: ``"stated"`` for a cross-binding rule whose failure holds the descriptor's stated value as
            ``actual`` and the one recomputed from the payload as ``expected`` (FORMAT.md 3.2, 6.2; shown as
            Stated / Recomputed, :func:`inspector.checkpoint.analysis.story.comparison`), else ``"expected"``.
    """

    id: str
    stage: str
    group: str
    title: str
    severity: str
    code: str | None
    message: str
    requires: tuple
    doc_ref: str
    rank: int
    import_path: bool = True
    not_evaluated: str | None = None
    unreachable: str | None = None
    plain: Plain | None = None
    per_run: bool = False
    compares: str = "expected"

    @property
    def prefix(self) -> str:
        """The reference's Display prefix for this rule's error variant ('' for none)."""
        return PREFIX.get(self.code or "", "")


@lru_cache(maxsize=1)
def catalogue() -> tuple[Rule, ...]:
    """All rules in evaluation order (loaded once from the packaged ``rules.toml``)."""
    raw = tomllib.loads(_data("rules.toml"))
    plain = {rid: Plain(p["meaning"], tuple(p["causes"]), p["next_step"])
             for rid, p in tomllib.loads(_data("plain.toml")).get("rule", {}).items()}
    out = []
    for rank, r in enumerate(raw["rule"]):
        out.append(Rule(
            id=r["id"], stage=r["stage"], group=r["group"], title=r["title"], severity=r["severity"],
            code=r["code"] or None, message=r["message"], requires=tuple(r["requires"]),
            doc_ref=r["doc_ref"], rank=rank, import_path=r.get("import_path", True),
            not_evaluated=r.get("not_evaluated"), unreachable=r.get("unreachable"), plain=plain.get(r["id"]),
            per_run=r.get("per_run", False), compares=r.get("compares", "expected"),
        ))
    return tuple(out)


def rule(rule_id: str) -> Rule:
    """Look up a rule by id. Raises ``KeyError`` for an unknown id."""
    for r in catalogue():
        if r.id == rule_id:
            return r
    raise KeyError(rule_id)


def _data(name: str) -> str:
    return resources.files(__package__).joinpath(name).read_text("utf-8")


@lru_cache(maxsize=1)
def plain_texts() -> dict:
    """The report-level plain texts of ``plain.toml`` (``[report]``): ``not_proven`` (list of
    sentences: what a VERIFIED verdict does not prove), ``not_a_checkpoint`` and
    ``what_checkpoints_look_like`` (sentences)."""
    report = tomllib.loads(_data("plain.toml"))["report"]
    return {"not_proven": tuple(report["not_proven"]), "not_a_checkpoint": report["not_a_checkpoint"],
            "what_checkpoints_look_like": report["what_checkpoints_look_like"]}


@lru_cache(maxsize=1)
def catalogue_version() -> str:
    """The rule catalogue's version as shown in reports: ``N rules, sha256:<first 16 hex>`` of
    the packaged ``rules.toml`` and ``plain.toml`` bytes (each length-prefixed, in that order),
    so any change to a rule or its plain text changes it."""
    import hashlib

    h = hashlib.sha256()
    for name in ("rules.toml", "plain.toml"):
        data = resources.files(__package__).joinpath(name).read_bytes()
        h.update(len(data).to_bytes(8, "big") + data)
    return f"{len(catalogue())} rules, sha256:{h.hexdigest()[:16]}"


#: The reference this inspector reproduces byte for byte (FORMAT.md 0, 3.1).
REFERENCE_PIN = {"a3s_code_commit": "06c82e911df5ab16292cf16c3359f6656daf6e81", "a3s_code_release": "8.3.0",
                 "serde_json": "1.0.151"}


def reference_line() -> str:
    """``reference A3S Code 8.3.0 (commit 06c82e9…), serde_json 1.0.151; rule catalogue N rules,
    sha256:…``: what ``--version`` and the About box name."""
    r = REFERENCE_PIN
    return (f"reference A3S Code {r['a3s_code_release']} (commit {r['a3s_code_commit']}), serde_json {r['serde_json']}; "
            f"rule catalogue {catalogue_version()}")
