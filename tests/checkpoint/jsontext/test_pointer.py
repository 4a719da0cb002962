"""JSON Pointer tokens (RFC 6901) have one home, ``inspector.checkpoint.jsontext.pointer``: its examples, the
order of the unescaping, a round trip over any key, and no module escaping by hand (20 sites did)."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from inspector.checkpoint.jsontext.pointer import escape, join, split, unescape
from tests.conftest import ROOT


@pytest.mark.parametrize("key, token", [("foo", "foo"), ("a/b", "a~1b"), ("m~n", "m~0n"), ("", ""), (" ", " "),
                                        ("~1", "~01"), ("/~", "~1~0"), (7, "7")])
def test_the_rfc_6901_examples_and_the_order_of_unescaping(key, token):
    assert escape(key) == token
    assert unescape(token) == str(key)


def test_join_and_split():
    assert join([]) == "" and split("") == []
    assert join(["a/b", 0, "c~d"]) == "/a~1b/0/c~0d"
    assert split("/a~1b/0/c~0d") == ["a/b", "0", "c~d"]
    assert split("/") == [""] and join([""]) == "/"
    with pytest.raises(ValueError):
        split("a/b")


@given(st.lists(st.text(alphabet=st.sampled_from("ab~/01"), max_size=6), max_size=5))
def test_any_path_survives_the_round_trip(keys):
    assert split(join(keys)) == keys


def test_no_module_escapes_a_token_by_hand():
    by_hand = re.compile(r'replace\("~", "~0"\)|replace\("~1", "/"\)')
    found = [str(p.relative_to(ROOT)) for p in sorted((ROOT / "inspector").rglob("*.py"))
             if "__pycache__" not in p.parts and p.name != "pointer.py" and by_hand.search(p.read_text(encoding="utf-8"))]
    assert found == []
