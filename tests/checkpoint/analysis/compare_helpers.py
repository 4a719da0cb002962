"""Helpers for the compare tests: a tiny RFC 6902 applier and a session grown by tool rounds."""

from __future__ import annotations

import copy

from inspector.checkpoint import build_descriptor, encode


def _tokens(path: str) -> list[str]:
    if path == "":
        return []
    assert path.startswith("/"), path
    return [t.replace("~1", "/").replace("~0", "~") for t in path[1:].split("/")]


def apply_patch(doc, ops):
    """Apply RFC 6902 ``add``/``remove``/``replace`` operations in order (raises on any
    operation RFC 6902 says must fail: missing member, index out of range, ...)."""
    doc = copy.deepcopy(doc)
    for op in ops:
        toks = _tokens(op["path"])
        if not toks:
            if op["op"] == "remove":
                raise AssertionError("cannot remove the root")
            doc = copy.deepcopy(op["value"])
            continue
        parent = doc
        for t in toks[:-1]:
            parent = parent[int(t)] if isinstance(parent, list) else parent[t]
        last = toks[-1]
        if isinstance(parent, list):
            if op["op"] == "add":
                i = len(parent) if last == "-" else int(last)
                assert 0 <= i <= len(parent), (op, len(parent))
                parent.insert(i, copy.deepcopy(op["value"]))
            else:
                i = int(last)
                assert 0 <= i < len(parent), (op, len(parent))
                if op["op"] == "remove":
                    del parent[i]
                else:
                    parent[i] = copy.deepcopy(op["value"])
        else:
            assert isinstance(parent, dict), op
            if op["op"] == "add":
                parent[last] = copy.deepcopy(op["value"])
            else:
                assert last in parent, op
                if op["op"] == "remove":
                    del parent[last]
                else:
                    parent[last] = copy.deepcopy(op["value"])
    return doc


def add_tool_rounds(payload: dict, rounds: int, first: int = 0) -> dict:
    """The golden session ``rounds`` tool rounds later: per round an assistant ``tool_use``
    message and a user ``tool_result`` message (in the session and in the loop checkpoint), a
    ``tool_start`` and a ``tool_end`` event on the source run, and the counters that follow
    (``event_count``, ``updated_at_ms``, ``turn``, ``tool_calls_count``, ``checkpoint_ms``)."""
    p = copy.deepcopy(payload)
    snap, lr = p["snapshot"], p["logical_resume"]
    run = snap["run_records"][0]
    for k in range(first, first + rounds):
        call = f"call-{k}"
        use = {"role": "assistant", "content": [{"type": "tool_use", "id": call, "name": "read",
                                                  "input": {"path": f"src/lib{k}.rs"}}]}
        result = {"role": "user", "content": [{"type": "tool_result", "tool_use_id": call,
                                                "content": f"fn f{k}() {{}}\n", "is_error": False}]}
        for messages in (snap["session"]["messages"], lr["messages"]):
            messages += [copy.deepcopy(use), copy.deepcopy(result)]
        seq = len(run["events"])
        run["events"] += [
            {"sequence": seq, "timestamp_ms": 1700000001000 + 10 * k, "event": {"type": "tool_start", "id": call,
                                                                                "name": "read"}},
            {"sequence": seq + 1, "timestamp_ms": 1700000001005 + 10 * k,
             "event": {"type": "tool_end", "id": call, "name": "read", "output": f"fn f{k}() {{}}\n", "exit_code": 0}},
        ]
        run["snapshot"]["event_count"] = seq + 2
        run["snapshot"]["updated_at_ms"] += 1000
        lr["turn"] += 1
        lr["tool_calls_count"] += 1
        lr["checkpoint_ms"] += 1000
    return p


def export(payload: dict) -> tuple[bytes, bytes]:
    """``(payload bytes, descriptor bytes)`` as the reference exports them (canonical encoder)."""
    data = encode(payload)
    return data, encode(build_descriptor(payload, data))


def spelled_pair(folder):
    """Two payloads (A, B) written in ``folder`` from the golden payload with numbers and a string spelled as
    the reference never writes them (``1.0e2``, ``100.50``, ``1E+2``, ``-0``, ``"\\u00e9"``; they need not
    verify): the comparison must show those spellings. Returns their paths."""
    from tests.conftest import GOLDEN

    src = (GOLDEN / "payload-with-resume.json").read_bytes()

    def sub(data, old, new):
        assert data.count(old) == 1, old
        return data.replace(old, new)

    a = sub(src, b'"percent":0.0', b'"percent":1.0e2')
    b = sub(src, b'"percent":0.0', b'"percent":100.50')
    b = sub(b, b'"auto_compact_threshold":0.800000011920929', b'"auto_compact_threshold":1E+2')
    b = sub(b, b'"total_cost":0.0', b'"total_cost":-0')
    b = sub(b, b'"name":"checkpoint fixture"', b'"name":"checkpoint fixtur\\u00e9"')
    out = []
    for name, data in (("a", a), ("b", b)):
        path = folder / f"{name}.payload.json"
        path.write_bytes(data)
        out.append(path)
    return out
