"""Build checkpoint pairs for tests from the golden pair: payload edits re-encoded with the canonical
encoder, the descriptor re-pointed at the new bytes (fixtures/README.md "rebind")."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import orjson

from inspector.checkpoint import (
    DESCRIPTOR_DOMAIN, LOGICAL_DOMAIN, SNAPSHOT_DOMAIN, content_digest, domain_digest, encode,
)
from inspector.checkpoint.digest import descriptor_digest_input, logical_evidence_input, snapshot_evidence_input
from tests.conftest import GOLDEN

ORACLE = os.environ.get("ORACLE2", "/tmp/reference/target/release/oracle2")
HAVE_ORACLE = bool(ORACLE) and os.path.isfile(ORACLE) and os.access(ORACLE, os.X_OK)


def golden(name: str = "with-resume") -> tuple[dict, dict]:
    """The golden ``(payload, descriptor)`` as fresh dicts (``name``: ``with-resume`` or ``semantic-only``)."""
    return (orjson.loads((GOLDEN / f"payload-{name}.json").read_bytes()),
            orjson.loads((GOLDEN / f"descriptor-{name}.json").read_bytes()))


def rebind(payload: bytes, descriptor: dict, *, components: bool = False) -> bytes:
    """Canonical descriptor bytes re-pointed at ``payload``: outer ``size_bytes``/``content_digest``
    and ``descriptor_digest``; with ``components``, also each component's size, content digest and
    evidence digest, recomputed from the payload's ``snapshot``/``logical_resume`` (as an export would)."""
    d = orjson.loads(orjson.dumps(descriptor))
    if components:
        p = orjson.loads(payload)
        comp = encode(p["snapshot"])
        ev = d["snapshot"]
        ev["size_bytes"], ev["content_digest"] = len(comp), content_digest(comp)
        ev["evidence_digest"] = domain_digest(SNAPSHOT_DOMAIN, snapshot_evidence_input(ev))
        if p.get("logical_resume") is not None and d.get("logical_resume") is not None:
            comp = encode(p["logical_resume"])
            ev = d["logical_resume"]
            ev["size_bytes"], ev["content_digest"] = len(comp), content_digest(comp)
            ev["evidence_digest"] = domain_digest(LOGICAL_DOMAIN, logical_evidence_input(ev))
    d["size_bytes"] = len(payload)
    d["content_digest"] = content_digest(payload)
    d["descriptor_digest"] = domain_digest(DESCRIPTOR_DOMAIN, descriptor_digest_input(d))
    return encode(d)


def write_pair(folder: Path, name: str, payload: bytes, descriptor: bytes) -> tuple[Path, Path]:
    """Write ``NAME.payload.json``/``NAME.descriptor.json`` into ``folder``; returns their paths."""
    p, d = folder / f"{name}.payload.json", folder / f"{name}.descriptor.json"
    p.write_bytes(payload)
    d.write_bytes(descriptor)
    return p, d


def oracle_verify(first: Path, second: Path) -> dict:
    """``oracle2 verify FIRST SECOND`` (payload, then descriptor): ``{ok, rule, code, message}``."""
    out = subprocess.run([ORACLE, "verify", str(first), str(second)], capture_output=True, timeout=60)
    return orjson.loads(out.stdout)
