"""Ticket reports that are safe to share: one redaction gate (allow-list and value checks), the report as
data, and its text, Markdown, HTML, JSON and SARIF forms. No Qt, no CLI: both front-ends use it.

::

    from inspector.ticket import build_ticket, render
    text = render(build_ticket(report, payload_file, descriptor_file), "text")
"""

from .allowlist import AllowGroup, AllowList, allowlist
from .model import REFERENCE_PIN, TICKET_SCHEMA, build_ticket, report_date
from .gate import TAG_NOTE, Gate
from .redact import Replacement, gate_for, redact_payload, redact_value, redacted_chunks
from .render import FORMATS, check_report, render

__all__ = [
    "AllowGroup", "AllowList", "allowlist", "REFERENCE_PIN", "TICKET_SCHEMA", "build_ticket", "report_date",
    "Gate", "TAG_NOTE", "gate_for", "Replacement", "redact_payload", "redact_value", "redacted_chunks", "FORMATS", "check_report", "render",
]
