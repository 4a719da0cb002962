#!/usr/bin/env python3
"""docs/rules.md's rule table and its one section per rule, generated from the rule catalogue.

The table is :func:`inspector.cli.render.rules_markdown` (what ``checkpoint-inspector rules --format
markdown`` prints); each section (``### RULE-ID``, GitHub's anchor ``#rule-id``) says what
``checkpoint-inspector explain RULE-ID`` says: the requirement, the plain words (meaning, likely causes,
next step), the reference's code and message, the FORMAT.md section, the prerequisites. Both sit between
markers in docs/rules.md; the rest of the file is written by hand. ``tests/test_docs.py`` fails when the
generated part is out of date.

Usage::

    python tools/gen_rules_doc.py           # rewrite the generated part of docs/rules.md
    python tools/gen_rules_doc.py --check   # exit 1 when docs/rules.md is out of date
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from inspector.checkpoint.rules.catalogue import catalogue  # noqa: E402
from inspector.cli.render import rules_markdown  # noqa: E402

DOC = ROOT / "docs" / "rules.md"
BEGIN, END = "<!-- generated: tools/gen_rules_doc.py -->", "<!-- /generated -->"


def _code(text: str) -> str:
    """``text`` as Markdown inline code, fenced with more backticks than it holds in a row."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or longest else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def anchor(rule_id: str) -> str:
    """The anchor GitHub gives the heading ``### RULE-ID``."""
    return rule_id.lower()


def _status(r) -> str:
    if r.not_evaluated:
        return f"no: {r.not_evaluated}"
    if r.unreachable:
        return f"yes; it cannot fail on the checkpoint path: {r.unreachable}"
    if not r.import_path:
        return "yes; a host component check, never the root cause"
    return "yes"


def section(r) -> str:
    """One rule's section."""
    lines = [f"### {r.id}", "", f"**{r.title}.** Stage {r.stage} ({r.group}); {r.doc_ref}.", ""]
    if r.plain is not None:
        lines += [f"In plain words: {r.plain.meaning}", "", "Likely causes:", ""]
        lines += [f"- {c}" for c in r.plain.causes]
        lines += ["", f"Next step: {r.plain.next_step}", ""]
    requires = ", ".join(f"[{x}](#{anchor(x)})" for x in r.requires) or "none"
    lines += [
        f"- Code: {_code(r.code) if r.code else 'none (a host-side serde error; the reference has no variant for it)'}",
        f"- Message: {_code(r.prefix + r.message)}",
        f"- Requires: {requires}",
        f"- Checked run by run: {'yes' if r.per_run else 'no'}",
        f"- Reported by the import path: {'yes' if r.import_path else 'no (a host component check)'}",
        f"- Evaluated: {_status(r)}",
        "",
    ]
    return "\n".join(lines)


def generated() -> str:
    """The generated part of docs/rules.md, markers included."""
    body = ["## The rules in evaluation order", "", rules_markdown(), "## Each rule", ""]
    body += [section(r) for r in catalogue()]
    return BEGIN + "\n\n" + "\n".join(body).rstrip("\n") + "\n\n" + END


def render(current: str) -> str:
    """``current`` (docs/rules.md) with its generated part brought up to date."""
    start, end = current.index(BEGIN), current.index(END) + len(END)
    return current[:start] + generated() + current[end:]


def main(argv: list[str] | None = None) -> int:
    """Rewrite (or, with ``--check``, compare) docs/rules.md; returns the exit code."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--check", action="store_true", help="exit 1 when docs/rules.md is out of date")
    args = ap.parse_args(argv)
    current = DOC.read_text(encoding="utf-8")
    wanted = render(current)
    if args.check:
        if wanted != current:
            print("docs/rules.md is out of date: run python tools/gen_rules_doc.py", file=sys.stderr)
            return 1
        return 0
    if wanted != current:
        DOC.write_text(wanted, encoding="utf-8", newline="\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
