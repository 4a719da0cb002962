"""The verification engine for A3S Code portable session checkpoints (no Qt, no CLI).

Public API::

    from inspector.checkpoint import verify, canonicalize, read_input
    report = verify(payload_bytes, descriptor_bytes)
    report.verified, report.root_cause.rule.id, report.root_cause.message

Data flows one way: bytes -> parsed documents (typed values, byte-span trees) -> rule
verdicts (:class:`Report`) -> front-ends. See FORMAT.md for the format and the rules.

The names below are imported when first used (PEP 562 ``__getattr__``, as SciPy and napari load
theirs), so that importing one module of the engine (``inspector.checkpoint.artifact`` for a file's
role, ``inspector.checkpoint.rules.catalogue`` for ``--version``) does not import all of it.
"""

from __future__ import annotations

import sys
from importlib import import_module
from types import ModuleType

TYPE_CHECKING = False  # (not typing's: importing typing costs --help 3 ms; mypy and pyright treat the name alike)
if TYPE_CHECKING:  # what a type checker (mypy, pyright) and an IDE see: the names, from their modules
    from inspector.checkpoint.analysis.generation import Generation, GenerationSign, detect_generation
    from inspector.checkpoint.artifact import (
        InputFile, PairingError, UnreadableInput, classify, detect_role, display_path, display_text, file_role,
        file_uri, not_a_checkpoint, pair_inputs, read_input,
    )
    from inspector.checkpoint.diagnosis.diagnose import CanonicalDiagnosis, Difference, diagnose_canonical
    from inspector.checkpoint.digest import (
        DESCRIPTOR_DOMAIN, LOGICAL_DOMAIN, MAX_CONTENT_BYTES, SNAPSHOT_DOMAIN, content_digest, domain_digest,
        domain_preimage,
    )
    from inspector.checkpoint.jsontext.canonical import CanonicalError, canonicalize, encode, format_f64
    from inspector.checkpoint.jsontext.reader import Node, SerdeError, parse_value
    from inspector.checkpoint.report import (
        STAGE_BYTES, STAGE_STRUCTURE, DigestRow, Finding, Location, Report, Stage, Verdict,
    )
    from inspector.checkpoint.rules.catalogue import Rule, catalogue, rule
    from inspector.checkpoint.rules.context import Context, build_descriptor
    from inspector.checkpoint.schema.typed import decode
    from inspector.checkpoint.verify import Verified, first_stage, verify, verify_indexed

#: Each public name and the module that defines it.
_HOME = {
    **dict.fromkeys(("InputFile", "PairingError", "UnreadableInput", "classify", "detect_role", "display_path",
                     "file_role", "display_text", "file_uri", "not_a_checkpoint", "pair_inputs", "read_input"),
                    "inspector.checkpoint.artifact"),
    **dict.fromkeys(("CanonicalError", "canonicalize", "encode", "format_f64"), "inspector.checkpoint.jsontext.canonical"),
    **dict.fromkeys(("Rule", "catalogue", "rule"), "inspector.checkpoint.rules.catalogue"),
    **dict.fromkeys(("Context", "build_descriptor"), "inspector.checkpoint.rules.context"),
    **dict.fromkeys(("CanonicalDiagnosis", "Difference", "diagnose_canonical"),
                    "inspector.checkpoint.diagnosis.diagnose"),
    **dict.fromkeys(("DESCRIPTOR_DOMAIN", "LOGICAL_DOMAIN", "MAX_CONTENT_BYTES", "SNAPSHOT_DOMAIN", "content_digest",
                     "domain_digest", "domain_preimage"), "inspector.checkpoint.digest"),
    **dict.fromkeys(("Generation", "GenerationSign", "detect_generation"), "inspector.checkpoint.analysis.generation"),
    **dict.fromkeys(("Node", "SerdeError", "parse_value"), "inspector.checkpoint.jsontext.reader"),
    **dict.fromkeys(("STAGE_BYTES", "STAGE_STRUCTURE", "DigestRow", "Finding", "Location", "Report", "Stage",
                     "Verdict"), "inspector.checkpoint.report"),
    "decode": "inspector.checkpoint.schema.typed",
    **dict.fromkeys(("first_stage", "verify", "verify_indexed", "Verified"), "inspector.checkpoint.verify"),
}

__all__ = [
    "verify", "verify_indexed", "Verified", "first_stage", "Report", "Stage", "STAGE_BYTES", "STAGE_STRUCTURE", "Finding", "Location", "Verdict", "DigestRow",
    "canonicalize", "encode", "format_f64", "CanonicalError", "SerdeError", "parse_value", "Node", "decode",
    "content_digest", "domain_digest", "domain_preimage", "SNAPSHOT_DOMAIN", "LOGICAL_DOMAIN", "DESCRIPTOR_DOMAIN",
    "MAX_CONTENT_BYTES", "Rule", "catalogue", "rule", "Context", "build_descriptor",
    "CanonicalDiagnosis", "Difference", "diagnose_canonical", "Generation", "GenerationSign", "detect_generation",
    "InputFile", "UnreadableInput", "PairingError", "read_input", "classify", "detect_role", "file_role", "pair_inputs",
    "not_a_checkpoint", "display_path", "display_text", "file_uri",
]


def __getattr__(name: str):
    """A public name of the engine, imported from its module on first use (then kept in this module's
    namespace). Raises ``AttributeError`` for any other name, as a module does."""
    home = _HOME.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


class _Engine(ModuleType):
    """This package's module type: ``verify`` names the function even after its module
    ``inspector.checkpoint.verify`` is imported (the import system then sets the package's attribute of that
    name to the module; an eager ``__init__`` used to bind the function again after it)."""

    def __setattr__(self, name: str, value) -> None:
        if name == "verify" and isinstance(value, ModuleType):
            value = value.verify
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Engine
