"""The verification engine for A3S Code portable session checkpoints (no Qt, no CLI).

Public API::

    from inspector.checkpoint import verify, canonicalize, read_input
    report = verify(payload_bytes, descriptor_bytes)
    report.verified, report.root_cause.rule.id, report.root_cause.message

Data flows one way: bytes -> parsed documents (typed values, byte-span trees) -> rule
verdicts (:class:`Report`) -> front-ends. See FORMAT.md for the format and the rules.
"""

from .artifact import (
    InputFile, PairingError, UnreadableInput, classify, detect_role, display_path, file_role, display_text, file_uri,
    not_a_checkpoint, pair_inputs, read_input,
)
from inspector.checkpoint.jsontext.canonical import CanonicalError, canonicalize, encode, format_f64
from inspector.checkpoint.rules.catalogue import Rule, catalogue, rule
from inspector.checkpoint.rules.context import Context, build_descriptor
from inspector.checkpoint.diagnosis.diagnose import CanonicalDiagnosis, Difference, diagnose_canonical
from .digest import (
    DESCRIPTOR_DOMAIN, LOGICAL_DOMAIN, MAX_CONTENT_BYTES, SNAPSHOT_DOMAIN, content_digest, domain_digest,
    domain_preimage,
)
from inspector.checkpoint.analysis.generation import Generation, GenerationSign, detect_generation
from inspector.checkpoint.jsontext.reader import Node, SerdeError, parse_value
from .report import STAGE_BYTES, STAGE_STRUCTURE, DigestRow, Finding, Location, Report, Stage, Verdict
from inspector.checkpoint.schema.typed import decode
from .verify import first_stage, verify

__all__ = [
    "verify", "first_stage", "Report", "Stage", "STAGE_BYTES", "STAGE_STRUCTURE", "Finding", "Location", "Verdict", "DigestRow",
    "canonicalize", "encode", "format_f64", "CanonicalError", "SerdeError", "parse_value", "Node", "decode",
    "content_digest", "domain_digest", "domain_preimage", "SNAPSHOT_DOMAIN", "LOGICAL_DOMAIN", "DESCRIPTOR_DOMAIN",
    "MAX_CONTENT_BYTES", "Rule", "catalogue", "rule", "Context", "build_descriptor",
    "CanonicalDiagnosis", "Difference", "diagnose_canonical", "Generation", "GenerationSign", "detect_generation",
    "InputFile", "UnreadableInput", "PairingError", "read_input", "classify", "detect_role", "file_role", "pair_inputs",
    "not_a_checkpoint", "display_path", "display_text", "file_uri",
]
