"""What a change to a checkpoint makes stale in its descriptor (FORMAT.md 3.2): the comparison's
"invalidates" column. A change inside a component changes its content digest, evidence digest and size;
every change changes the descriptor digest.
"""

from __future__ import annotations

__all__ = ["invalidates_payload", "invalidates_descriptor"]

_SNAPSHOT_FIELDS = {("session", "id"): "/snapshot/session_id", ("schema_version",): "/snapshot/snapshot_schema_version"}
_LOGICAL_FIELDS = {("session_id",): "/logical_resume/session_id", ("run_id",): "/logical_resume/source_run_id",
                   ("schema_version",): "/logical_resume/checkpoint_schema_version",
                   ("turn",): "/logical_resume/completed_tool_rounds",
                   ("checkpoint_ms",): "/logical_resume/checkpoint_ms"}


def invalidates_payload(tokens: tuple, size_changes: bool) -> tuple[str, ...]:
    """The descriptor fields (JSON Pointers) a change of the payload at ``tokens`` makes stale: the component's
    identity fields it feeds, its content and evidence digests, sizes when ``size_changes``, and the whole
    file's content and descriptor digests (FORMAT.md 3.2)."""
    out: list[str] = []
    head = tokens[0] if tokens else None
    if not tokens:
        out += ["/snapshot", "/logical_resume"]
    elif head == "snapshot" or head == "logical_resume":
        if len(tokens) == 1:
            out.append(f"/{head}")
        else:
            fields = _SNAPSHOT_FIELDS if head == "snapshot" else _LOGICAL_FIELDS
            for path, target in fields.items():
                if tuple(tokens[1:1 + len(path)]) == path or tuple(tokens[1:]) == path[:len(tokens) - 1]:
                    out.append(target)
            out.append(f"/{head}/content_digest")
            if size_changes:
                out.append(f"/{head}/size_bytes")
            out.append(f"/{head}/evidence_digest")
    if size_changes:
        out.append("/size_bytes")
    out += ["/content_digest", "/descriptor_digest"]
    return tuple(out)


def invalidates_descriptor(tokens: tuple) -> tuple[str, ...]:
    """The descriptor fields a change of the descriptor itself at ``tokens`` makes stale: the component's
    evidence digest and the descriptor digest (FORMAT.md 3.2)."""
    if not tokens:
        return ("/descriptor_digest",)
    head = tokens[0]
    if head == "descriptor_digest":
        return ()
    if head in ("snapshot", "logical_resume") and len(tokens) > 1 and tokens[1] != "evidence_digest":
        return (f"/{head}/evidence_digest", "/descriptor_digest")
    return ("/descriptor_digest",)
