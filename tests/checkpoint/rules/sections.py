"""FORMAT.md 6's rule table, read by section: which rule ids each section's table rows name (a row such as
``| D-SIZE / D-CONTENT-DIGEST |`` names two), in table order. The checks modules' tests hold each module to its
section."""

from __future__ import annotations

import re

from tests.conftest import SHARED

_HEADING = re.compile(r"^#{3,4} (6\.\d+|Catalog [A-Z])\b")
_ID = re.compile(r"\b[A-Z]+(?:-[A-Z0-9]+)+\b")


def rule_ids_by_section() -> dict[str, list[str]]:
    """``{"6.1": [...], "6.2": [...], "6.3": [...], "Catalog C": [...], ..., "6.4": [...]}`` from the first cell of
    each table row under the heading, each id once (its first section)."""
    out: dict[str, list[str]] = {}
    seen: set[str] = set()
    section = None
    for line in (SHARED / "FORMAT.md").read_text(encoding="utf-8").splitlines():
        m = _HEADING.match(line)
        if m:
            section = m.group(1)
            continue
        if line.startswith("## ") and not line.startswith("## 6."):
            section = None
        if section is None or not line.startswith("| ") or line.startswith("| Rule") or line.startswith("|--"):
            continue
        for rule in _ID.findall(line.split("|")[1]):
            if rule not in seen:
                seen.add(rule)
                out.setdefault(section, []).append(rule)
    return out


def registered_by(module: str) -> list[str]:
    """The rule ids ``inspector.checkpoint.rules.<module>`` registers with ``@check``, in registration order."""
    import inspector.checkpoint.rules.checks  # noqa: F401  (every checks module registers on import)
    from inspector.checkpoint.rules.registry import CHECKS

    return [rule for rule, fn in CHECKS.items() if fn.__module__ == f"inspector.checkpoint.rules.{module}"]
