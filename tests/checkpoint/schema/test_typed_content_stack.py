"""Buffered content and ``serde_json::from_value`` walk nested values with explicit stacks
(house rule: no recursion per nesting level), keeping serde's duplicate-key behaviour."""

import sys

from inspector.checkpoint.schema import model as S
from inspector.checkpoint.schema.serde_errors import CMap
from inspector.checkpoint.schema.typed_content import _content_value, decode_value, to_content

DEPTH = sys.getrecursionlimit() * 3


def _nested(depth: int):
    root = {"k": []}
    node = root["k"]
    for i in range(depth):
        child = {"i": i, "next": []} if i % 2 else [i]
        node.append(child)
        node = child["next"] if isinstance(child, dict) else child
    return root


def _depth_and_leaves(v):
    stack, deepest, leaves = [(v, 0)], 0, []
    while stack:
        x, d = stack.pop()
        deepest = max(deepest, d)
        if isinstance(x, dict):
            stack.extend((c, d + 1) for c in x.values())
        elif isinstance(x, list):
            stack.extend((c, d + 1) for c in x)
        else:
            leaves.append(x)
    return deepest, sorted(leaves)


def test_value_deeper_than_the_recursion_limit_round_trips():
    value = _nested(DEPTH)
    out = decode_value(S.VALUE, value)
    assert _depth_and_leaves(out) == _depth_and_leaves(value)
    assert _depth_and_leaves(out)[0] > DEPTH
    content = to_content(value)
    assert type(content) is CMap and content[0][0] == "k"


def test_content_shapes_and_duplicate_keys():
    v = {"a": [1, {"b": [], "c": {}}, "x"], "d": None}
    c = to_content(v)
    assert c == [("a", [1, [("b", []), ("c", [])], "x"]), ("d", None)]
    assert type(c) is CMap and type(c[0][1][1]) is CMap and type(c[0][1][1][1][1]) is CMap
    assert _content_value(c) == v and list(_content_value(c)) == ["a", "d"]
    # serde_json::Value from buffered content: a repeated key keeps its first position, last value
    dup = CMap([("k", 1), ("j", [CMap([("z", 2)])]), ("k", 3)])
    assert _content_value(dup) == {"k": 3, "j": [{"z": 2}]} and list(_content_value(dup)) == ["k", "j"]
    assert to_content(5) == 5 and to_content([]) == [] and to_content({}) == CMap()
    assert _content_value("s") == "s" and _content_value(CMap()) == {}
