"""How each failing rule relates to the root cause: root cause, consequence, or independent.

A failure is a *consequence* only when a declared dependency (``consequences.toml``) says fixing its
cause would change it: the rule checks something the cause's field or bytes feed into (the rebuilt
descriptor and the component evidence after the payload bytes changed; a digest over an edited
field). Every other failure is *independent*: it also fails, and fixing the root cause does not fix
it. A consequence's ``caused_by`` is the root cause when the root cause is among its declared
causes, else the first failing declared cause in evaluation order (a consequence of another
failure). Never changes a verdict or the root cause.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources

__all__ = ["Relation", "ROOT_CAUSE", "CONSEQUENCE", "INDEPENDENT", "declared_causes", "relations"]

ROOT_CAUSE = "root_cause"
CONSEQUENCE = "consequence"
INDEPENDENT = "independent"


@dataclass(frozen=True)
class Relation:
    """One failing rule's relation: ``kind`` (:data:`ROOT_CAUSE`, :data:`CONSEQUENCE` or
    :data:`INDEPENDENT`), ``caused_by`` (a rule id, for a consequence) and ``because`` (the
    declared reason, for a consequence)."""

    kind: str
    caused_by: str | None = None
    because: str | None = None

    def to_json(self) -> dict:
        """``{relation, caused_by, because}``."""
        return {"relation": self.kind, "caused_by": self.caused_by, "because": self.because}


@lru_cache(maxsize=1)
def declared_causes() -> dict[str, list[tuple[str, str]]]:
    """``rule id -> [(cause rule id, because), ...]`` from ``consequences.toml``, groups expanded.

    Raises:
        ValueError: an entry names an unknown group.
    """
    raw = tomllib.loads(resources.files(__package__).joinpath("consequences.toml").read_text("utf-8"))
    groups = raw.get("groups", {})

    def expand(names):
        out = []
        for n in names:
            if n.startswith("@"):
                if n[1:] not in groups:
                    raise ValueError(f"consequences.toml: unknown group {n}")
                out += groups[n[1:]]
            else:
                out.append(n)
        return out

    table: dict[str, list[tuple[str, str]]] = {}
    for d in raw.get("depends", []):
        for rule in expand([d["rule"]]):
            for cause in expand(d["on"]):
                if cause != rule:
                    table.setdefault(rule, []).append((cause, d["because"]))
    return table


def relations(report) -> dict[str, Relation]:
    """``rule id -> Relation`` for every failing rule of a :class:`~.report.Report`."""
    failed = report.failed()
    rc = report.root_cause
    ids = {f.rule.id for f in failed}
    order = [f.rule.id for f in failed]
    table = declared_causes()
    out = {}
    for f in failed:
        rid = f.rule.id
        if f is rc:
            out[rid] = Relation(ROOT_CAUSE)
            continue
        causes = [(c, why) for c, why in table.get(rid, ()) if c in ids and c != rid]
        if not causes:
            out[rid] = Relation(INDEPENDENT)
            continue
        pick = next(((c, why) for c, why in causes if rc is not None and c == rc.rule.id), None)
        if pick is None:
            pick = min(causes, key=lambda cw: order.index(cw[0]))
        out[rid] = Relation(CONSEQUENCE, pick[0], pick[1])
    return out
