"""Differential testing kit: seeded generators, the Rust reference driver, and comparators.

Used by ``test_differential.py`` (bounded, seeded subset, runs under pytest) and by
``run_differential.py`` (large runs from the command line). Nothing here is product code and
nothing here touches the engine's internals: the engine is driven through its public API
(``canonicalize``, ``verify``, ``encode`` and the digest helpers used to *build* inputs), and
the Rust reference (``oracle2``, a test tool, never shipped) decides what is right.

Three generators:

* :func:`gen_document` -- random JSON *texts* (not values: spelling matters) with tricky keys,
  every escape form, numbers in every spelling, whitespace, deep nesting, plus invalid texts
  (truncations, garbage, invalid UTF-8, BOM, ...).
* :func:`mutate_artifact` -- a payload/descriptor pair with one random mutation applied
  (bytes, values, keys, run status, events, descriptor fields, formatting), optionally
  "rebound" so the outer byte binding and the descriptor digest match again and deeper rules
  are reached (fixtures/README.md "How the mutations reach deep rules").
* :func:`mutate_payload_value` -- a semantic edit of a decodable payload, fed to
  ``oracle2 export`` to obtain a fresh valid pair (or the export path's refusal).
"""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import struct
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import orjson

from inspector.checkpoint import (
    DESCRIPTOR_DOMAIN, LOGICAL_DOMAIN, SNAPSHOT_DOMAIN, CanonicalError, canonicalize, content_digest,
    domain_digest, encode, verify,
)
from inspector.checkpoint.digest import descriptor_digest_input, logical_evidence_input, snapshot_evidence_input

ROOT = Path(__file__).resolve().parents[2]
# the ground truth as tests/conftest.py picks it (this module also runs as a script, outside pytest):
# an explicit $CHECKPOINT_SHARED, else the vendored tests/data/
SHARED = Path(os.environ.get("CHECKPOINT_SHARED") or ROOT / "tests" / "data")
GOLDEN = SHARED / "fixtures" / "golden"
CASES = SHARED / "fixtures" / "cases"
DEFAULT_ORACLE = "/tmp/reference/target/release/oracle2"


def oracle_path() -> str | None:
    """Path of the reference binary (env ``ORACLE2``), or ``None`` when it is not built here."""
    p = os.environ.get("ORACLE2", DEFAULT_ORACLE)
    return p if p and os.path.isfile(p) and os.access(p, os.X_OK) else None


# ---------------------------------------------------------------------------------------------
# The reference driver
# ---------------------------------------------------------------------------------------------

class Oracle:
    """Thin driver for ``oracle2`` (one ``batch`` process per call, one process per ``verify``)."""

    def __init__(self, path: str):
        self.path = path

    def batch(self, docs: list[bytes], timeout: float = 600) -> list[dict]:
        """Canonicalize many documents in one process. Returns one record per document:
        ``{"ok": True, "canon": str, "sha256": str}`` or ``{"ok": False, "error": str}``."""
        lines = b"".join(orjson.dumps({"hex": d.hex()}) + b"\n" for d in docs)
        out = subprocess.run([self.path, "batch"], input=lines, capture_output=True, timeout=timeout, check=True)
        rows = out.stdout.split(b"\n")
        if rows and rows[-1] == b"":
            rows.pop()
        if len(rows) != len(docs):
            raise RuntimeError(f"oracle2 batch returned {len(rows)} lines for {len(docs)} documents")
        recs = [json.loads(r) for r in rows]
        for rec in recs:
            if rec.get("batch_error"):
                raise RuntimeError(f"oracle2 batch input error: {rec['error']}")
        return recs

    def verify(self, payload: Path, descriptor: Path) -> dict:
        """``oracle2 verify`` -> ``{"ok","rule","code","message"}``."""
        out = subprocess.run([self.path, "verify", str(payload), str(descriptor)], capture_output=True, timeout=120)
        if out.returncode not in (0, 1):
            raise RuntimeError(f"oracle2 verify exit {out.returncode}: {out.stderr!r}")
        return json.loads(out.stdout)

    def export(self, payload_json: Path, workdir: Path) -> tuple[bytes, bytes] | dict:
        """``oracle2 export``: ``(content, descriptor)`` bytes, or the refusal verdict dict."""
        d_out, c_out = workdir / "export.descriptor.json", workdir / "export.payload.json"
        for p in (d_out, c_out):
            p.unlink(missing_ok=True)
        out = subprocess.run([self.path, "export", str(payload_json), "--descriptor-out", str(d_out),
                              "--content-out", str(c_out)], capture_output=True, timeout=120)
        if out.returncode == 0:
            return c_out.read_bytes(), d_out.read_bytes()
        if out.returncode == 1:
            return json.loads(out.stdout)
        raise RuntimeError(f"oracle2 export exit {out.returncode}: {out.stderr!r}")


# ---------------------------------------------------------------------------------------------
# Random JSON documents
# ---------------------------------------------------------------------------------------------

#: Keys that expose sort-order and escaping traps (UTF-8 length boundaries, BOM, astral).
TRICKY_KEYS = [
    "", "a", "A", "b", "B", "aa", "a\u0301", "\u00e1", "_", "~", "/", "a/b", "~1", "\u007f", "\u0080", "\u00ff",
    "\u07ff", "\u0800", "\ud7ff", "\ue000", "\ufeff", "\ufffd", "\uffff", "\U00010000", "\U0001f600", "\U0010ffff",
    "\u2028", "\u2029", "\u0085", "\u00a0", "\u200d", "\x00", "\x1f", "\n", "\t", '"', "\\", "key with space",
    "Z", "z", "0", "10", "9", "\u4e2d\u6587", "\u0130", "\ufb01",
]

#: Characters strings are built from (each then written raw or escaped).
CHAR_POOL = (
    list("abcXYZ019 _-.,:;!?'") + ['"', "\\", "/", "\b", "\f", "\n", "\r", "\t", "\x00", "\x01", "\x1f", "\x7f"]
    + ["\u0080", "\u009f", "\u00a0", "\u00e9", "\u07ff", "\u0800", "\u2028", "\u2029", "\u0085", "\ufeff", "\ufffd",
       "\uffff", "\ud7ff", "\ue000", "\u200d", "\u4e2d", "\U00010000", "\U0001f600", "\U0001f468", "\U0010ffff"]
)
_SHORT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "/": "\\/"}

I64_MIN, I64_MAX, U64_MAX = -(1 << 63), (1 << 63) - 1, (1 << 64) - 1

NUMBER_LITERALS = [
    "0", "-0", "-0.0", "0.0", "-0e5", "-0.0e-5", "0e400", "0.0e-400", "0E0", "1", "-1", "1.0", "1.5", "100", "1e2",
    "1E2", "1e+2", "1.0e2", "100e-2", "0.1", "0.2", "0.3", "1e-5", "0.00001", "0.000001", "1e-6", "1e-7", "1.5e-7",
    "1e16", "1e15", "1e+16", "9999999999999999", "10000000000000000", "1000000000000000.0", "1e20", "1e21",
    "123456789012345678", "9007199254740993", "9007199254740992.0",
    str(I64_MIN), str(I64_MIN - 1), str(I64_MAX), str(I64_MAX + 1), str(U64_MAX), str(U64_MAX + 1),
    str(U64_MAX * 10), "-" + str(U64_MAX), "1" + "0" * 30, "1" + "0" * 299, "1" + "0" * 308, "1" + "0" * 309,
    "5e-324", "4.9406564584124654e-324", "2.4703282292062327e-324", "2.4703282292062328e-324", "1e-323",
    "2.2250738585072014e-308", "2.2250738585072011e-308", "2.225073858507201e-308", "1e-308", "1e-320",
    "1.7976931348623157e308", "1.7976931348623158e308", "1.7976931348623159e308", "1.797693134862315e308",
    "1e308", "10e307", "0.1e310", "1000e306", "1e309", "1e400", "-1e400", "1e-400", "-1e-400",
    "123456789012345678901234567890e-330", "0." + "0" * 350 + "1", "0." + "0" * 320 + "1e300",
    "0.9999999999999999", "231125.40915714158", "1.5777777777770001", "0.30000000000000004",
    "0.800000011920929", "0.8", "0.5", "3.4028234663852886e38", "1.1754943508222875e-38",
    "4503599627370496.5", "4503599627370497.5", "1." + "3" * 400, "0." + "9" * 400,
    "1.8446744073709552e19", "18446744073709551615.0", "18446744073709551615e0",
]

NUMBER_INVALID = ["01", "-01", "1.", ".5", "+1", "1e", "1e+", "-", "--1", "1.e5", "0x10", "NaN", "Infinity",
                  "-Infinity", "1_000", "1,5"]


def random_double_bits(rng: random.Random) -> float:
    """A finite double from random bits (all magnitudes, subnormals included)."""
    while True:
        x = struct.unpack("<d", struct.pack("<Q", rng.getrandbits(64)))[0]
        if math.isfinite(x):
            return x


def gen_number(rng: random.Random) -> str:
    """One valid-looking JSON number text (some overflow f64 and are rejected by serde)."""
    k = rng.random()
    if k < 0.15:
        return rng.choice(NUMBER_LITERALS)
    if k < 0.30:  # integers near the 64-bit edges
        base = rng.choice([0, I64_MIN, I64_MAX, U64_MAX, 1 << 53, 1 << 63, 1 << 64, 10 ** 19, 10 ** 20])
        v = base + rng.randint(-3, 3)
        return str(v)
    if k < 0.40:  # plain random ints
        return str(rng.randint(-10 ** rng.randint(1, 25), 10 ** rng.randint(1, 25)))
    if k < 0.65:  # long mantissas, 17-25 significant digits, decimal point anywhere, optional exponent
        nd = rng.randint(15, 25)
        digits = str(rng.randint(1, 9)) + "".join(rng.choice("0123456789") for _ in range(nd - 1))
        p = rng.randint(0, nd)
        text = digits[:p] or "0"
        if text != "0" and text.startswith("0"):
            text = text.lstrip("0") or "0"
        frac = digits[p:]
        s = text + ("." + frac if frac else "")
        if rng.random() < 0.5:
            s += rng.choice("eE") + rng.choice(["", "+", "-"]) + str(rng.randint(0, 330))
        return ("-" if rng.random() < 0.3 else "") + s
    x = random_double_bits(rng) if rng.random() < 0.6 else rng.uniform(-1e6, 1e6)
    style = rng.randrange(7)
    if style == 0:
        s = repr(x)
    elif style == 1:
        s = "%.17g" % x
    elif style == 2:
        s = "%.*e" % (rng.randint(0, 25), x)
    elif style == 3:
        s = "%.16e" % x
    elif style == 4:
        s = "%.20g" % x
    elif style == 5:
        s = orjson.dumps(x).decode()
    else:
        s = "%.*E" % (rng.randint(0, 20), x)
    if s in ("inf", "-inf", "nan"):
        return "0"
    if "e" not in s.lower() and "." not in s and rng.random() < 0.5:
        s += ".0"
    return s


def gen_raw_string(rng: random.Random) -> str:
    """A random Python string from the tricky character pool."""
    n = rng.choice([0, 1, 2, 3, 5, 8, 13, 40])
    return "".join(rng.choice(CHAR_POOL) for _ in range(n))


def _escape_char(ch: str, rng: random.Random, escape_rate: float) -> str:
    o = ord(ch)
    if ch in _SHORT and (ch in '"\\' or o < 0x20 or rng.random() < escape_rate):
        if ch == "/" or rng.random() < 0.7:
            return _SHORT[ch]
        return "\\u%04x" % o if rng.random() < 0.5 else "\\u%04X" % o
    if o < 0x20:
        return ("\\u%04x" if rng.random() < 0.5 else "\\u%04X") % o
    if rng.random() < escape_rate:
        if o >= 0x10000:
            v = o - 0x10000
            hi, lo = 0xD800 + (v >> 10), 0xDC00 + (v & 0x3FF)
            fmt = "\\u%04x\\u%04x" if rng.random() < 0.5 else "\\u%04X\\u%04X"
            return fmt % (hi, lo)
        return ("\\u%04x" if rng.random() < 0.5 else "\\u%04X") % o
    return ch


def gen_string_text(rng: random.Random, s: str | None = None, escape_rate: float | None = None) -> str:
    """A JSON string literal (with quotes) for ``s`` or a random string, escapes chosen at random."""
    if s is None:
        s = gen_raw_string(rng)
    rate = rng.choice([0.0, 0.1, 0.5, 1.0]) if escape_rate is None else escape_rate
    return '"' + "".join(_escape_char(c, rng, rate) for c in s) + '"'


def _ws(rng: random.Random, p: float) -> str:
    if p <= 0 or rng.random() >= p:
        return ""
    return "".join(rng.choice(" \t\r\n") for _ in range(rng.randint(1, 3)))


def gen_value_text(rng: random.Random, depth: int, ws: float, max_depth: int = 6) -> str:
    """Random JSON value text."""
    k = rng.random()
    if depth >= max_depth:
        k = 0.6 + 0.4 * k
    elif depth == 0 and k < 0.85:
        k *= 0.40 / 0.85  # mostly containers at the top
    if k < 0.22:  # object
        n = rng.choice([0, 1, 2, 3, 4, 6])
        keys = []
        for _ in range(n):
            if keys and rng.random() < 0.12:
                keys.append(rng.choice(keys))  # duplicate key: last value wins
            elif rng.random() < 0.6:
                keys.append(rng.choice(TRICKY_KEYS))
            else:
                keys.append(None)
        parts = [_ws(rng, ws) + gen_string_text(rng, key) + _ws(rng, ws) + ":" + _ws(rng, ws)
                 + gen_value_text(rng, depth + 1, ws, max_depth) + _ws(rng, ws) for key in keys]
        return "{" + ",".join(parts) + (_ws(rng, ws) if not parts else "") + "}"
    if k < 0.40:  # array
        n = rng.choice([0, 1, 2, 3, 5])
        parts = [_ws(rng, ws) + gen_value_text(rng, depth + 1, ws, max_depth) + _ws(rng, ws) for _ in range(n)]
        return "[" + ",".join(parts) + (_ws(rng, ws) if not parts else "") + "]"
    if k < 0.65:
        return gen_number(rng)
    if k < 0.90:
        return gen_string_text(rng)
    return rng.choice(["true", "false", "null"])


def _deep(rng: random.Random, depth: int) -> str:
    inner = gen_value_text(rng, 0, 0.0, 1)
    opens, closes = [], []
    for _ in range(depth):
        if rng.random() < 0.5:
            opens.append("[")
            closes.append("]")
        else:
            key = gen_string_text(rng, rng.choice(TRICKY_KEYS))
            opens.append("{" + key + ":")
            closes.append("}")
    return "".join(opens) + inner + "".join(reversed(closes))


INVALID_UTF8 = [b"\xff", b"\xfe", b"\xc0\x80", b"\xc1\xbf", b"\xe0\x80\x80", b"\xed\xa0\x80", b"\xed\xbf\xbf",
                b"\xf4\x90\x80\x80", b"\xf5\x80\x80\x80", b"\x80", b"\xbf", b"\xc3", b"\xe4\xb8", b"\xf0\x9f\x98"]
GARBAGE = [b",", b"]", b"}", b"[", b"{", b":", b'"', b"'", b"\\", b"x", b"\x00", b"\x0c", b"\xc2\xa0", b"//",
           b"/*", b"NaN", b"nul", b"tru", b"0", b"-", b".", b"e", b" ", b"\n"]


def _invalid(rng: random.Random, good: bytes) -> bytes:
    k = rng.randrange(12)
    n = len(good)
    if k == 0 and n > 1:  # truncation at a random offset
        return good[: rng.randrange(n)]
    if k == 1:  # garbage byte(s) at a random offset
        i = rng.randrange(n + 1)
        return good[:i] + rng.choice(GARBAGE) + good[i:]
    if k == 2:  # invalid UTF-8 inside a string literal (or anywhere)
        j = good.find(b'"', rng.randrange(n + 1))
        i = j + 1 if j >= 0 else rng.randrange(n + 1)
        return good[:i] + rng.choice(INVALID_UTF8) + good[i:]
    if k == 3:
        return b"\xef\xbb\xbf" + good
    if k == 4:  # trailing garbage
        return good + rng.choice([b" x", b"{}", b"[]", b"\x0c", b"\xc2\xa0", b",", b"0", b" 1"])
    if k == 5:  # trailing comma
        return rng.choice([b"[1,]", b'{"a":1,}', b"[1,2 ,\n]", b'{"a":[],}'])
    if k == 6:  # lone / reversed surrogate escapes, bad \u
        return rng.choice([b'"\\ud800"', b'"\\udc00"', b'"\\udc00\\ud800"', b'["\\ud83d"]', b'"\\ud83dx"',
                           b'"\\ud83d\\u0041"', b'"\\uZZZZ"', b'"\\u12"', b'"\\x41"', b'"\\U0041"',
                           b'{"\\ud800":1}', b'"\\ud800\\ud800"', b'"\\ud83d\\', b'"\\u'])
    if k == 7:  # raw control characters in a string
        return b'"' + bytes([rng.randrange(0, 0x20)]) + b'"'
    if k == 8:
        return rng.choice(NUMBER_INVALID).encode() if rng.random() < 0.7 else b"[" + rng.choice(NUMBER_INVALID).encode() + b"]"
    if k == 9:
        return rng.choice([b"", b" ", b"\n\t ", b"'a'", b"{'a':1}", b"{a:1}", b'{"a" 1}', b'{"a":1 "b":2}',
                           b'{1:2}', b"[1 2]", b"tRue", b"nulll", b"[true false]", b'{"a":}', b"[,]"])
    if k == 10:  # flip one byte
        i = rng.randrange(n)
        return good[:i] + bytes([good[i] ^ (1 << rng.randrange(8))]) + good[i + 1:]
    i = rng.randrange(n)  # delete one byte
    return good[:i] + good[i + 1:]


def gen_document(rng: random.Random) -> bytes:
    """One random document (about 1 in 6 deliberately invalid)."""
    k = rng.random()
    ws = rng.choice([0.0, 0.0, 0.1, 0.4])
    if k < 0.05:  # depth near the recursion limit (127 ok, 128 rejected)
        text = _deep(rng, rng.choice([1, 20, 64, 126, 127, 127, 128, 128, 129, 200]))
    elif k < 0.15:  # arrays of numbers
        text = "[" + ",".join(_ws(rng, ws) + gen_number(rng) for _ in range(rng.randint(1, 12))) + "]"
    else:
        text = gen_value_text(rng, 0, ws, rng.choice([2, 4, 6, 8]))
    data = (_ws(rng, ws) + text + _ws(rng, ws)).encode("utf-8", "surrogatepass")
    if rng.random() < 0.17:
        data = _invalid(rng, data)
    return data


@dataclass
class DocResult:
    total: int = 0
    accepted: int = 0
    rejected: int = 0
    verdict_mismatch: list = field(default_factory=list)
    bytes_mismatch: list = field(default_factory=list)
    error_text_agree: int = 0
    error_text_mismatch: list = field(default_factory=list)
    engine_crash: list = field(default_factory=list)

    @property
    def mismatches(self) -> int:
        return len(self.verdict_mismatch) + len(self.bytes_mismatch) + len(self.engine_crash)


def ours_canonicalize(doc: bytes) -> tuple[bool, str]:
    """``(True, canonical_text)`` or ``(False, error_text)`` from the engine."""
    try:
        return True, canonicalize(doc).decode("utf-8")
    except CanonicalError as e:
        return False, str(e)


def compare_documents(oracle: Oracle, docs: list[bytes], chunk: int = 5000) -> DocResult:
    """Run every document through ``oracle2 batch`` and ``canonicalize``; collect differences."""
    res = DocResult()
    for start in range(0, len(docs), chunk):
        part = docs[start:start + chunk]
        for doc, ref in zip(part, oracle.batch(part)):
            res.total += 1
            try:
                ok, text = ours_canonicalize(doc)
            except Exception as e:  # noqa: BLE001 - an engine crash is a finding
                res.engine_crash.append((doc, repr(e), ref))
                continue
            if ref["ok"]:
                res.accepted += 1
            else:
                res.rejected += 1
            if ok != ref["ok"]:
                res.verdict_mismatch.append((doc, text, ref))
            elif ok and text != ref["canon"]:
                res.bytes_mismatch.append((doc, text, ref["canon"]))
            elif not ok:
                if text == ref["error"]:
                    res.error_text_agree += 1
                else:
                    res.error_text_mismatch.append((doc, text, ref["error"]))
    return res


# ---------------------------------------------------------------------------------------------
# Artifact pairs and their mutations
# ---------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Pair:
    name: str
    payload: bytes
    descriptor: bytes


def base_pairs() -> list[Pair]:
    """The two golden pairs and the 54 shared case pairs."""
    pairs = [
        Pair("golden-with-resume", (GOLDEN / "payload-with-resume.json").read_bytes(),
             (GOLDEN / "descriptor-with-resume.json").read_bytes()),
        Pair("golden-semantic-only", (GOLDEN / "payload-semantic-only.json").read_bytes(),
             (GOLDEN / "descriptor-semantic-only.json").read_bytes()),
    ]
    return pairs + _case_pairs(CASES, "")


def pinned_pairs() -> list[Pair]:
    """The 102 ``cases-pinned`` pairs (rich typed content, the 15 binding rules), ids prefixed ``pinned-``."""
    return _case_pairs(SHARED / "fixtures" / "cases-pinned", "pinned-")


def _case_pairs(folder: Path, prefix: str) -> list[Pair]:
    pairs = []
    for line in (folder / "cases.jsonl").read_bytes().split(b"\n"):
        if line.strip():
            c = json.loads(line)
            pairs.append(Pair(prefix + c["id"], (folder / c["payload"]).read_bytes(),
                              (folder / c["descriptor"]).read_bytes()))
    return pairs


def loads(data: bytes):
    """Parse with orjson (inputs here are the engine's or reference's canonical outputs)."""
    return orjson.loads(data)


def descriptor_digest(desc: dict) -> str:
    return domain_digest(DESCRIPTOR_DOMAIN, descriptor_digest_input(desc))


def rebind_outer(payload: bytes, descriptor: bytes) -> bytes:
    """Point the descriptor's outer ``size_bytes``/``content_digest`` at ``payload`` and
    recompute ``descriptor_digest``; component evidence is left alone. Returns canonical bytes,
    or the descriptor unchanged when it is not a JSON object."""
    try:
        d = loads(descriptor)
    except orjson.JSONDecodeError:
        return descriptor
    if not isinstance(d, dict):
        return descriptor
    d["size_bytes"] = len(payload)
    d["content_digest"] = content_digest(payload)
    try:
        d["descriptor_digest"] = descriptor_digest(d)
    except (KeyError, TypeError):
        pass
    return encode(d)


def rebind_full(payload: bytes, descriptor: bytes) -> bytes:
    """Like :func:`rebind_outer`, but also recompute each component's size, content digest and
    evidence digest from the payload's ``snapshot``/``logical_resume`` sub-objects (as the
    export path would). Falls back to :func:`rebind_outer` when the payload is not JSON."""
    try:
        p = loads(payload)
        d = loads(descriptor)
    except orjson.JSONDecodeError:
        return rebind_outer(payload, descriptor)
    if not (isinstance(p, dict) and isinstance(d, dict)):
        return rebind_outer(payload, descriptor)
    try:
        if isinstance(d.get("snapshot"), dict) and "snapshot" in p:
            comp = encode(p["snapshot"])
            ev = d["snapshot"]
            ev["size_bytes"], ev["content_digest"] = len(comp), content_digest(comp)
            ev["evidence_digest"] = domain_digest(SNAPSHOT_DOMAIN, snapshot_evidence_input(ev))
        if isinstance(d.get("logical_resume"), dict) and p.get("logical_resume") is not None:
            comp = encode(p["logical_resume"])
            ev = d["logical_resume"]
            ev["size_bytes"], ev["content_digest"] = len(comp), content_digest(comp)
            ev["evidence_digest"] = domain_digest(LOGICAL_DOMAIN, logical_evidence_input(ev))
    except (KeyError, TypeError, ValueError):
        pass
    return rebind_outer(payload, encode(d))


def _pointers(value, prefix: str = "") -> list[tuple[str, object]]:
    """Every (JSON pointer, value) below ``value``."""
    out = [(prefix, value)]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _pointers(v, prefix + "/" + k.replace("~", "~0").replace("/", "~1"))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _pointers(v, f"{prefix}/{i}")
    return out


def _split(pointer: str) -> list[str]:
    return [t.replace("~1", "/").replace("~0", "~") for t in pointer.split("/")[1:]]


def _parent(doc, pointer: str):
    toks = _split(pointer)
    node = doc
    for t in toks[:-1]:
        node = node[int(t)] if isinstance(node, list) else node[t]
    last = toks[-1]
    return node, (int(last) if isinstance(node, list) else last)


_SENTINEL = "\u0001RAW\u0002"


def _dumps_with_raw(value, raw: dict[str, str]) -> bytes:
    """Canonical bytes of ``value`` where sentinel strings ``_SENTINEL + id`` are replaced by the
    raw JSON text ``raw[id]`` (to inject exact number spellings or invalid text)."""
    out = orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
    for rid, text in raw.items():
        out = out.replace(orjson.dumps(_SENTINEL + rid), text.encode("utf-8", "surrogatepass"))
    return out


def _dumps_formatted(value, rng: random.Random, mode: str) -> bytes:
    """Non-canonical but equivalent spelling: ``pretty``, ``shuffle`` (key order), ``reverse``."""
    if mode == "pretty":
        return json.dumps(value, ensure_ascii=False, indent=rng.choice([1, 2, 4]),
                          sort_keys=True).encode()
    def walk(v):
        if isinstance(v, dict):
            items = list(v.items())
            if mode == "reverse":
                items.reverse()
            else:
                rng.shuffle(items)
            return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + walk(x) for k, x in items) + "}"
        if isinstance(v, list):
            return "[" + ",".join(walk(x) for x in v) + "]"
        return orjson.dumps(v).decode()
    return walk(value).encode()


def _dumps_dup_key(value, target_pointer: str, key: str, dup_text: str, first: bool) -> bytes:
    """Serialize with ``key`` of the object at ``target_pointer`` written twice."""
    def walk(v, ptr):
        if isinstance(v, dict):
            parts = []
            for k, x in sorted(v.items()):
                kp = ptr + "/" + k.replace("~", "~0").replace("/", "~1")
                item = json.dumps(k, ensure_ascii=False) + ":" + walk(x, kp)
                if ptr == target_pointer and k == key:
                    extra = json.dumps(k, ensure_ascii=False) + ":" + dup_text
                    parts += [extra, item] if first else [item, extra]
                else:
                    parts.append(item)
            return "{" + ",".join(parts) + "}"
        if isinstance(v, list):
            return "[" + ",".join(walk(x, f"{ptr}/{i}") for i, x in enumerate(v)) + "]"
        return orjson.dumps(v).decode()
    return walk(value, "").encode()


RUN_STATUSES = ["created", "planning", "executing", "verifying", "completed", "failed", "cancelled",
                "Executing", "done", ""]
TRICKY_IDS = ["", " ", "\t", "\u00a0", "\u3000", "x" * 256, "x" * 257, "\u00e9" * 128, "\u00e9" * 129, "a\nb",
              "a\u007fb", "a\u0085b", "a\u009fb", "session-checkpoint-1", "source-run", "other", "\U0001f600",
              "run-1-0751"]
TRICKY_STRINGS = TRICKY_IDS + ["\u2028", "\ud7ff\ue000", "\x00", "A" * 1000, '"quoted"', "back\\slash"]
UNKNOWN_KEYS = ["x", "checkpoint_id", "content_uri", "api_key", "todos", "Schema", "schema ", "\ufeffschema",
                "extra", "", "\U0001f600"]


TYPED_PROBES = [
    "null", "true", "false", "0", "1", "-1", "1.5", "-0", "1e3", "4294967295", "4294967296", str(I64_MAX), str(I64_MIN),
    str(U64_MAX), str(U64_MAX + 1), "-9223372036854775809", '""', '"x"', '"1"', "[]", "[1]", '["a"]', "{}",
    '{"a":1}', '{"type":"text"}', '{"type":"text","text":"t"}', '{"type":"text","text":1}', '{"type":"bogus"}',
    '{"type":"image","source":{}}', '{"type":"image","source":{"type":"base64","media_type":"image/png","data":""}}',
    '{"type":"tool_use","id":"i","name":"n"}', '{"type":"tool_use","id":"i","name":"n","input":null}',
    '{"type":"tool_result","tool_use_id":"t","content":"c"}', '{"type":"tool_result","tool_use_id":"t","content":5}',
    '{"type":"tool_result","tool_use_id":"t","content":[{"type":"text","text":"x"}],"is_error":null,"trust":"bogus"}',
    '{"text":"t","type":"text","type":"text"}', '{"type":"text","text":"a","text":"b"}', '{"text":"t"}',
    '{"role":"user","content":[]}', '{"role":"user"}', '"Active"', '"active"', '"executing"', '"memory"',
    '{"schema":"a3s.code.tool-presentation-profile.v1","mode":"bogus"}', '"\\ud800"',
    # map-form enums and sequence-form structs (serde derive accepts both)
    '{"Active":null}', '{"Active":1}', '{"executing":[]}', '{"trusted":{}}', '{"x":null}', '{"a":1,"b":2}',
    '["user",[]]', '[0,200000,0.0,0]', '[1]', '[null]', '["text","x"]',
]


def _random_json_value(rng: random.Random):
    k = rng.randrange(8)
    return [None, True, False, 0, -1, 1.5, "s", {"k": [1, 2]}][k]


@dataclass
class Mutated:
    payload: bytes
    descriptor: bytes
    label: str


def mutate_artifact(rng: random.Random, pair: Pair) -> Mutated:
    """Apply one random mutation to ``pair`` (and maybe rebind the descriptor).

    The label names the mutation so a mismatch can be reproduced and minimised.
    """
    payload, descriptor = pair.payload, pair.descriptor
    target = "descriptor" if rng.random() < 0.35 else "payload"
    data = descriptor if target == "descriptor" else payload
    kind = rng.choice([
        "flip-byte", "insert-byte", "delete-byte", "truncate", "set-number", "set-number", "set-string",
        "set-string", "set-value", "drop-key", "dup-key", "unknown-key", "rename-key", "format", "bom",
        "trailing", "crlf", "domain", "domain", "domain", "typed", "typed", "typed",
    ])
    label = f"{pair.name}:{target}:{kind}"
    try:
        value = loads(data)
    except orjson.JSONDecodeError:
        value = None
    if kind in ("set-number", "set-string", "set-value", "typed", "drop-key", "dup-key", "unknown-key", "rename-key",
                "format", "domain") and value is None:
        kind = "flip-byte"
        label += "->flip-byte"
    n = len(data)
    if kind == "flip-byte":
        i = rng.randrange(n)
        data = data[:i] + bytes([data[i] ^ (1 << rng.randrange(8))]) + data[i + 1:]
        label += f"@{i}"
    elif kind == "insert-byte":
        i = rng.randrange(n + 1)
        b = rng.choice([b" ", b"\n", b",", b"0", b'"', b"\xff", b"}", b"\x00", b"a"])
        data = data[:i] + b + data[i:]
        label += f"@{i}={b!r}"
    elif kind == "delete-byte":
        i = rng.randrange(n)
        data = data[:i] + data[i + 1:]
        label += f"@{i}"
    elif kind == "truncate":
        i = rng.randrange(n)
        data = data[:i]
        label += f"@{i}"
    elif kind == "bom":
        data = b"\xef\xbb\xbf" + data
    elif kind == "trailing":
        t = rng.choice([b"\n", b" ", b"\r\n", b"\t", b"x", b"{}", b"\x00"])
        data = data + t
        label += f"={t!r}"
    elif kind == "crlf":
        data = data.replace(b",", b",\r\n", rng.randint(1, 3))
    elif kind == "format":
        mode = rng.choice(["pretty", "shuffle", "reverse"])
        data = _dumps_formatted(value, rng, mode)
        label += f"={mode}"
    elif kind in ("set-number", "set-string", "set-value"):
        ptrs = _pointers(value)
        want = {"set-number": (int, float), "set-string": (str,), "set-value": (object,)}[kind]
        cands = [(p, v) for p, v in ptrs if p and isinstance(v, want) and not (kind == "set-number" and isinstance(v, bool))]
        if not cands:
            cands = [(p, v) for p, v in ptrs if p]
        ptr, old = rng.choice(cands)
        parent, key = _parent(value, ptr)
        if kind == "set-number":
            text = rng.choice([gen_number(rng), str(rng.randint(0, 5)), str(old + 1) if isinstance(old, int) else "1",
                               str(U64_MAX), str(U64_MAX + 1), "-1", "0", "1.0", "0.8", "1e400", "1e20",
                               "1.5777777777770001"])
            parent[key] = _SENTINEL + "n"
            data = _dumps_with_raw(value, {"n": text})
            label += f"{ptr}={text}"
        elif kind == "set-string":
            s = rng.choice(TRICKY_STRINGS + [gen_string_text(rng)[1:-1]])
            parent[key] = _SENTINEL + "s"
            text = gen_string_text(rng, s) if rng.random() < 0.3 else json.dumps(s, ensure_ascii=False)
            if rng.random() < 0.1:
                text = rng.choice(['"\\ud800"', '"\\udc00x"', '"a\\qb"'])
            data = _dumps_with_raw(value, {"s": text})
            label += f"{ptr}={text!r}"
        else:
            new = _random_json_value(rng)
            parent[key] = new
            data = encode(value)
            label += f"{ptr}={new!r}"
    elif kind == "typed":
        # A raw value of another type/shape at a random place: serde's typed-decode errors.
        ptrs = [p for p, _ in _pointers(value) if p]
        blocks = [p for p in ptrs if "/content/" in p]
        ptr = rng.choice(blocks if blocks and rng.random() < 0.4 else ptrs)
        parent, key = _parent(value, ptr)
        text = rng.choice(TYPED_PROBES) if rng.random() < 0.7 else gen_value_text(rng, 0, 0.0, 2)
        parent[key] = _SENTINEL + "t"
        data = _dumps_with_raw(value, {"t": text})
        label += f"{ptr}={text[:60]!r}"
    elif kind in ("drop-key", "dup-key", "unknown-key", "rename-key"):
        objs = [(p, v) for p, v in _pointers(value) if isinstance(v, dict) and (v or kind == "unknown-key")]
        ptr, obj = rng.choice(objs)
        if kind == "drop-key":
            k = rng.choice(sorted(obj))
            del obj[k]
            data = encode(value)
            label += f"{ptr}/{k}"
        elif kind == "unknown-key":
            k = rng.choice(UNKNOWN_KEYS)
            obj[k] = _random_json_value(rng)
            data = encode(value)
            label += f"{ptr}/{k}"
        elif kind == "rename-key":
            k = rng.choice(sorted(obj))
            nk = rng.choice([k.upper(), k + "_", k[:-1], k.replace("_", "-"), "todos" if k == "tasks" else k + "s"])
            obj[nk] = obj.pop(k)
            data = encode(value)
            label += f"{ptr}/{k}->{nk}"
        else:
            k = rng.choice(sorted(obj))
            dup = orjson.dumps(obj[k] if rng.random() < 0.5 else _random_json_value(rng)).decode()
            first = rng.random() < 0.5
            data = _dumps_dup_key(value, ptr, k, dup, first)
            label += f"{ptr}/{k}{'<' if first else '>'}"
    elif kind == "domain":
        if target == "payload":
            data, sub = _payload_domain_edit(rng, value)
        else:
            data, sub = _descriptor_domain_edit(rng, value)
        label += f"={sub}"
    if target == "descriptor":
        descriptor = data
    else:
        payload = data
    # Rebinding: without it a payload edit stops at X-BYTES.
    mode = rng.choice(["none", "outer", "outer", "full"]) if target == "payload" else rng.choice(
        ["none", "none", "redigest"])
    if mode == "outer":
        descriptor = rebind_outer(payload, descriptor)
    elif mode == "full":
        descriptor = rebind_full(payload, descriptor)
    elif mode == "redigest":
        try:
            d = loads(descriptor)
            d["descriptor_digest"] = descriptor_digest(d)
            descriptor = encode(d)
        except (orjson.JSONDecodeError, KeyError, TypeError):
            pass
    label += f"+{mode}"
    return Mutated(payload, descriptor, label)


def _payload_domain_edit(rng: random.Random, p: dict) -> tuple[bytes, str]:
    """A format-aware edit of a payload value (run status, events, ids, loop checkpoint...)."""
    snap = p.get("snapshot") if isinstance(p.get("snapshot"), dict) else {}
    runs = snap.get("run_records") or []
    lr = p.get("logical_resume")
    sess = snap.get("session") or {}
    choices = ["schema", "snapshot-version", "session-id", "float-f32", "total-cost", "state", "enum-form",
               "enum-form"]
    if runs:
        choices += ["run-status", "run-status", "run-owner", "run-dup", "event-count", "run-id"]
        if any(r.get("events") for r in runs):
            choices += ["event-seq", "event-seq", "event-drop", "event-count-overflow"]
    if lr is not None:
        choices += ["lr-turn", "lr-version", "lr-session", "lr-run", "lr-null", "lr-drop"]
    if snap.get("subagent_tasks"):
        choices += ["subagent-parent"]
    what = rng.choice(choices)
    if what == "schema":
        p["schema"] = rng.choice(["a3s.code.session-checkpoint-payload.v2", "", "A3S.code.session-checkpoint-payload.v1"])
    elif what == "snapshot-version":
        snap["schema_version"] = rng.choice([0, 2, 99, U64_MAX])
    elif what == "session-id":
        sess["id"] = rng.choice(TRICKY_IDS)
    elif what == "float-f32":
        cu = sess.get("context_usage") or {}
        cu["percent"] = _SENTINEL + "f"
        text = rng.choice(["0.5", "0.8", "0.800000011920929", "1e-45", "1.401298464324817e-45", "3.4028234663852886e38",
                           "0.1", "0.10000000149011612", "1", "-0.0", "1e39", "0.333"])
        return _dumps_with_raw(p, {"f": text}), f"percent={text}"
    elif what == "total-cost":
        sess["total_cost"] = _SENTINEL + "f"
        text = gen_number(rng)
        return _dumps_with_raw(p, {"f": text}), f"total_cost={text}"
    elif what == "state":
        sess["state"] = rng.choice(["Unknown", "Active", "Paused", "Completed", "Error", "active", "Running"])
    elif what == "enum-form":
        # An enum field (unit variants) in serde's other accepted/rejected spellings.
        enums = [(ptr, v) for ptr, v in _pointers(p) if isinstance(v, str) and ptr.rsplit("/", 1)[-1] in ENUM_KEYS]
        if enums:
            ptr, v = rng.choice(enums)
            parent, key = _parent(p, ptr)
            parent[key] = _SENTINEL + "e"
            q = json.dumps(v, ensure_ascii=False)
            text = rng.choice(["{%s:null}" % q, "{%s:{}}" % q, "{%s:[]}" % q, "{%s:1}" % q, "{}", "[%s]" % q,
                               "{%s:null,%s:null}" % (q, q), '{"bogus":null}', "{%s:null,\"x\":1}" % q, "null"])
            return _dumps_with_raw(p, {"e": text}), f"enum {ptr}={text}"
    elif what == "run-status":
        r = rng.choice(runs)
        r["snapshot"]["status"] = rng.choice(RUN_STATUSES)
        what += "=" + r["snapshot"]["status"]
    elif what == "run-owner":
        rng.choice(runs)["snapshot"]["session_id"] = rng.choice(TRICKY_IDS)
    elif what == "run-id":
        rng.choice(runs)["snapshot"]["id"] = rng.choice(TRICKY_IDS)
    elif what == "run-dup":
        runs.append(json.loads(json.dumps(rng.choice(runs))))
    elif what == "event-count":
        r = rng.choice(runs)
        seqs = [e.get("sequence", 0) for e in r.get("events", [])]
        top = max(seqs) if seqs else 0
        r["snapshot"]["event_count"] = rng.choice([0, top, top + 1, top + 2, U64_MAX])
    elif what in ("event-seq", "event-drop", "event-count-overflow"):
        r = rng.choice([r for r in runs if r.get("events")])
        evs = r["events"]
        j = rng.randrange(len(evs))
        if what == "event-drop":
            del evs[j]
        elif what == "event-count-overflow":
            evs[-1]["sequence"] = rng.choice([U64_MAX, U64_MAX - 1])
        else:
            prev = evs[j - 1]["sequence"] if j else 0
            evs[j]["sequence"] = rng.choice([prev, max(prev - 1, 0), 0, prev + 1, U64_MAX])
    elif what == "lr-turn":
        lr["turn"] = rng.choice([0, 1, 7, U64_MAX])
    elif what == "lr-version":
        lr["schema_version"] = rng.choice([0, 2, 3])
    elif what == "lr-session":
        lr["session_id"] = rng.choice(TRICKY_IDS)
    elif what == "lr-run":
        lr["run_id"] = rng.choice(TRICKY_IDS)
    elif what == "lr-null":
        p["logical_resume"] = None
    elif what == "lr-drop":
        del p["logical_resume"]
    elif what == "subagent-parent":
        rng.choice(snap["subagent_tasks"])["parent_session_id"] = rng.choice(TRICKY_IDS)
    return encode(p), what


#: Keys whose values are unit-variant enums in the typed payload (plus ``type`` tags and roles).
ENUM_KEYS = {"state", "status", "storage_type", "planning_mode", "trust", "mode", "type"}

DESCRIPTOR_STRING_FIELDS = ["schema", "format", "media_type", "content_digest", "descriptor_digest"]


def _descriptor_domain_edit(rng: random.Random, d: dict) -> tuple[bytes, str]:
    """A format-aware edit of a descriptor value (one field of the header, evidence or tail)."""
    ev_keys = ["snapshot"] + (["logical_resume"] if isinstance(d.get("logical_resume"), dict) else [])
    k = rng.random()
    digests = ["sha256:" + "0" * 64, "sha256:" + "A" * 64, "sha256:" + "0" * 63, "sha256:" + "g" * 64,
               "SHA256:" + "0" * 64, "sha256:" + "0" * 65, "", "sha256:"]
    if k < 0.3:
        f = rng.choice(DESCRIPTOR_STRING_FIELDS + ["size_bytes"])
        if f == "size_bytes":
            d[f] = rng.choice([0, 1, d.get(f, 1) + 1, 268435456, 268435457, U64_MAX])
        elif f.endswith("digest"):
            d[f] = rng.choice(digests)
        else:
            d[f] = rng.choice(["", d.get(f, "") + "x", str(d.get(f, "")).upper()])
        return encode(d), f"/{f}={d[f]!r}"[:80]
    if k < 0.8:
        e = rng.choice(ev_keys)
        ev = d[e]
        f = rng.choice(sorted(ev))
        old = ev[f]
        if isinstance(old, int):
            ev[f] = rng.choice([0, 1, 2, old + 1, old - 1, 268435456, 268435457, U64_MAX, U64_MAX + 1])
            if ev[f] > U64_MAX:
                ev[f] = _SENTINEL + "n"
                return _dumps_with_raw(d, {"n": str(U64_MAX + 1)}), f"/{e}/{f}=2**64"
        elif f.endswith("digest"):
            ev[f] = rng.choice(digests)
        else:
            ev[f] = rng.choice(TRICKY_IDS[:12] + [old + "x", old.upper(), ""])
        return encode(d), f"/{e}/{f}={ev[f]!r}"[:80]
    if k < 0.9:
        if "logical_resume" in d:
            if rng.random() < 0.5:
                d["logical_resume"] = None
                return encode(d), "/logical_resume=null"
            del d["logical_resume"]
            return encode(d), "drop /logical_resume"
        d["logical_resume"] = None
        return encode(d), "/logical_resume=null"
    e = rng.choice(ev_keys)
    d[e], other = dict(d[e]), None
    if e == "snapshot" and len(ev_keys) > 1:
        other = "logical_resume"
    if other:
        d["snapshot"], d["logical_resume"] = d["logical_resume"], d["snapshot"]
        return encode(d), "swap evidences"
    d[e]["session_id"] = d[e]["session_id"] + "-other"
    return encode(d), f"/{e}/session_id+other"


# ---------------------------------------------------------------------------------------------
# Semantic edits for the export path
# ---------------------------------------------------------------------------------------------

def _random_input(rng: random.Random):
    """A random free-form JSON value (``tool_use.input``) that serde_json accepts."""
    for _ in range(20):
        try:
            return loads(canonicalize(gen_value_text(rng, 0, 0.0, 3).encode("utf-8")))
        except (CanonicalError, orjson.JSONDecodeError):
            continue
    return {"path": "/x"}


def mutate_payload_value(rng: random.Random, p: dict) -> str:
    """Edit a decodable payload value in place (a plausible state change). Returns a label."""
    snap = p["snapshot"]
    sess = snap["session"]
    k = rng.randrange(12)
    if k == 0:
        sess["messages"].append({"role": rng.choice(["user", "assistant"]),
                                 "content": [{"type": "text", "text": gen_raw_string(rng)}]})
        return "append-message"
    if k == 1:
        sess["messages"].append({"role": "assistant", "content": [
            {"type": "tool_use", "id": "tu-%d" % rng.randrange(1000), "name": "read",
             "input": _random_input(rng)}]})
        return "append-tool-use"
    if k == 2:
        sess["total_cost"] = rng.choice([0.0, 0.5, 1.25, 1e-7, 123456.789, 1e20, 3.0])
        return f"total_cost={sess['total_cost']!r}"
    if k == 3:
        sess["context_usage"]["percent"] = rng.choice([0.0, 0.5, 0.25, 0.800000011920929, 0.8, 0.1])
        return f"percent={sess['context_usage']['percent']!r}"
    if k == 4 and snap["run_records"]:
        r = rng.choice(snap["run_records"])
        r["snapshot"]["status"] = rng.choice(RUN_STATUSES[:7])
        return f"run-status={r['snapshot']['status']}"
    if k == 5 and p.get("logical_resume"):
        p["logical_resume"]["turn"] = rng.choice([0, 1, 2, 50])
        return f"turn={p['logical_resume']['turn']}"
    if k == 6:
        snap["artifacts"].append({"artifact_id": "a%d" % rng.randrange(99), "artifact_uri": "a3s://artifact/x",
                                  "tool_name": "bash", "content": "out\u00e9\U0001f600", "original_bytes": 10,
                                  "shown_bytes": 5})
        return "append-artifact"
    if k == 7:
        snap["retained_artifact_uris"] = sorted(rng.choice(TRICKY_KEYS) for _ in range(3))
        return "retained-uris"
    if k == 8:
        sess["config"]["auto_compact_threshold"] = rng.choice([0.5, 0.800000011920929, 0.75, 0.8, 1.0])
        return f"threshold={sess['config']['auto_compact_threshold']!r}"
    if k == 9:
        p.pop("logical_resume", None)
        return "drop-logical-resume"
    if k == 10:
        sess["id"] = rng.choice(TRICKY_IDS)
        return f"session-id={sess['id']!r}"
    sess["messages"].append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                             "content": "r\u2028", "is_error": rng.choice([None, True, False])}]})
    return "append-tool-result"


# ---------------------------------------------------------------------------------------------
# Comparing verify verdicts
# ---------------------------------------------------------------------------------------------

def ours_verdict(payload: bytes, descriptor: bytes) -> dict:
    """The engine's root cause as ``{"ok","rule","code","message"}``. An engine defect that
    ``verify`` swallowed (``Report.internal_errors``) is reported as rule ``CRASH``."""
    r = verify(payload, descriptor)
    errors = getattr(r, "internal_errors", None)
    if errors:
        return {"ok": None, "rule": "CRASH", "code": None, "message": "; ".join(errors)}
    rc = r.root_cause
    if rc is None:
        return {"ok": r.verified, "rule": None, "code": None, "message": None}
    return {"ok": False, "rule": rc.rule.id, "code": rc.rule.code, "message": rc.message}


def _norm_ref(ref: dict) -> dict:
    return {k: ref.get(k) for k in ("ok", "rule", "code", "message")}


@dataclass
class ArtifactResult:
    total: int = 0
    accepted: int = 0
    by_rule: dict = field(default_factory=dict)
    mismatches: list = field(default_factory=list)
    exports: int = 0
    export_ok: int = 0
    export_mismatches: list = field(default_factory=list)


class ArtifactRunner:
    """Writes mutated pairs to a temp dir and compares ``oracle2 verify`` with ``verify``."""

    def __init__(self, oracle: Oracle, workdir: Path | None = None):
        self.oracle = oracle
        self._tmp = None
        if workdir is None:
            self._tmp = tempfile.mkdtemp(prefix="diff-artifacts-")
            workdir = Path(self._tmp)
        self.dir = workdir
        self.dir.mkdir(parents=True, exist_ok=True)

    def close(self):
        if self._tmp:
            shutil.rmtree(self._tmp, ignore_errors=True)

    def check(self, payload: bytes, descriptor: bytes, label: str, res: ArtifactResult) -> dict:
        p, d = self.dir / "p.json", self.dir / "d.json"
        p.write_bytes(payload)
        d.write_bytes(descriptor)
        ref = _norm_ref(self.oracle.verify(p, d))
        try:
            ours = ours_verdict(payload, descriptor)
        except Exception as e:  # noqa: BLE001 - an engine crash is a finding
            ours = {"ok": None, "rule": "CRASH", "code": None, "message": repr(e)}
        res.total += 1
        res.accepted += bool(ref["ok"])
        res.by_rule[ref["rule"]] = res.by_rule.get(ref["rule"], 0) + 1
        if ours != ref:
            res.mismatches.append({"label": label, "payload": payload, "descriptor": descriptor, "ours": ours,
                                   "reference": ref})
        return ref

    def check_export(self, value: dict, label: str, res: ArtifactResult) -> None:
        """Export ``value`` with the reference; a fresh valid pair must verify here, and our
        re-encoding and rebuilt descriptor must equal the reference's bytes."""
        src = self.dir / "export-src.json"
        src.write_bytes(orjson.dumps(value, option=orjson.OPT_INDENT_2))
        res.exports += 1
        out = self.oracle.export(src, self.dir)
        if isinstance(out, dict):
            # Refused by the export path: the canonical payload with an outer-rebound golden
            # descriptor must still get identical import verdicts from both sides.
            payload = encode(value)
            self.check(payload, rebind_full(payload, _GOLDEN_DESC), label + ":export-refused", res)
            return
        res.export_ok += 1
        content, desc = out
        problems = fresh_pair_problems(content, desc)
        if problems:
            res.export_mismatches.append({"label": label, "payload": content, "descriptor": desc, "problems": problems})
        self.check(content, desc, label + ":export", res)


def fresh_pair_problems(content: bytes, desc: bytes) -> list[str]:
    """What is wrong with our handling of a pair ``oracle2 export`` just made: it must verify,
    and our canonical re-encoding and rebuilt descriptor must be byte-identical to the reference's.
    Returns one text per problem (empty when all agree)."""
    ours = verify(content, desc)
    problems = []
    if not ours.verified:
        rc = ours.root_cause
        problems.append(f"fresh pair not verified: {rc.rule.id if rc else None} {rc.message if rc else ''}")
    if ours.canonical_bytes != content:
        problems.append("our canonical re-encoding differs from the exported content")
    if ours.expected_descriptor != desc:
        problems.append("our rebuilt descriptor differs from the exported descriptor")
    return problems


_GOLDEN_DESC = (GOLDEN / "descriptor-with-resume.json").read_bytes()


def run_artifacts(oracle: Oracle, n: int, seed: int, exports: int = 0, workdir: Path | None = None,
                  progress=None) -> ArtifactResult:
    """``n`` mutated pairs plus ``exports`` export-path round trips, all seeded by ``seed``, from
    the goldens, the 54 shared cases and the 102 ``cases-pinned`` pairs."""
    rng = random.Random(seed)
    pairs = base_pairs() + pinned_pairs()
    decodable = [p for p in pairs if _accepted(p)]
    res = ArtifactResult()
    runner = ArtifactRunner(oracle, workdir)
    try:
        for _ in range(n):
            # Mostly start from a valid pair, so the mutation is what the verdict is about.
            base = rng.choice(decodable) if rng.random() < 0.75 else rng.choice(pairs)
            m = mutate_artifact(rng, base)
            runner.check(m.payload, m.descriptor, m.label, res)
            if progress and res.total % 500 == 0:
                progress(res)
        for _ in range(exports):
            base = rng.choice(decodable)
            value = loads(base.payload)
            labels = [mutate_payload_value(rng, value) for _ in range(rng.randint(1, 3))]
            runner.check_export(value, f"{base.name}:export:{'+'.join(labels)}", res)
    finally:
        runner.close()
    return res


_ACCEPTED: dict[str, bool] = {}


def _accepted(pair: Pair) -> bool:
    if pair.name not in _ACCEPTED:
        _ACCEPTED[pair.name] = verify(pair.payload, pair.descriptor).verified
    return _ACCEPTED[pair.name]


def gen_documents(n: int, seed: int) -> list[bytes]:
    rng = random.Random(seed)
    return [gen_document(rng) for _ in range(n)]


def show(b: bytes, limit: int = 300) -> str:
    """Printable form of input bytes for reports (valid UTF-8 as a Python literal, else hex)."""
    try:
        s = repr(b.decode("utf-8"))
    except UnicodeDecodeError:
        s = "hex:" + b.hex()
    return s if len(s) <= limit else s[:limit] + f"...({len(b)} bytes)"


# ---------------------------------------------------------------------------------------------
# Known discrepancies (reported to the engine owner; see test_differential.py reproducers)
# ---------------------------------------------------------------------------------------------

def known_issue(ours: dict, ref: dict) -> str | None:
    """Id of a known, reported engine/reference discrepancy this mismatch belongs to, else None.

    All four were fixed by the engine owner (R2 in 0eccd82, R1/R3/R4 in 567bfce); the
    classification stays so a regression is reported under its old name.

    * ``R1``: an internally tagged enum (``ContentBlock``) written as a JSON *array*: serde's
      ``TaggedContentVisitor::visit_seq`` reads the tag from the first element; the engine
      reports the error at a different position and, for a short array, with a different text
      (``struct ContentBlock::Text with 1 elements`` vs ``struct variant ContentBlock::Text with
      1 element``).
    * ``R2``: the engine raises instead of reporting: a content block whose ``type`` tag is not
      a string (``{"type":["x"]}``, ``{"type":{}}``) crashes the fast typed-decode path
      (``typed.check_tagged``: ``TypeError: unhashable type``), whatever the root cause.
    * ``R3``: a unit-variant enum inside an internally tagged enum (``tool_result.trust``)
      written as a map: serde's ``ContentRefDeserializer::deserialize_enum`` says ``invalid
      value: map, expected map with a single key`` for ``{}``/multi-key maps and accepts
      ``{"trusted":{}}`` (an empty map is a unit there); the engine says ``invalid type: map,
      expected string or map`` and rejects the last.
    * ``R4``: a unit variant in map form with a non-unit value (``"state":{"Active":1}``,
      ``{"Active":[]}``, ``"trust":{"trusted":1}``): serde says ``expected unit``, the engine
      ``expected unit variant``.
    """
    if ours.get("rule") == "CRASH":
        return "R2"
    rm, om = ref.get("message") or "", ours.get("message") or ""
    if ref.get("rule") == "P-PARSE" and ours.get("rule") == "P-PARSE" and (
            "expected variant identifier" in rm or "struct variant" in rm or "ContentBlock" in om):
        return "R1"
    if ours.get("rule") == "P-PARSE" and "expected unit variant" in om and "expected unit at" in rm:
        return "R4"
    if ours.get("rule") == "P-PARSE" and ("expected string or map" in om or (
            "expected unit variant" in om and ref.get("rule") != "P-PARSE")):
        return "R3"
    return None
