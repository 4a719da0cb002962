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

__all__ = ["Rule", "catalogue", "rule", "PREFIX"]

#: ``SessionCheckpointError`` Display prefixes by error code (FORMAT.md 5).
PREFIX = {
    "a3s.code.session_checkpoint.invalid_descriptor": "invalid session checkpoint descriptor: ",
    "a3s.code.session_checkpoint.invalid_payload": "invalid session checkpoint payload: ",
    "a3s.code.session_checkpoint.content_drift": "session checkpoint content drift: ",
    "a3s.code.session_checkpoint.encoding": "session checkpoint encoding failed: ",
}


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

    @property
    def prefix(self) -> str:
        """The reference's Display prefix for this rule's error variant ('' for none)."""
        return PREFIX.get(self.code or "", "")


@lru_cache(maxsize=1)
def catalogue() -> tuple[Rule, ...]:
    """All rules in evaluation order (loaded once from the packaged ``rules.toml``)."""
    raw = tomllib.loads(resources.files(__package__).joinpath("rules.toml").read_text("utf-8"))
    out = []
    for rank, r in enumerate(raw["rule"]):
        out.append(Rule(
            id=r["id"], stage=r["stage"], group=r["group"], title=r["title"], severity=r["severity"],
            code=r["code"] or None, message=r["message"], requires=tuple(r["requires"]),
            doc_ref=r["doc_ref"], rank=rank, import_path=r.get("import_path", True),
            not_evaluated=r.get("not_evaluated"), unreachable=r.get("unreachable"),
        ))
    return tuple(out)


def rule(rule_id: str) -> Rule:
    """Look up a rule by id. Raises ``KeyError`` for an unknown id."""
    for r in catalogue():
        if r.id == rule_id:
            return r
    raise KeyError(rule_id)
