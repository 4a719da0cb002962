"""The documents hold together: docs/rules.md is the catalogue's (one anchor per rule id), the README names
every optional extra of pyproject.toml, and every relative link between the documents reaches a file and,
when it names one, a heading's anchor there."""

from __future__ import annotations

import importlib.util
import re
import tomllib

from inspector.checkpoint.rules.catalogue import catalogue
from tests.conftest import ROOT

DOCUMENTS = ["README.md", "CONTRIBUTING.md", "ARCHITECTURE.md", "CHANGELOG.md"] + sorted(
    str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))


def _tool():
    spec = importlib.util.spec_from_file_location("gen_rules_doc", ROOT / "tools" / "gen_rules_doc.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _prose(text: str) -> str:
    """``text`` without fenced code blocks and inline code (links there are not links)."""
    text = re.sub(r"^```.*?^```[^\n]*$", "", text, flags=re.M | re.S)
    return re.sub(r"(`+).*?\1", "", text, flags=re.S)


def _anchors(text: str) -> set[str]:
    """The anchors GitHub gives the headings of ``text`` (lower case, punctuation dropped, spaces as
    hyphens; a repeated heading gets -1, -2, ...)."""
    seen: dict[str, int] = {}
    out = set()
    for m in re.finditer(r"^#{1,6} +(.+?) *#*$", _prose_keep_headings(text), re.M):
        slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def _prose_keep_headings(text: str) -> str:
    """``text`` without fenced code blocks (a ``#`` comment there is no heading); inline code kept."""
    return re.sub(r"^```.*?^```[^\n]*$", "", text, flags=re.M | re.S)


def test_rules_doc_is_what_the_catalogue_generates():
    tool = _tool()
    current = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert tool.render(current) == current, "run python tools/gen_rules_doc.py"


def test_rules_doc_has_one_section_per_rule_with_its_requirement_and_message():
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    anchors = _anchors(text)
    for r in catalogue():
        assert text.count(f"\n### {r.id}\n") == 1, r.id
        assert r.id.lower() in anchors
        section = text.split(f"\n### {r.id}\n", 1)[1].split("\n### ", 1)[0]
        assert f"**{r.title}.** Stage {r.stage} ({r.group}); {r.doc_ref}." in section
        assert r.message in section and r.plain.meaning in section and r.plain.next_step in section


def test_readme_names_every_optional_extra_of_the_project():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme.split("## Optional extras", 1)[1].split("\n## ", 1)[0]
    named = re.findall(r"^\| `([a-z-]+)` \|", table, re.M)
    assert sorted(named) == sorted(extras)
    assert set(extras) == {"gui", "gui-dev", "sources", "audit", "dev", "package"}


def test_every_relative_link_between_the_documents_resolves():
    broken = []
    for doc in DOCUMENTS:
        path = ROOT / doc
        for target in re.findall(r"\]\(([^)\s]+)\)", _prose(path.read_text(encoding="utf-8"))):
            if re.match(r"[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            dest = (path.parent / file).resolve() if file else path
            if not dest.exists():
                broken.append(f"{doc}: {target} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest.read_text(encoding="utf-8")):
                broken.append(f"{doc}: {target} (no such heading)")
    assert broken == []
    assert len(DOCUMENTS) >= 9
