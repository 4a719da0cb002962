"""The JSON Schemas (draft 2020-12) of the command line's JSON outputs, one file per output, shipped in the
package (docs/json-schemas.md lists them).

Every JSON document (and every JSON Lines record) the command line writes names its schema in its ``schema``
member: ``checkpoint-inspector.<output>.v<N>``. ``N`` changes with the output's shape: a member added, removed
or retyped is a new version (``tests/test_json_schemas.py`` pins each schema file's digest to its version, and
validates every JSON output the suite produces against its schema).

This module imports nothing of the package: any floor may name a schema.
"""

from __future__ import annotations

import json
from importlib import resources

#: ``verify --format json``.
VERIFY = "checkpoint-inspector.verify.v1"
#: ``timeline --format json``.
TIMELINE = "checkpoint-inspector.timeline.v1"
#: ``diff --format json``.
DIFF = "checkpoint-inspector.diff.v1"
#: ``scan --format json``.
SCAN = "checkpoint-inspector.scan.v1"
#: each line of ``scan --watch --format jsonl``.
SCAN_EVENT = "checkpoint-inspector.scan-event.v1"
#: ``report --format json`` (the ticket).
TICKET = "checkpoint-inspector.ticket.v1"
#: each record of ``audit`` RESULTS (JSON Lines).
AUDIT_RECORD = "checkpoint-inspector.audit-record.v2"
#: ``audit --summary``.
AUDIT_SUMMARY = "checkpoint-inspector.audit-summary.v2"

#: Every schema name, in the order docs/json-schemas.md lists them.
ALL = (VERIFY, TIMELINE, DIFF, SCAN, SCAN_EVENT, TICKET, AUDIT_RECORD, AUDIT_SUMMARY)


def file_name(name: str) -> str:
    """The schema file of ``name`` in this package: ``checkpoint-inspector.verify.v1`` ->
    ``verify.v1.schema.json``. Raises ``KeyError`` for a name not in :data:`ALL`."""
    if name not in ALL:
        raise KeyError(name)
    return name.removeprefix("checkpoint-inspector.") + ".schema.json"


def load(name: str) -> dict:
    """The JSON Schema of output ``name`` (a dict). Raises ``KeyError`` for a name not in :data:`ALL`."""
    return json.loads(resources.files(__package__).joinpath(file_name(name)).read_text(encoding="utf-8"))
