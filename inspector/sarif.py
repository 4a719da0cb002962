"""The one SARIF 2.1.0 writer's shape, shared by ``verify --format sarif`` (:func:`inspector.cli.render.to_sarif`:
exact, byte regions in the files) and the ticket's ``report --format sarif`` (:func:`inspector.ticket.render.to_sarif`:
redacted, file names only). No Qt, no engine: each caller decides what goes in (the ticket only what passed its
redaction gate); this module gives every log the same skeleton, result shape and printing.
"""

from __future__ import annotations

import json

__all__ = ["SCHEMA", "VERSION", "TOOL", "result", "log", "dumps"]

#: The ``$schema`` every log names, its ``version`` and the tool's driver name.
SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
VERSION = "2.1.0"
TOOL = "checkpoint-inspector"


def result(rule_id: str, message: str, properties: dict, locations: list | None = None) -> dict:
    """One SARIF ``result``: a failed rule (``rule_id``, a FORMAT.md rule id) at level ``error`` with its message
    text, its ``locations`` when given (SARIF ``location`` objects) and its ``properties``, in that member order."""
    out = {"ruleId": rule_id, "level": "error", "message": {"text": message}}
    if locations is not None:
        out["locations"] = locations
    out["properties"] = properties
    return out


def log(rules: list, results: list, *, tool_version: str | None = None, artifacts: list | None = None,
        run_properties: dict | None = None, log_properties: dict | None = None) -> dict:
    """A SARIF 2.1.0 log of one run: the driver with ``rules`` (SARIF ``reportingDescriptor`` objects) and
    ``tool_version`` when given, the run's ``artifacts``, ``results`` (:func:`result`) and ``run_properties``,
    and the log's own ``log_properties``; members are left out when ``None``."""
    driver = {"name": TOOL}
    if tool_version is not None:
        driver["version"] = tool_version
    driver["rules"] = rules
    run = {"tool": {"driver": driver}}
    if artifacts is not None:
        run["artifacts"] = artifacts
    run["results"] = results
    if run_properties is not None:
        run["properties"] = run_properties
    out = {"$schema": SCHEMA, "version": VERSION, "runs": [run]}
    if log_properties is not None:
        out["properties"] = log_properties
    return out


def dumps(value: dict) -> str:
    """The log as text: UTF-8 characters unescaped, two-space indent, one final newline (both writers print so)."""
    return json.dumps(value, ensure_ascii=False, indent=2) + "\n"
