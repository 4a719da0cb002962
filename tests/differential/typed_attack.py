#!/usr/bin/env python3
"""Seeded mutation attack on the typed fast path: every mutated payload's ``verify`` report
through the typed fast path, the dict fast path and the exact path alone (``test_fastpath_verdicts._report``:
findings, messages, locations, expected/actual, notes, root cause, lint), each with the base's descriptor and
with one re-pointed at the bytes (``diffkit.rebind_full``), plus the reference's verdict (``oracle2 verify``)
against ours; with ``--window``, also the window's verify (``spans=``, ``views=True``): its findings, views
and index with and without the typed path. Test tooling only (not collected by pytest).

Usage::

    .venv/bin/python tests/differential/typed_attack.py --seed 7 --cases 5000 --minutes 8 [--window]

Bases: four valid cases-pinned payloads, the golden with-resume payload and a 0.4 MiB generated session
(``benchmarks/gen_checkpoint.py``: long arrays, artifacts, array-form tool results), each canonical, pretty
(sorted 2-space) and pretty with CRLF. Mutations (one, or two stacked): escapes and invalid or overlong
UTF-8 in strings, keys and raw text fields, raw text fields replaced by other JSON (numbers, objects, arrays,
array forms with extra keys or wrong/duplicated tags) or by other canonically printed strings, duplicated,
swapped, removed or inserted members (defaults, aliases, unknown keys), integers at the i64/u64 edges,
floats (1e400, -0.0, subnormals, 17 digits, ``E+``), nesting 1-128, whitespace (tabs, lone CR, BOM, trailing),
truncation, non-object documents, tags as variant indexes, free values replaced by random JSON.
Discrepancies are printed and their payloads written to ``--out``.
"""

from __future__ import annotations

import argparse
import collections
import random
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson
import pytest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE))

import diffkit as dk  # noqa: E402
from inspector.checkpoint import encode, verify
from inspector.checkpoint.read import door  # the one door to a payload: the readers to switch off
from inspector.checkpoint.read.fastpath import NotCanonical, NotFast  # noqa: E402
from inspector.checkpoint.jsontext.reader import SerdeError, parse_value  # noqa: E402
from inspector.checkpoint.read.typedfast import decode_typed  # noqa: E402
from tests.checkpoint.read.test_fastpath_verdicts import _declined, _report, _shown  # noqa: E402
from tests.conftest import CASES_PINNED, GOLDEN  # noqa: E402


def _comparable(x, depth: int = 0):
    """A comparable form of a views object graph (dataclasses, slotted objects, arrays)."""
    if depth > 50:
        return "..."
    if isinstance(x, (str, int, float, bool, type(None), bytes)):
        return x
    if isinstance(x, (list, tuple)):
        return tuple(_comparable(y, depth + 1) for y in x)
    if isinstance(x, dict):
        return tuple(sorted((repr(k), _comparable(v, depth + 1)) for k, v in x.items()))
    if hasattr(x, "tolist"):
        return ("array", tuple(x.tolist()))
    d = dict(getattr(x, "__dict__", {}))
    for s in getattr(type(x), "__slots__", ()):
        if hasattr(x, s):
            d[s] = getattr(x, s)
    return (type(x).__name__, _comparable(d, depth + 1)) if d else repr(x)


def _window(payload: bytes, descriptor: bytes, typed: bool):
    """The window's verify (spans wanted, views): ``(findings, views, index of containers >= 64 KiB)``."""
    with pytest.MonkeyPatch.context() as mp:
        if not typed:
            mp.setattr(door, "decode_typed", _declined)
        spans: dict = {}
        r = verify(payload, descriptor, spans=spans, views=True)
        idx = {s: (x[0], x[1], list(x[2]), list(x[3]), x[4] and list(x[4]), x[5]) for s, x in spans.items()
               if x[1] - s >= (1 << 16) or s == 0}
        return _shown(r), _comparable(r.views), idx


def _outcome(data: bytes) -> str:
    try:
        decode_typed(data)
        return "ACCEPT"
    except NotCanonical:
        return "NOTCANON"
    except NotFast:
        return "notfast"


def _pretty(data: bytes) -> bytes:
    return orjson.dumps(orjson.loads(data), option=orjson.OPT_INDENT_2 | orjson.OPT_SORT_KEYS)


def _bases(workdir: Path) -> list:
    pairs = [(CASES_PINNED / f"{n}.payload.json", CASES_PINNED / f"{n}.descriptor.json") for n in
             ("001-valid-rich-resume", "002-valid-rich-semantic", "003-valid-legacy-memory", "005-valid-no-memory")]
    pairs.append((GOLDEN / "payload-with-resume.json", GOLDEN / "descriptor-with-resume.json"))
    gen = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "gen_checkpoint.py"), "--mib", "0.4", "--seed", "3",
                          "--no-check", "--out", str(workdir)], capture_output=True)
    if gen.returncode == 0:
        pairs.append((workdir / "bench-0.4.payload.json", workdir / "bench-0.4.descriptor.json"))
    out = []
    for p, d in pairs:
        data, desc = p.read_bytes(), d.read_bytes()
        for variant in ("canonical", "pretty", "pretty-crlf"):
            b = data if variant == "canonical" else _pretty(data)
            if variant == "pretty-crlf":
                b = b.replace(b"\n", b"\r\n")
            _, root = parse_value(b, nodes=True)
            out.append((f"{p.name}:{variant}", b, desc, walk(root)))
    return out


def walk(root) -> list:
    """Every node of a span tree as ``(kind, node, pointer, key or index, key start)`` (explicit stack)."""
    out = []  # (kind, node, pointer, key, key_start)
    st = [(root, '', None, None)]
    while st:
        n, p, k, ks = st.pop()
        out.append((n.kind, n, p, k, ks))
        if n.kind == 'object':
            for kk, kks, c in n.children:
                st.append((c, p + '/' + kk, kk, kks))
        elif n.kind == 'array':
            for i, _s, c in n.children:
                st.append((c, p + '/' + str(i), i, None))
    return out


def _insert_in_string(rng, data: bytes, strs: list, prefer_raw: float, tokens: list, label: str):
    """``(label, mutated bytes)``: one of ``tokens`` inserted inside a string token, a raw text field's with
    probability ``prefer_raw`` when there is one."""
    kind, n, p, key, ks = rng.choice(strs)
    if rng.random() < prefer_raw:
        raws = [x for x in strs if is_raw_field(x[2], x[3])]
        if raws:
            kind, n, p, key, ks = rng.choice(raws)
    at = rng.randrange(n.start + 1, n.end)
    t = rng.choice(tokens)
    return f'{label}{t!r}@{"raw" if is_raw_field(p, key) else "str"}', data[:at] + t + data[at:]


def is_raw_field(p, k) -> bool:
    """True for the typed path's raw text fields (a text block's text, a tool result's or artifact's content)."""
    return k in ('text', 'content') and ('/content/' in p or '/artifacts/' in p)


ESC_TOKENS = [b'\\u0000', b'\\u001f', b'\\u001F', b'\\u000a', b'\\u0008', b'\\u0041', b'\\ud800', b'\\udc00',
              b'\\ud83d\\ude00', b'\\/', b'\\\\/', b'\\\\\\/', b'\\\\u0041', b'\\\\\\u0041', b'\\x', b'\\u12', b'\\U0041',
              b'\\b', b'\\f', b'\\t', b'\\\\', b'\\"', b'\x01', b'\n', b'\x7f', b'\\u007f', b'\\u00e9', b'\\uD800',
              b'\\uDBFF\\uDFFF', b'\\ud800\\u0041', b'\\\'', b'\\a']
BAD_UTF8 = [b'\xff', b'\xc0\xaf', b'\xed\xa0\x80', b'\xe2\x82', b'\xf4\x90\x80\x80', b'\xc3', b'\x80', b'\xf0\x9f\x98',
            b'\xe0\x80\x80', b'\xef\xbb\xbf', b'\xc3\xa9', b'\xf0\x9f\x98\x80']
INTS = [b'9223372036854775807', b'9223372036854775808', b'18446744073709551615', b'18446744073709551616',
        b'-9223372036854775808', b'-9223372036854775809', b'-0', b'0', b'1e2', b'1.0', b'01', b'-1', b'4294967295',
        b'4294967296', b'65535', b'65536', b'255', b'256', b'100000000000000000000000000000']
FLOATS = [b'1e400', b'-1e400', b'-0.0', b'0.0', b'5e-324', b'4.9e-324', b'2.2250738585072014e-308', b'0.1', b'1.7976931348623157e+308',
          b'1e+16', b'1E+16', b'1e16', b'1.0e+16', b'12345678901234567.0', b'0.30000000000000004', b'1.0E0', b'1e-7', b'1.0e-7',
          b'0.00001', b'1e-5', b'100.0', b'1e2', b'1.5', b'0.800000011920929', b'0.8', b'3.4028234663852886e+38',
          b'9007199254740993.0', b'2.4703282292062328e-324', b'1.00000000000000011102230246251565404236316680908203125']
RAW_REPL = [b'7', b'null', b'true', b'{}', b'[]', b'[[]]', b'{"type":"text","text":"x"}', b'[{"type":"text","text":"x"}]',
            b'[{"type":"text","text":"x","extra":1}]', b'[{"type":"sound","text":"x"}]', b'[{"text":"x","type":"text"}]',
            b'[{"type":"text","type":"text","text":"x"}]', b'[{"type":"text","text":"x","text":"y"}]', b'[{"type":0,"text":"x"}]',
            b'[{"type":"image","source":{"data":"x","media_type":"image/png","type":"base64"}}]',
            b'[{"type":"text","text":[]}]', b'[{"type":"text","text":7}]', b'[{"type":"text","text":"a\\/b"}]',
            b'[{"type":"text","text":"\xff"}]', b'[{"type":"text","text":"\\ud800"}]', b'[1]', b'["x"]', b'[null]',
            b'[{"type":"text","text":"x"},]', b'""', b'"\\u0000"', b'1.5', b'-0', b'[{"text":"x"}]',
            b'[{"type":"text","text":[{"type":"text","text":"x"}]}]', b'[{"type":"text","text":"x"}] ']


def mutate(rng, data: bytes, nodes: list) -> tuple[str, bytes]:
    """One random edit of ``data`` (``nodes``: its :func:`walk`): ``(label, new bytes)``."""
    k = rng.randrange(17)
    if k == 14:  # a raw field (or any string) replaced by another canonically printed string
        strs0 = [x for x in nodes if x[0] == 'string']
        raws = [x for x in strs0 if is_raw_field(x[2], x[3])] or strs0
        kind, n, p, key, ks = rng.choice(raws if rng.random() < .7 else strs0)
        alphabet = ['a', ' ', '"', '\\', '/', '\x00', '\x1f', '\x7f', '\n', '\t', '\x08', '\x0c', '\r', '\u2028',
                    '\uffff', '\U0001f600', '\u00e9', '\u4e2d', '\x0b', '\ufeff', 'u', '0']
        text = ''.join(rng.choice(alphabet) for _ in range(rng.randrange(0, 12)))
        return 'canonstr', data[:n.start] + orjson.dumps(text) + data[n.end:]
    if k == 15:  # remove a member
        objs = [x for x in nodes if x[0] == 'object' and x[1].children]
        kind, n, p, key, ks = rng.choice(objs)
        i = rng.randrange(len(n.children))
        kk, kks, c = n.children[i]
        if len(n.children) == 1: a, b = kks, c.end
        elif i < len(n.children) - 1: a, b = kks, n.children[i + 1][1]
        else: a, b = n.children[i - 1][2].end, c.end
        return f'del:{kk}', data[:a] + data[b:]
    if k == 16:  # a free value replaced by a random JSON value
        free = [x for x in nodes if x[3] in ('args', 'input', 'metadata', 'details', 'payload', 'source', 'env')]
        kind, n, p, key, ks = rng.choice(free or nodes)
        t = dk.gen_value_text(rng, 0, 0.0 if rng.random() < .7 else 0.2).encode()
        if rng.random() < .6:
            try: t = encode(orjson.loads(t))
            except Exception: pass
        return f'free:{key}', data[:n.start] + t + data[n.end:]
    strs = [x for x in nodes if x[0] == 'string']
    if k == 0:  # escape inside a string
        return _insert_in_string(rng, data, strs, 0.4, ESC_TOKENS, 'esc')
    if k == 1:  # escape/bad byte inside a key
        objs = [x for x in nodes if x[4] is not None]
        kind, n, p, key, ks = rng.choice(objs)
        at = rng.randrange(ks + 1, ks + 1 + len(key.encode()) + 1)
        t = rng.choice(ESC_TOKENS + BAD_UTF8)
        if rng.random() < 0.5 and key:  # spell a char of the key as \u escape
            i = rng.randrange(len(key))
            t = (b'\\u%04x' if rng.random() < .5 else b'\\u%04X') % ord(key[i])
            at = ks + 1 + len(key[:i].encode())
            return 'keyesc', data[:at] + t + data[at + len(key[i].encode()):]
        return f'key{t!r}', data[:at] + t + data[at:]
    if k == 2:  # bad utf-8 in a string
        return _insert_in_string(rng, data, strs, 0.5, BAD_UTF8, 'utf8')
    if k == 3:  # replace a raw field
        raws = [x for x in strs if is_raw_field(x[2], x[3])] or strs
        kind, n, p, key, ks = rng.choice(raws)
        t = rng.choice(RAW_REPL)
        return f'rawrepl:{key}:{t[:30]!r}', data[:n.start] + t + data[n.end:]
    if k == 4:  # duplicate a member
        objs = [x for x in nodes if x[0] == 'object' and x[1].children]
        kind, n, p, key, ks = rng.choice(objs)
        kk, kks, c = rng.choice(n.children)
        member = data[kks:c.end]
        where = rng.choice(['before', 'after'])
        at = kks if where == 'before' else c.end
        return f'dup:{kk}', data[:at] + (member + b',' if where == 'before' else b',' + member) + data[at:]
    if k == 5:  # integers
        nums = [x for x in nodes if x[0] == 'number']
        kind, n, p, key, ks = rng.choice(nums)
        t = rng.choice(INTS)
        return f'int:{key}:{t.decode()}', data[:n.start] + t + data[n.end:]
    if k == 6:  # floats
        nums = [x for x in nodes if x[0] == 'number']
        kind, n, p, key, ks = rng.choice(nums)
        t = rng.choice(FLOATS)
        if rng.random() < 0.2:
            t = b'%d.%de%+d' % (rng.randrange(1, 10), rng.randrange(10**15, 10**16), rng.randrange(-30, 30))
        return f'float:{key}:{t.decode()}', data[:n.start] + t + data[n.end:]
    if k == 7:  # nesting in any value
        vals = [x for x in nodes if x[0] in ('object', 'array', 'null', 'number', 'string')]
        kind, n, p, key, ks = rng.choice(vals)
        d = rng.choice([1, 2, 60, 118, 119, 120, 121, 122, 123, 124, 125, 126, 127, 128])
        t = (b'[' * d + b']' * d) if rng.random() < .5 else (b'{"a":' * d + b'1' + b'}' * d)
        return f'nest{d}:{key}', data[:n.start] + t + data[n.end:]
    if k == 8:  # swap adjacent members
        objs = [x for x in nodes if x[0] == 'object' and len(x[1].children) > 1]
        kind, n, p, key, ks = rng.choice(objs)
        i = rng.randrange(len(n.children) - 1)
        (k1, s1, c1), (_k2, s2, c2) = n.children[i], n.children[i + 1]
        a, b = data[s1:c1.end], data[s2:c2.end]
        return f'swap:{k1}', data[:s1] + b + data[c1.end:s2] + a + data[c2.end:]
    if k == 9:  # whitespace
        t = rng.choice([b' ', b'\t', b'\r', b'\n', b'\r\n', b'  ', b'\xef\xbb\xbf', b'\x0c', b'\x0b', b'\xc2\xa0'])
        where = rng.choice(['start', 'end', 'tok', 'tok', 'inside'])
        if where == 'start': return f'ws-start{t!r}', t + data
        if where == 'end': return f'ws-end{t!r}', data + t
        if where == 'inside':
            kind, n, p, key, ks = rng.choice(strs)
            at = rng.randrange(n.start + 1, n.end)
            return f'ws-instr{t!r}', data[:at] + t + data[at:]
        kind, n, p, key, ks = rng.choice(nodes)
        at = rng.choice([n.start, n.end])
        return f'ws-tok{t!r}', data[:at] + t + data[at:]
    if k == 10:  # truncation / top-level
        c = rng.randrange(6)
        if c == 0: return 'empty-object', b'{}'
        if c == 1: return 'toplevel', rng.choice([b'[]', b'"x"', b'null', b'1', b'', b'[' + data + b']'])
        at = rng.randrange(len(data))
        return 'trunc', data[:at]
    if k == 11:  # replace a value with a default-ish / other value
        vals = [x for x in nodes if x[3] is not None and x[0] != 'object']
        kind, n, p, key, ks = rng.choice(vals)
        t = rng.choice([b'null', b'false', b'true', b'[]', b'{}', b'""', b'0', b'"x"', b'"default"', b'1'])
        return f'val:{key}:{t.decode()}', data[:n.start] + t + data[n.end:]
    if k == 12:  # insert an unknown / known-ish member
        objs = [x for x in nodes if x[0] == 'object']
        kind, n, p, key, ks = rng.choice(objs)
        name = rng.choice([b'"zzz"', b'"api_key"', b'"todos"', b'"description"', b'"type"', b'"a"', b'"is_error"',
                           b'"trust"', b'"redaction_reviewed"', b'"reasoning_content"', b'"logical_resume"', b'"metadata"'])
        val = rng.choice([b'null', b'false', b'[]', b'{}', b'"x"', b'0', b'"workspace_data"'])
        member = name + b':' + val
        if n.children and rng.random() < .5:
            i = rng.randrange(len(n.children) + 1)
            at = n.children[i][1] if i < len(n.children) else n.end - 1
            ins = member + b',' if i < len(n.children) else b',' + member
        else:
            at = n.start + 1
            ins = member + (b',' if n.children else b'')
        return f'ins:{name.decode()}={val.decode()}', data[:at] + ins + data[at:]
    # k == 13: type tags as variant indexes / other strings
    tags = [x for x in strs if x[3] in ('type', 'role', 'state', 'kind', 'status')]
    kind, n, p, key, ks = rng.choice(tags or strs)
    t = rng.choice([b'0', b'1', b'"Text"', b'"text "', b'"tool_result"', b'"text"', b'"image"', b'null'])
    return f'tag:{key}:{t.decode()}', data[:n.start] + t + data[n.end:]


def run(seed: int, cases: int, minutes: float, window: bool, out: Path) -> int:
    """Run the attack; print counts and discrepancies; return the number of discrepancies."""
    rng = random.Random(seed)
    workdir = Path(tempfile.mkdtemp(prefix="typed-attack-"))
    bases = _bases(workdir)
    oracle = dk.Oracle(dk.oracle_path()) if dk.oracle_path() else None
    stop = time.time() + minutes * 60
    counts: collections.Counter = collections.Counter()
    kinds: collections.Counter = collections.Counter()
    bad = []
    for _ in range(cases):
        if time.time() > stop:
            break
        name, base, desc, nodes = bases[rng.randrange(len(bases))] if rng.random() < .5 else bases[rng.randrange(3)]
        try:
            label, data = mutate(rng, base, nodes)
        except (IndexError, ValueError):
            continue
        if rng.random() < 0.15:  # a second mutation on a still parseable document
            try:
                _, root2 = parse_value(data, nodes=True)
                label2, data = mutate(rng, data, walk(root2))
                label += "&" + label2
            except (SerdeError, IndexError, ValueError):
                pass
        kinds[re.match(r"[a-z-]*", label).group(0)] += 1
        oc = _outcome(data)
        counts[oc] += 1
        desc2 = dk.rebind_full(data, desc)
        for dname, dd in (("base descriptor", desc), ("re-pointed descriptor", desc2)):
            ex = _report(data, dd, True)
            ty, di = _report(data, dd, False), _report(data, dd, False, typed=False)
            if ty != ex or di != ex:
                bad.append((name, label, oc, dname, f"typed==exact {ty == ex} dict==exact {di == ex}", data))
            if window:
                wt, wd = _window(data, dd, True), _window(data, dd, False)
                if wt[0] != ex or wd[0] != ex or wt[1:] != wd[1:]:
                    bad.append((name, label, oc, dname, f"window: typed==exact {wt[0] == ex} dict==exact {wd[0] == ex} "
                                f"views {wt[1] == wd[1]} index {wt[2] == wd[2]}", data))
        if oracle is not None:
            p, d = workdir / "p.json", workdir / "d.json"
            p.write_bytes(data)
            d.write_bytes(desc2)
            ref = dk._norm_ref(oracle.verify(p, d))
            ours = dk.ours_verdict(data, desc2)
            counts["reference accepts" if ref["ok"] else "reference refuses"] += 1
            if ours != ref:
                bad.append((name, label, oc, "oracle2", f"ours {ours} reference {ref}", data))
    print("cases", sum(kinds.values()), dict(counts))
    print("mutations", dict(kinds))
    print("discrepancies", len(bad))
    out.mkdir(parents=True, exist_ok=True)
    for j, b in enumerate(bad):
        print(" ", b[:5])
        (out / f"{seed}-{j}.payload.json").write_bytes(b[5])
    return len(bad)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--cases", type=int, default=2000)
    ap.add_argument("--minutes", type=float, default=5.0, help="stop after this long (default 5)")
    ap.add_argument("--window", action="store_true", help="also compare the window's verify (spans, views)")
    ap.add_argument("--out", type=Path, default=Path(tempfile.gettempdir()) / "typed-attack")
    a = ap.parse_args()
    return 1 if run(a.seed, a.cases, a.minutes, a.window, a.out) else 0


if __name__ == "__main__":
    sys.exit(main())
