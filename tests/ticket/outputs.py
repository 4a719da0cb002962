"""Every output that claims redaction, rendered for one pair of file bytes: what the attack tests search."""

from __future__ import annotations

from inspector.checkpoint import InputFile, verify
from inspector.ticket import FORMATS, build_ticket, gate_for, redact_payload, render


def shareable_outputs(payload: bytes, descriptor: bytes | None = None) -> dict[str, str]:
    """``{format: text}`` for every ticket format, plus ``redacted-payload`` (the redacted copy) and
    ``replacements`` (its replacement list as ``report --redacted-payload`` prints it: pointer, kind,
    size, tag), all through one gate as ``checkpoint-inspector report`` makes them."""
    report = verify(payload, descriptor)
    pf = InputFile("p.json", len(payload), payload, "payload")
    df = None if descriptor is None else InputFile("d.json", len(descriptor), descriptor, "descriptor")
    gate = gate_for(payload, descriptor)
    ticket = build_ticket(report, pf, df, date="2026-01-01T00:00:00Z", gate=gate)
    out = {fmt: render(ticket, fmt) for fmt in FORMATS}
    red, reps = redact_payload(payload, gate=gate)
    out["redacted-payload"] = red.decode()
    out["replacements"] = "\n".join(f"{r.pointer} {r.kind} {r.size} {r.digest}" for r in reps)
    return out
