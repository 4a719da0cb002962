"""Find in a whole document (:mod:`inspector.session.search`) stays bounded in memory at any depth: its
open containers are flat arrays (a few bytes per level), and its matches' pointers have a budget
(:data:`~inspector.session.search.MAX_POINTER_CHARS`); a search stopped early keeps whole spans."""

from __future__ import annotations

import tracemalloc

import pytest

from inspector.session.search import MAX_POINTER_CHARS, search_document

DEPTH = 100_000


@pytest.mark.parametrize("level", [b"[", b'{"k":'], ids=["arrays", "objects"])
def test_a_match_100000_levels_deep_costs_a_few_bytes_per_level(level):
    close = b"]" if level == b"[" else b"}"
    data = b'{"a":' + level * DEPTH + b'"needle"' + close * DEPTH + b',"b":2}'
    tracemalloc.start()
    try:
        hits, complete = search_document(data, "NEEDLE")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    token = "/0" if level == b"[" else "/k"
    start = 5 + len(level) * DEPTH
    assert complete and hits == [("/a" + token * DEPTH, start, start + 8)]
    # the pointer found (2 bytes a level) and the open containers (9 bytes a level); 237 before
    assert peak / DEPTH < 20


def test_a_chain_where_every_level_matches_stops_at_the_pointer_budget_with_whole_spans():
    n = 20_000
    data = b'{"a":' * n + b"1" + b"}" * n
    hits, complete = search_document(data, "a")
    # the k-th match's pointer is "/a" * k: k (k + 1) characters for the first k, over the budget at 4,096
    assert MAX_POINTER_CHARS == 16 << 20 and 4095 * 4096 < MAX_POINTER_CHARS < 4096 * 4097
    assert not complete and len(hits) == 4096
    for k in (1, 2, 4096):
        pointer, start, end = hits[k - 1]
        assert pointer == "/a" * k and (start, end) == (5 * k, len(data) - k)
        assert data[start:start + 1] == b"{" and data[end - 1:end] == b"}"


def test_the_match_limit_keeps_the_spans_of_containers_still_open():
    data = b'{"a":[["a","a","a"]],"b":"a"}'
    hits, complete = search_document(data, "a", limit=2)
    # "/a" matched on its key when its array opened; the search stopped inside it and read on to its end
    assert not complete and hits == [("/a", 5, 20), ("/a/0/0", 7, 10)]
    hits, complete = search_document(data, "a")
    assert complete and hits[-1] == ("/b", 25, 28) and len(hits) == 5
