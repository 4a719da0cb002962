"""Digest forms of FORMAT.md 3.2 and the evidence/descriptor digest inputs.

* content digest: ``"sha256:" + hex(SHA-256(bytes))``
* domain digest: ``"sha256:" + hex(SHA-256(UTF8(domain) || 0x00 || canonical_json_v1(input)))``

Each ``*_preimage`` function returns the exact bytes that are hashed, so a front-end can show
them (domain string, the 0x00 separator, the canonical JSON).
"""

from __future__ import annotations

import hashlib
import re

from inspector.checkpoint.constants import (  # (the format's constants, FORMAT.md 2; named here as before)
    DESCRIPTOR_DOMAIN, LOGICAL_DOMAIN, MAX_CONTENT_BYTES, MAX_ID_BYTES, SNAPSHOT_DOMAIN,
)
from inspector.checkpoint.jsontext.canonical import encode

__all__ = [
    "SNAPSHOT_DOMAIN", "LOGICAL_DOMAIN", "DESCRIPTOR_DOMAIN", "content_digest", "domain_digest",
    "domain_preimage", "snapshot_evidence_input", "logical_evidence_input", "descriptor_digest_input",
    "is_sha256", "is_valid_id", "rust_trim", "MAX_CONTENT_BYTES", "MAX_ID_BYTES",
]

#: Unicode White_Space (what Rust's ``str::trim`` removes); Python's ``str.strip()`` differs.
_WHITE_SPACE = "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"
_SHA = re.compile(r"sha256:[0-9a-f]{64}\Z")


def content_digest(data: bytes) -> str:
    """``sha256:`` + lowercase hex SHA-256 of ``data`` (FORMAT.md 3.2 ``content_digest``)."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


def domain_preimage(domain: str, value) -> bytes:
    """The bytes a domain digest hashes: ``domain || 0x00 || canonical_json_v1(value)``."""
    return domain.encode("utf-8") + b"\x00" + encode(value)


def domain_digest(domain: str, value) -> str:
    """FORMAT.md 3.2 ``domain_digest(domain, value)``; ``value`` is a JSON-model object."""
    return "sha256:" + hashlib.sha256(domain_preimage(domain, value)).hexdigest()


_SNAPSHOT_KEYS = ("schema", "encoding", "session_id", "snapshot_schema_version", "size_bytes", "content_digest")
_LOGICAL_KEYS = ("schema", "resume_semantics", "session_id", "source_run_id", "checkpoint_schema_version",
                 "completed_tool_rounds", "checkpoint_ms", "size_bytes", "content_digest")
_DESCRIPTOR_KEYS = ("schema", "format", "media_type", "snapshot", "logical_resume", "size_bytes", "content_digest")


def snapshot_evidence_input(evidence: dict) -> dict:
    """Snapshot evidence digest input: the evidence without ``evidence_digest``."""
    return {k: evidence[k] for k in _SNAPSHOT_KEYS}


def logical_evidence_input(evidence: dict) -> dict:
    """Logical-resume evidence digest input: the evidence without ``evidence_digest``."""
    return {k: evidence[k] for k in _LOGICAL_KEYS}


def descriptor_digest_input(descriptor: dict) -> dict:
    """Descriptor digest input; ``logical_resume`` is always present (``None`` when absent)."""
    return {k: descriptor.get(k) for k in _DESCRIPTOR_KEYS}


def is_sha256(value: str) -> bool:
    """sha256-valid: ``sha256:`` followed by exactly 64 of ``[0-9a-f]`` (FORMAT.md 5)."""
    return bool(_SHA.match(value))


def rust_trim(value: str) -> str:
    """Rust ``str::trim``: strip Unicode White_Space (not Python's wider ``str.strip()`` set)."""
    return value.strip(_WHITE_SPACE)


def is_valid_id(value: str) -> bool:
    """id-valid (FORMAT.md 5): non-blank after Unicode trim, <= 256 UTF-8 bytes, no Cc char."""
    return (
        bool(value.strip(_WHITE_SPACE))
        and len(value.encode("utf-8")) <= MAX_ID_BYTES
        and not any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in value)
    )
