"""``checkpoint-inspector audit``: verify every checkpoint under a source on Dask (Qt-free).

The source is anything the audit's source seam reads (:func:`inspector.session.manifest.open_audit_source`: a
local folder, an fsspec URL prefix, a JSON Lines file of SDK export wrappers, a manifest of payload/descriptor
URL pairs). The work is in three phases (:mod:`.core`): workers classify the entries in batches, the client pairs
payloads with descriptors over the whole source by digest then by name (as ``scan`` does), and workers verify
the pairs in batches, in-process. Records (:data:`RECORD_SCHEMA`) carry no content: locations (without
credentials), sizes, SHA-256, ids through the ticket's redaction gate, rule ids and codes, the root cause's
message as that gate renders it, counts. :mod:`.run` runs it on Dask with a journal (``--resume``) and the
faults handled; :mod:`.summary` makes the summary; :mod:`.output` writes RESULTS (JSON Lines or Parquet).

Dask (``dask.distributed``, the ``audit`` extra) is imported only when an audit runs.
"""

from __future__ import annotations

from . import spill  # noqa: F401 (the spill module is part of the package's surface: ``inspector.audit.spill``)
from .core import RECORD_SCHEMA, Found, classify_batch, pair_found, record_key, verify_batch
from .output import FORMATS, write_results
from .run import BATCH_FILES, AuditError, AuditResult, Journal, read_journal, run_audit
from .summary import SUMMARY_SCHEMA, summarize, summary_html, summary_text

__all__ = ["RECORD_SCHEMA", "SUMMARY_SCHEMA", "BATCH_FILES", "FORMATS", "Found", "AuditError", "AuditResult",
           "Journal", "classify_batch", "pair_found", "verify_batch", "record_key", "read_journal", "run_audit",
           "summarize", "summary_text", "summary_html", "write_results"]
