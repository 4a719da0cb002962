"""The format's constants (FORMAT.md 2, ``core/src/session_checkpoint.rs``): the schema identifiers, the format,
media type, encoding and resume semantics a descriptor names, the three private digest domains, and the byte
limits. The engine's lowest floor: it imports nothing, and every floor above takes these names from here.

``tests/checkpoint/test_constants.py`` reads FORMAT.md 2's table and checks every value here against it.
"""

from __future__ import annotations

__all__ = ["DESCRIPTOR_SCHEMA", "PAYLOAD_SCHEMA", "SNAPSHOT_EVIDENCE_SCHEMA", "LOGICAL_EVIDENCE_SCHEMA", "FORMAT",
           "MEDIA_TYPE", "ENCODING", "RESUME_SEMANTICS", "MAX_CONTENT_BYTES", "SNAPSHOT_DOMAIN", "LOGICAL_DOMAIN",
           "DESCRIPTOR_DOMAIN", "MAX_ID_BYTES"]

#: ``SESSION_CHECKPOINT_DESCRIPTOR_SCHEMA_V1``: a descriptor's ``schema`` (D-SCHEMA).
DESCRIPTOR_SCHEMA = "a3s.code.session-checkpoint-descriptor.v1"
#: ``SESSION_CHECKPOINT_PAYLOAD_SCHEMA_V1``: a payload's ``schema`` (P-SCHEMA).
PAYLOAD_SCHEMA = "a3s.code.session-checkpoint-payload.v1"
#: ``SESSION_SNAPSHOT_EVIDENCE_SCHEMA_V1``: the descriptor's ``snapshot.schema`` (DS-SCHEMA).
SNAPSHOT_EVIDENCE_SCHEMA = "a3s.code.session-snapshot-evidence.v1"
#: ``SESSION_LOGICAL_RESUME_EVIDENCE_SCHEMA_V1``: the descriptor's ``logical_resume.schema`` (DL-SCHEMA).
LOGICAL_EVIDENCE_SCHEMA = "a3s.code.logical-resume-evidence.v1"
#: ``SESSION_CHECKPOINT_FORMAT_V1``: the descriptor's ``format``.
FORMAT = "a3s_code_session_checkpoint_v1"
#: ``SESSION_CHECKPOINT_MEDIA_TYPE_V1``: the descriptor's ``media_type`` (D-MEDIA).
MEDIA_TYPE = "application/vnd.a3s.code.session-checkpoint.v1+json"
#: ``SESSION_CHECKPOINT_ENCODING_V1``: the snapshot evidence's ``encoding`` (DS-ENCODING).
ENCODING = "canonical_json_v1"
#: ``SESSION_CHECKPOINT_LOGICAL_RESUME_SEMANTICS_V1``: the logical-resume evidence's ``resume_semantics``
#: (DL-SEMANTICS).
RESUME_SEMANTICS = "between_tool_rounds_v1"
#: ``SESSION_CHECKPOINT_MAX_CONTENT_BYTES``: the largest payload, in bytes (256 MiB; P-BOUND).
MAX_CONTENT_BYTES = 268435456
#: The snapshot evidence digest's domain (private to the reference; FORMAT.md 3.2).
SNAPSHOT_DOMAIN = "a3s.code.session-snapshot-evidence-digest.v1"
#: The logical-resume evidence digest's domain (private; FORMAT.md 3.2).
LOGICAL_DOMAIN = "a3s.code.logical-resume-evidence-digest.v1"
#: The descriptor digest's domain (private; FORMAT.md 3.2).
DESCRIPTOR_DOMAIN = "a3s.code.session-checkpoint-descriptor-digest.v1"
#: ``MAX_ID_BYTES``: the longest id, in bytes (FORMAT.md 2).
MAX_ID_BYTES = 256
