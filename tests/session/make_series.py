"""Generator of the FORMAT.md 4.18 series fixtures (tests/session/data/series/<case>/): each case a folder of
exports of one session built from the reference-verified scenario files (FORMAT.md 8; scenario
03-clock-skew for one run's passes, 06-earlier-run-finished for a second run), with ``expected.json`` beside
the files: the answer FORMAT.md 4.18 gives for that folder, written here by hand (never computed by the code
under test).

Deterministic: ``PYTHONPATH=. python tests/session/make_series.py`` rewrites the folders byte for byte. The
large case (a payload over 4 MiB alone) is not kept in the repository; :func:`build_case` writes it where a
test asks (``write_case("large-alone", folder)``).
"""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

import orjson

from inspector.checkpoint import build_descriptor, decode, encode
from tests.conftest import SHARED

SCENARIOS = SHARED / "fixtures" / "scenarios"
OUT = Path(__file__).parent / "data" / "series"
USAGE = {"cache_read_tokens": None, "cache_write_tokens": None, "completion_tokens": 80, "prompt_tokens": 1200,
         "total_tokens": 1280}
T0 = 1788000000000  # the scenarios' run store clock (event timestamps)


def _base() -> dict:
    return orjson.loads((SCENARIOS / "03-clock-skew.payload.json").read_bytes())


def _run(run_id: str, passes: str, tag: str, ts0: int, upto: int | None = None, trim_before: int = 0,
         finished: bool = False) -> tuple[dict, list, int]:
    """``(run record, messages of its loop checkpoint, tool calls)`` of a run of ``passes`` (one letter a pass:
    ``t`` a reply with one tool call, ``c`` a continuation; tool ids ``toolu_<tag><pass>``, pass 1's tag always
    ``a``), as the loop writes them (FORMAT.md 4.17): events up
    to the end of pass ``upto`` (all when ``None``), the ones below sequence ``trim_before`` trimmed away."""
    upto = len(passes) if upto is None else upto
    events: list = []
    ts = [ts0]

    def add(ev: dict) -> None:
        ts[0] += 10
        events.append({"event": ev, "sequence": len(events), "timestamp_ms": ts[0]})

    add({"prompt": "fix the parser", "type": "agent_start"})
    messages = [{"content": [{"text": "Parser errors should carry byte offsets.", "type": "text"}], "role": "user"}]
    calls = 0
    for k, kind in enumerate(passes[:upto], 1):
        add({"turn": k, "type": "turn_start"})
        tag_k = "a" if k == 1 else tag  # (every branch of these cases shares pass 1)
        text = "Working on it." if kind == "t" else f"Still thinking ({tag_k}{k})."
        add({"text": text, "type": "text_delta"})
        tid = f"toolu_{tag_k}{k}"
        if kind == "t":
            add({"id": tid, "name": "bash", "type": "tool_start"})
            add({"delta": "{\"command\": \"cargo test -q\"}", "id": tid, "type": "tool_input_delta"})
        add({"turn": k, "type": "turn_end", "usage": USAGE})
        reply = [{"text": text, "type": "text"}]
        if kind == "t":
            add({"args": {"command": "cargo test -q"}, "id": tid, "name": "bash", "type": "tool_execution_start"})
            add({"delta": "ok", "id": tid, "name": "bash", "type": "tool_output_delta"})
            add({"exit_code": 0, "id": tid, "name": "bash", "output": "ok", "type": "tool_end"})
            reply.append({"id": tid, "input": {"command": "cargo test -q"}, "name": "bash", "type": "tool_use"})
            calls += 1
        messages.append({"content": reply, "role": "assistant"})
        if kind == "t":
            messages.append({"content": [{"content": "ok", "is_error": False, "tool_use_id": tid, "type": "tool_result"}],
                             "role": "user"})
    if finished:
        add({"text": "Done.", "type": "agent_end", "usage": {**USAGE, "completion_tokens": 80 * upto,
             "prompt_tokens": 1200 * upto, "total_tokens": 1280 * upto},
             "verification_summary": _verification_summary()})
    snap = {"created_at_ms": T0, "event_count": len(events), "id": run_id, "prompt": "fix the parser",
            "session_id": "", "status": "completed" if finished else "executing", "updated_at_ms": ts[0]}
    if finished:
        snap["result_text"] = "offsets fixed"
    return {"events": [e for e in events if e["sequence"] >= trim_before], "snapshot": snap}, messages, calls


def _verification_summary() -> dict:
    v = orjson.loads((SCENARIOS / "06-earlier-run-finished.payload.json").read_bytes())
    ev = v["snapshot"]["run_records"][0]["events"][-1]["event"]
    return ev["verification_summary"]


def export(session: str, runs: list[tuple], ms: int, *, pad: int = 0) -> bytes:
    """The payload of one export of ``session``: ``runs`` as ``(run_id, passes, tag, upto, trim_before,
    finished)`` (the last one in flight holds the loop checkpoint at its pass ``upto``), its loop checkpoint's
    ``checkpoint_ms`` ``ms`` (the host's clock: any value at all); ``pad`` bytes of tool output make it large."""
    v = _base()
    records, lr_messages, lr_calls, lr_turn, lr_run = [], [], 0, 0, None
    for i, (run_id, passes, tag, upto, trim, finished) in enumerate(runs):
        rec, messages, calls = _run(run_id, passes, tag, T0 + 60000 * i, upto, trim, finished)
        rec["snapshot"]["session_id"] = session
        records.append(rec)
        if not finished:
            lr_run, lr_messages, lr_calls, lr_turn = run_id, messages, calls, len(passes) if upto is None else upto
    if pad:
        lr_messages[-1]["content"][0]["content"] = "o" * pad
    v["snapshot"]["run_records"] = records
    done = [r for r in records if r["snapshot"]["status"] == "completed"]
    if done:  # the session's usage grows when a run ends (FORMAT.md 4.17 "Usage")
        v["snapshot"]["session"]["total_usage"] = done[-1]["events"][-1]["event"]["usage"]
    v["snapshot"]["session"]["id"] = session
    lr = v["logical_resume"]
    lr.update(run_id=lr_run, session_id=session, turn=lr_turn, messages=lr_messages, tool_calls_count=lr_calls,
              checkpoint_ms=ms, total_usage={**USAGE, "completion_tokens": 80 * lr_turn,
                                             "prompt_tokens": 1200 * lr_turn, "total_tokens": 1280 * lr_turn})
    return encode(v)


def descriptor(payload: bytes) -> bytes:
    """Its descriptor, as an export writes it."""
    return encode(build_descriptor(decode(payload), payload))


def resave(payload: bytes) -> bytes:
    """A re-saved copy (pretty-printed, CRLF line ends): the same export, other bytes (FORMAT.md 4.18)."""
    return orjson.dumps(orjson.loads(payload), option=orjson.OPT_INDENT_2).replace(b"\n", b"\r\n")


def _pair(files: dict, name: str, payload: bytes, desc: bool = True) -> bytes:
    files[f"{name}.payload.json"] = payload
    if desc:
        files[f"{name}.descriptor.json"] = descriptor(payload)
    return payload


def _fork(run, passes, names, diverged=False, positions=None) -> dict:
    return {"run_id": run, "passes": passes, "names": names, "diverged": diverged,
            "positions": positions if positions is not None else [[run, passes]] * len(names)}


def _answer(order, latest, resumable, *, forks=(), gaps=(), duplicates=(), not_resumable=(), head=None) -> dict:
    return {"order": order, "latest": latest, "latest_resumable": resumable, "no_single_latest": head,
            "not_resumable": list(not_resumable), "forks": list(forks), "gaps": list(gaps),
            "duplicates": list(duplicates)}


def _gap(run, after, before, missing=(), unknown=()) -> dict:
    return {"run_id": run, "after": after, "before": before, "missing": list(missing), "unknown": list(unknown)}


def case(name: str) -> tuple[dict, dict]:
    """``(files by name, expected answer)`` of one case (see ``CASES``); the answer also holds ``summary``,
    the ``scan`` text's session line."""
    f: dict = {}
    sid = f"s-{name}"
    r1 = "run-1"
    if name == "clock-skew":  # the host's clock runs backwards: order is history, not checkpoint_ms
        for k, ms in ((1, T0 + 300), (2, T0 + 200), (3, T0 + 100)):
            _pair(f, f"p{k}", export(sid, [(r1, "ttt", "a", k, 0, False)], ms))
        a = _answer(["p1", "p2", "p3"], ["p3"], "p3")
        a["summary"] = f"session {sid}: 3 checkpoints, 3 verified; latest resumable: p3.payload.json (run run-1 pass 3)"
    elif name == "virtual-clock-two-runs":  # checkpoint_ms = 1724000000000 + turn (FORMAT.md 8), a second run
        vc = 1724000000000
        _pair(f, "r1-p1", export(sid, [(r1, "ttc", "a", 1, 0, False)], vc + 1))
        _pair(f, "r1-p2", export(sid, [(r1, "ttc", "a", 2, 0, False)], vc + 2))
        _pair(f, "r2-p1", export(sid, [(r1, "ttc", "a", None, 0, True), ("run-2", "tt", "b", 1, 0, False)], vc + 1))
        a = _answer(["r1-p1", "r1-p2", "r2-p1"], ["r2-p1"], "r2-p1")
        a["summary"] = (f"session {sid}: 3 checkpoints, 3 verified; latest resumable: r2-p1.payload.json "
                        "(run run-2 pass 1)")
    elif name == "continuation":  # pass 2 had no tool call: it wrote no export, and is no gap
        _pair(f, "p1", export(sid, [(r1, "tct", "a", 1, 0, False)], T0 + 100))
        _pair(f, "p3", export(sid, [(r1, "tct", "a", 3, 0, False)], T0 + 300))
        a = _answer(["p1", "p3"], ["p3"], "p3")
        a["summary"] = f"session {sid}: 2 checkpoints, 2 verified; latest resumable: p3.payload.json (run run-1 pass 3)"
    elif name == "missing-export":  # pass 2 completed with its tool call returned: its export is missing
        _pair(f, "p1", export(sid, [(r1, "ttt", "a", 1, 0, False)], T0 + 100))
        _pair(f, "p3", export(sid, [(r1, "ttt", "a", 3, 0, False)], T0 + 300))
        a = _answer(["p1", "p3"], ["p3"], "p3", gaps=[_gap(r1, 1, 3, missing=[2])])
        a["summary"] = f"session {sid}: 2 checkpoints, 2 verified; latest resumable: p3.payload.json (run run-1 pass 3)"
    elif name == "trimmed":  # the later export retains events from pass 3's turn_start on: pass 2 is unknown
        _pair(f, "p1", export(sid, [(r1, "tttt", "a", 1, 0, False)], T0 + 100))
        _pair(f, "p4", export(sid, [(r1, "tttt", "a", 4, 17, False)], T0 + 400))
        a = _answer(["p1", "p4"], ["p4"], "p4", gaps=[_gap(r1, 1, 4, missing=[3], unknown=[2])])
        a["summary"] = f"session {sid}: 2 checkpoints, 2 verified; latest resumable: p4.payload.json (run run-1 pass 4)"
    elif name in ("resaved-with-descriptor", "resaved-without-descriptor"):  # a re-saved copy is its original
        _pair(f, "p1", export(sid, [(r1, "tt", "a", 1, 0, False)], T0 + 100))
        p2 = _pair(f, "p2", export(sid, [(r1, "tt", "a", 2, 0, False)], T0 + 200))
        f["p2 resaved.payload.json"] = resave(p2)
        if name == "resaved-with-descriptor":
            f["p2 resaved.descriptor.json"] = descriptor(p2)
        a = _answer(["p1", "p2", "p2 resaved"], ["p2"], "p2", duplicates=[["p2", "p2 resaved"]])
        a["summary"] = (f"session {sid}: 3 checkpoints, 2 verified; latest resumable: p2.payload.json "
                        "(run run-1 pass 2)")
    elif name == "resaved-at-head":  # the latest export is only a re-saved copy: why it is not resumable
        _pair(f, "p1", export(sid, [(r1, "tt", "a", 1, 0, False)], T0 + 100))
        p2 = export(sid, [(r1, "tt", "a", 2, 0, False)], T0 + 200)
        f["p2 resaved.payload.json"], f["p2 resaved.descriptor.json"] = resave(p2), descriptor(p2)
        a = _answer(["p1", "p2 resaved"], ["p2 resaved"], "p1", not_resumable=[
            {"name": "p2 resaved", "why": "does not verify (FAIL X-BYTES); restorable: a re-saved copy of the "
                                          "export, proven by its SHA-256"}])
        a["summary"] = f"session {sid}: 2 checkpoints, 1 verified; latest resumable: p1.payload.json (run run-1 pass 1)"
    elif name in ("fork-at-head", "resaved-other-branch"):  # the host continued twice from pass 1
        _pair(f, "p1", export(sid, [(r1, "tt", "a", 1, 0, False)], T0 + 100))
        _pair(f, "p2a", export(sid, [(r1, "tt", "a", 2, 0, False)], T0 + 200))
        p2b = export(sid, [(r1, "tt", "b", 2, 0, False)], T0 + 250)
        b = "p2b"
        if name == "fork-at-head":
            _pair(f, b, p2b)
        else:  # branch b only as a re-saved copy with its descriptor: still a fork
            b = "p2b resaved"
            f[f"{b}.payload.json"], f[f"{b}.descriptor.json"] = resave(p2b), descriptor(p2b)
        fork = _fork(r1, 2, ["p2a", b])
        a = _answer(["p1", "p2a", b], ["p2a", b], None, forks=[fork], head={**fork, "branches": ["p2a", b]})
        a["summary"] = (f"session {sid}: 3 checkpoints, {3 if b == 'p2b' else 2} verified; no single latest: fork at "
                        f"run run-1 pass 2 (branches p2a.payload.json, {b}.payload.json)")
    elif name == "diverged-runs":  # from pass 1, one branch started run-2, the other went on with run-1
        _pair(f, "p1", export(sid, [(r1, "tct", "a", 1, 0, False)], T0 + 100))
        _pair(f, "x", export(sid, [(r1, "tc", "a", None, 0, True), ("run-2", "t", "b", 1, 0, False)], T0 + 200))
        _pair(f, "y", export(sid, [(r1, "tct", "a", 3, 0, False)], T0 + 300))
        fork = _fork(None, None, ["x", "y"], True, [["run-2", 1], [r1, 3]])
        a = _answer(["p1", "x", "y"], ["x", "y"], None, forks=[fork], head={**fork, "branches": ["x", "y"]})
        a["summary"] = (f"session {sid}: 3 checkpoints, 3 verified; no single latest: diverged histories (branches "
                        "x.payload.json at run run-2 pass 1, y.payload.json at run run-1 pass 3)")
    elif name == "large-alone":  # over 4 MiB, no descriptor: still in its session, with its history
        _pair(f, "p1", export(sid, [(r1, "tt", "a", 1, 0, False)], T0 + 100))
        _pair(f, "p2 large", export(sid, [(r1, "tt", "a", 2, 0, False)], T0 + 200, pad=9 << 19), desc=False)
        a = _answer(["p1", "p2 large"], ["p2 large"], "p1",
                    not_resumable=[{"name": "p2 large", "why": "not verified (no descriptor)"}])
        a["summary"] = f"session {sid}: 2 checkpoints, 1 verified; latest resumable: p1.payload.json (run run-1 pass 1)"
    else:
        raise KeyError(name)
    a["session_id"] = sid
    return f, _named(a)


def _named(a: dict) -> dict:
    """File names in the answer: a name stands for its payload file (``NAME.payload.json``)."""
    n = lambda x: f"{x}.payload.json"  # noqa: E731
    fix = lambda k: {**k, "names": [n(x) for x in k["names"]], **({"branches": [n(x) for x in k["branches"]]}  # noqa: E731
                                                                  if "branches" in k else {})}
    return {**a, "order": [n(x) for x in a["order"]], "latest": [n(x) for x in a["latest"]],
            "latest_resumable": a["latest_resumable"] and n(a["latest_resumable"]),
            "no_single_latest": a["no_single_latest"] and fix(a["no_single_latest"]),
            "not_resumable": [{**x, "name": n(x["name"])} for x in a["not_resumable"]],
            "forks": [fix(k) for k in a["forks"]], "duplicates": [[n(x) for x in d] for d in a["duplicates"]]}


CASES = ("clock-skew", "virtual-clock-two-runs", "continuation", "missing-export", "trimmed",
         "resaved-with-descriptor", "resaved-without-descriptor", "resaved-at-head", "resaved-other-branch",
         "fork-at-head", "diverged-runs", "large-alone")
#: Cases whose files are written by the tests, not kept (a payload over 4 MiB).
GENERATED = ("large-alone",)


def write_case(name: str, folder: Path) -> Path:
    """Write case ``name``'s files into ``folder`` (made; must not exist) and return it."""
    files, _ = case(name)
    folder.mkdir(parents=True)
    for fname, data in files.items():
        (folder / fname).write_bytes(data)
    return folder


def main() -> None:
    """Rewrite ``data/series/<case>/`` (files and ``expected.json``) for every case."""
    for name in CASES:
        d = OUT / name
        if d.exists():
            shutil.rmtree(d)
        files, expected = case(name)
        d.mkdir(parents=True)
        if name not in GENERATED:
            for fname, data in files.items():
                (d / fname).write_bytes(data)
        (d / "expected.json").write_text(json.dumps(expected, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main())
