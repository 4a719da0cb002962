"""The HTML ticket report is safe by construction: a Content-Security-Policy that forbids every script and
every load is the first element of its ``<head>``, and nothing from the files becomes markup (no script, no
event-handler attribute, no remote ``src``/``href``), whatever the files' names and values hold."""

import base64
import hashlib
import importlib
import json
import re
from html.parser import HTMLParser

import pytest

from inspector.cli import main
from inspector.ticket import check_report
render_module = importlib.import_module("inspector.ticket.render")  # (the package rebinds .render to the function)
from tests.conftest import GOLDEN, SAMPLES

PAIRS = {"golden": (GOLDEN / "payload-with-resume.json", GOLDEN / "descriptor-with-resume.json"),
         "broken": (SAMPLES / "broken.payload.json", SAMPLES / "broken.descriptor.json")}
HOSTILE = ('<script>alert(1)</script><img src="http://evil.example/x.png" onerror="alert(2)">'
           "<a href='https://evil.example/' onclick=alert(3)>x</a><base href=\"https://evil.example/\">"
           '"><svg onload=alert(4)><style>body{background:url(https://evil.example/t)}</style>')


class Page(HTMLParser):
    """Every start tag of a page, in order, with its attributes, and the text of its ``<style>`` elements."""

    def __init__(self, text: str):
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, list]] = []
        self.styles: list[str] = []
        self._in_style = False
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, attrs))
        self._in_style = tag == "style"
        if self._in_style:
            self.styles.append("")

    def handle_startendtag(self, tag, attrs):
        self.tags.append((tag, attrs))

    def handle_endtag(self, tag):
        if tag == "style":
            self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self.styles[-1] += data


def _html(capsysbinary, pair):
    code = main(["report", *map(str, PAIRS[pair]), "--format", "html"])
    out, err = capsysbinary.readouterr()
    assert code in (0, 1) and err == b""
    return out.decode("utf-8")


def _ticket(capsysbinary, pair) -> dict:
    assert main(["report", *map(str, PAIRS[pair]), "--format", "json"]) in (0, 1)
    doc = json.loads(capsysbinary.readouterr()[0])
    del doc["report_sha256"]
    return doc


def _spiked(value):
    """``value`` with HOSTILE appended to every string in it (keys left alone: the renderer looks them up)."""
    if isinstance(value, str):
        return value + HOSTILE
    if isinstance(value, list):
        return [_spiked(v) for v in value]
    if isinstance(value, dict):
        return {k: _spiked(v) for k, v in value.items()}
    return value


def _assert_safe(page: str):
    parsed = Page(page)
    style_hash = base64.b64encode(hashlib.sha256(parsed.styles[0].encode("utf-8")).digest()).decode("ascii")
    policy = (f"default-src 'none'; style-src 'sha256-{style_hash}'; base-uri 'none'; form-action 'none'")
    assert render_module.HTML_CSP == policy
    # the exact tag, first in <head> (a policy covers only what follows it)
    assert page.startswith('<!DOCTYPE html>\n<html lang="en"><head><meta http-equiv="Content-Security-Policy" '
                           f'content="{policy}"><meta charset="utf-8">\n')
    assert [t for t, _ in parsed.tags[:4]] == ["html", "head", "meta", "meta"]
    assert parsed.tags[2][1] == [("http-equiv", "Content-Security-Policy"), ("content", policy)]
    assert len(parsed.styles) == 1  # the one style element the hash names
    assert "<script" not in page.lower()
    attrs = [(tag, name, value or "") for tag, a in parsed.tags for name, value in a]
    assert [a for a in attrs if a[1].startswith("on")] == []
    assert [a for a in attrs if a[1] in ("src", "href", "action", "formaction", "srcset", "data", "poster")] == []
    assert not re.search(r"(src|href)\s*=\s*[\"']?\s*https?://", page, re.I)
    # only the renderer's own elements (none of HOSTILE's img, a, base, svg, script, a second style)
    assert {t for t, _ in parsed.tags} <= {"html", "head", "meta", "title", "style", "body", "h1", "h2", "div",
                                           "span", "br", "b", "p", "table", "tr", "th", "td", "dl", "dt", "dd",
                                           "ul", "li"}


@pytest.mark.parametrize("pair", sorted(PAIRS))
def test_the_report_page_opens_with_its_policy_and_holds_no_script_or_load(pair, capsysbinary):
    page = _html(capsysbinary, pair)
    _assert_safe(page)
    assert check_report(page.encode("utf-8")) is True


@pytest.mark.parametrize("pair", sorted(PAIRS))
def test_markup_in_every_value_of_the_ticket_stays_text(pair, capsysbinary):
    ticket = _spiked(_ticket(capsysbinary, pair))
    page = render_module.to_html(ticket)
    _assert_safe(page)
    assert page.count("&lt;script&gt;alert(1)&lt;/script&gt;") > 10  # the values are there, as text
    assert check_report(page.encode("utf-8")) is True


def test_the_policy_names_the_hash_of_the_style_the_page_carries():
    css = render_module._CSS
    want = base64.b64encode(hashlib.sha256(css.encode("utf-8")).digest()).decode("ascii")
    assert f"style-src 'sha256-{want}';" in render_module.HTML_CSP
    assert "'unsafe-inline'" not in render_module.HTML_CSP and "'unsafe-eval'" not in render_module.HTML_CSP
