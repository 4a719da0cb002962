"""The redacted payload's walk (inspector/ticket/redact.py) against the gate's own answers.

The walk writes the copy as it goes and asks the gate's pure functions (``child_types``, ``declares``,
``is_struct``, ``scalar_shown``, ``Gate.kind``) once per distinct question, by the place's shape (array
indices written 0) and the parent's tags; a file the gate did not parse is read in pieces. Here the copy is
also made the plain way, one question per value with its own pointer, the whole tree built and printed, and
the two must be the same bytes and the same replacements for every fixture payload and descriptor, with and
without tags, whole and in pieces of every size. A change to the gate that made an answer depend on more than
the walk remembers it by fails here.
"""

from __future__ import annotations

import json

import orjson
import pytest

from inspector.ticket import jsonstack
from inspector.ticket.gate import _INDEX, _ROOTS, Gate, child_types, declares, is_struct, scalar_shown
from inspector.ticket.redact import Replacement, _replacement, _redacted_chunks, parse_lenient, redact_payload
from tests.conftest import CASES, CASES_PINNED, GOLDEN

KEY = b"k" * 32
FILES = sorted(GOLDEN.glob("*.json")) + sorted(CASES_PINNED.glob("*.json")) + sorted(CASES.glob("*.json"))[:20]


def _esc(k: str) -> str:
    return k.replace("~", "~0").replace("/", "~1")


def plain_copy(value, source: str, gate: Gate) -> tuple[bytes, list]:
    """The redacted copy made the plain way: every value judged with its own pointer, every key with the
    gate's functions, the redacted tree built whole and printed by :func:`.jsonstack.dumps`."""
    allow, vocab, reps, n_keys = gate.allow, gate.allow.vocabulary, [], 0
    holder = [None]
    stack = [(value, "", "", "", _ROOTS.get(source, ()), holder, 0, False)]
    while stack:
        v, ptr, shape, shown, types, parent, slot, forced = stack.pop()
        container = isinstance(v, (dict, list))
        if v is None or (container and not v):
            out = v
        elif (forced or not allow.allows(source, ptr) or (not gate.file_digests and allow.file_digest(source, shape))
              or (not container and not scalar_shown(types, ptr, v, vocab)[0])):
            kind = gate.kind(source, ptr)
            out = gate.mark(v, kind)
            reps.append(_replacement(gate, v, shown, kind, "value"))
        elif isinstance(v, dict):
            out, children = {}, []
            for k, child in v.items():
                ek = _esc(k)
                if not _INDEX.fullmatch(k) and not k.isdigit() and (
                        allow.allows(source, f"{ptr}/{ek}") or declares(types, k, v)
                        or (is_struct(types) and k in allow.known_keys)):
                    key = k
                else:
                    n_keys += 1
                    raw = k.encode("utf-8", "surrogatepass")
                    tag = gate.tag(raw) if gate.tags else None
                    gate.count += 1
                    key = f"[redacted key #{n_keys}: {len(raw)} bytes" + (f", tag {tag}" if tag else "") + "]"
                    reps.append(Replacement(f"{shown}/{_esc(key)}", "key", len(raw), "key", f"tag {tag}" if tag else None))
                out[key] = None
                children.append((child, f"{ptr}/{ek}", f"{shape}/{ek}", f"{shown}/{_esc(key)}",
                                 child_types(types, k, v), out, key, key != k))
            stack.extend(reversed(children))
        elif isinstance(v, list):
            out = [None] * len(v)
            stack.extend(reversed([(c, f"{ptr}/{i}", shape + "/0", f"{shown}/{i}", child_types(types, str(i), v), out, i,
                                    False) for i, c in enumerate(v)]))
        else:
            out = v
        parent[slot] = out
    return jsonstack.dumps(holder[0]).encode("utf-8", "surrogatepass"), reps


def _cases():
    for path in FILES:
        source = "descriptor" if "descriptor" in path.name else "payload"
        yield pytest.param(path, source, id=path.name)


@pytest.mark.parametrize("path, source", list(_cases()))
def test_the_walk_gives_the_plain_copy(path, source):
    data = path.read_bytes()
    for tags, file_digests in ((False, False), (True, False), (True, True)):
        expected = plain_copy(parse_lenient(data), source, Gate(tags=tags, key=KEY, file_digests=file_digests))
        for piece in (1 << 20, 1):  # whole, and every container split
            gate = Gate(tags=tags, key=KEY, file_digests=file_digests)
            chunks, reps = _redacted_chunks(data, source, tags, gate, piece)
            assert (b"".join(chunks), reps) == expected, (tags, piece)


def test_a_large_file_in_pieces_gives_the_plain_copy():
    # the rich pinned payload, its run records repeated to over 1 MiB: read in 1 MiB pieces (the default)
    value = orjson.loads((CASES_PINNED / "001-valid-rich-resume.payload.json").read_bytes())
    runs = value["snapshot"]["run_records"]
    while len(orjson.dumps(value)) < 3 << 20:
        runs.extend(json.loads(json.dumps(runs)))
    data = orjson.dumps(value)
    expected = plain_copy(value, "payload", Gate(key=KEY))
    assert redact_payload(data, gate=Gate(key=KEY)) == expected
    assert len(expected[1]) > 1000


@pytest.mark.parametrize("piece", [1, 64])
def test_a_file_that_is_not_json_deep_inside_a_piece_gives_the_whole_files_error(piece):
    data = b'{"snapshot":{"session":{"id":"s","messages":[{"role":"user","content":"\xff"}]}},"schema":"x"}'
    with pytest.raises(ValueError) as whole:
        parse_lenient(data)
    with pytest.raises(ValueError) as pieces:
        b"".join(_redacted_chunks(data, "payload", False, Gate(key=KEY), piece)[0])
    assert str(pieces.value) == str(whole.value)
    assert str(whole.value).startswith("not valid JSON ('utf-8' codec can't decode byte 0xff in position 71")


def test_what_only_the_lenient_reader_takes_reads_the_same_in_pieces():
    # NaN, a lone surrogate, an integer past 64 bits and a key given twice, each inside a split container
    data = (b'{"snapshot":{"session":{"total_cost":NaN,"id":"\\ud800","x":123456789012345678901234567890,'
            b'"id":"s2"}},"schema":"a3s.code.session-checkpoint-payload.v1"}')
    expected = plain_copy(parse_lenient(data), "payload", Gate(key=KEY))
    for piece in (1, 16, 1 << 20):
        chunks, reps = _redacted_chunks(data, "payload", False, Gate(key=KEY), piece)
        assert (b"".join(chunks), reps) == expected
    assert b'"schema":"a3s.code.session-checkpoint-payload.v1"' in expected[0]
