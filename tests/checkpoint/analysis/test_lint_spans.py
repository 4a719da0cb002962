"""``verify(lint_spans=False)`` (what the fleet audit asks): the same lint findings (FORMAT.md 4.17), kinds,
texts, pointers and counts, and the same verdicts and resumability answer, only without the byte spans."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from inspector.checkpoint import build_descriptor, decode, encode, verify
from tests.conftest import SCENARIOS

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))


def _cases():
    for p in sorted(SCENARIOS.glob("*.payload.json")):
        yield p.name, p.read_bytes(), p.with_name(p.name.replace("payload", "descriptor")).read_bytes()
    import gen_checkpoint as gen  # (a generated payload with many gaps: MAX_PER_KIND findings of a kind)

    data = encode(gen.build(120_000, 1001))
    yield "generated", data, encode(build_descriptor(decode(data), data))


@pytest.mark.parametrize("name, payload, descriptor", list(_cases()), ids=lambda x: x if isinstance(x, str) else "")
def test_lint_without_spans_says_the_same(name, payload, descriptor):
    full = verify(payload, descriptor)
    bare = verify(payload, descriptor, lint_spans=False)

    def shape(f, spans):
        return (f.kind, f.explanation, f.blocks_resume, f.more,
                [(x.source, x.pointer) + ((x.span,) if spans else ()) for x in f.locations])

    assert [shape(f, False) for f in bare.lint] == [shape(f, False) for f in full.lint]
    assert all(x.span is None for f in bare.lint for x in f.locations)
    assert (bare.verified, bare.ok, bare.root_cause) == (full.verified, full.ok, full.root_cause)

    def answer(r):
        return (r.answer, [(x.kind, x.id, str(x.text), x.location and x.location.pointer) for x in r.reasons],
                r.unknowns, r.loadable_as_session)

    assert answer(bare.resumability) == answer(full.resumability)
    if name == "generated":
        assert len(full.lint) >= 10 and all(x.span is not None for f in full.lint for x in f.locations)
