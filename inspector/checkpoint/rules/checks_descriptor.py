"""The descriptor's own rules (stage D of FORMAT.md 6.1): D-*, DS-* (snapshot evidence) and DL-* (logical-resume
evidence), each registered with ``@check``. Messages are the reference's verbatim texts.
"""

from __future__ import annotations

from inspector.checkpoint.digest import (
    DESCRIPTOR_DOMAIN, LOGICAL_DOMAIN, MAX_CONTENT_BYTES, SNAPSHOT_DOMAIN, descriptor_digest_input, domain_digest,
    is_sha256, logical_evidence_input, snapshot_evidence_input,
)
from inspector.checkpoint.constants import (
    DESCRIPTOR_SCHEMA, ENCODING, FORMAT, LOGICAL_EVIDENCE_SCHEMA, MEDIA_TYPE, RESUME_SEMANTICS, SNAPSHOT_EVIDENCE_SCHEMA,
)
from inspector.checkpoint.rules.context import Context, NotApplicable
from inspector.checkpoint.rules.registry import (
    Violation, check, descriptor_logical_resume, expect_equal, id_violations, nv, reference_message,
)


def _snap(ctx):
    return ctx.desc["snapshot"]


def _size(rule_id, pointer, value):
    if value == 0 or value > MAX_CONTENT_BYTES:
        yield Violation(reference_message(rule_id), "descriptor", pointer, expected="1..268435456", actual=value)


def _sha(rule_id, pointer, value, msg=None):
    if not is_sha256(value):
        yield Violation(msg or reference_message(rule_id), "descriptor", pointer, expected="sha256: + 64 lowercase hex digits",
                        actual=value)




# ---------------------------------------------------------------------------------- D rules
@check("D-PARSE")
def d_parse(ctx: Context):
    """D-PARSE: Descriptor parses as SessionCheckpointDescriptorV1 (FORMAT.md 6.1). Yields a Violation per failure."""
    if ctx.descriptor is None:
        raise NotApplicable("no descriptor")
    err = ctx.desc_result[1]
    if err is not None:
        yield Violation(err.text(), "descriptor", "", offset=err.offset)


@check("D-SCHEMA")
def d_schema(ctx):
    """D-SCHEMA: Descriptor schema is the v1 descriptor schema (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from expect_equal("D-SCHEMA", "descriptor", "/schema", ctx.desc["schema"], DESCRIPTOR_SCHEMA)


@check("D-FORMAT")
def d_format(ctx):
    """D-FORMAT: Descriptor format is a3s_code_session_checkpoint_v1 (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from expect_equal("D-FORMAT", "descriptor", "/format", ctx.desc["format"], FORMAT)


@check("D-MEDIA")
def d_media(ctx):
    """D-MEDIA: Descriptor media type is the v1 media type (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from expect_equal("D-MEDIA", "descriptor", "/media_type", ctx.desc["media_type"], MEDIA_TYPE)


@check("DS-SCHEMA")
def ds_schema(ctx):
    """DS-SCHEMA: Snapshot evidence schema is supported (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from expect_equal("DS-SCHEMA", "descriptor", "/snapshot/schema", _snap(ctx)["schema"], SNAPSHOT_EVIDENCE_SCHEMA)


@check("DS-ENCODING")
def ds_encoding(ctx):
    """DS-ENCODING: Snapshot encoding is canonical_json_v1 (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from expect_equal("DS-ENCODING", "descriptor", "/snapshot/encoding", _snap(ctx)["encoding"], ENCODING)


@check("DS-SESSION-ID")
def ds_session_id(ctx):
    """DS-SESSION-ID: Snapshot evidence session_id is a valid id (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from id_violations("DS-SESSION-ID", "descriptor", "/snapshot/session_id", _snap(ctx)["session_id"])


@check("DS-VERSION")
def ds_version(ctx):
    """DS-VERSION: Snapshot schema version is exactly 1 (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from expect_equal("DS-VERSION", "descriptor", "/snapshot/snapshot_schema_version", _snap(ctx)["snapshot_schema_version"], 1)


@check("DS-SIZE")
def ds_size(ctx):
    """DS-SIZE: Snapshot size is within (0, 256 MiB] (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from _size("DS-SIZE", "/snapshot/size_bytes", _snap(ctx)["size_bytes"])


@check("DS-CONTENT-DIGEST")
def ds_content_digest(ctx):
    """DS-CONTENT-DIGEST: Snapshot content_digest is canonical lowercase SHA-256 (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from _sha("DS-CONTENT-DIGEST", "/snapshot/content_digest", _snap(ctx)["content_digest"])


@check("DS-EVIDENCE-FORMAT")
def ds_evidence_format(ctx):
    """DS-EVIDENCE-FORMAT: Snapshot evidence_digest is canonical lowercase SHA-256 (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from _sha("DS-EVIDENCE-FORMAT", "/snapshot/evidence_digest", _snap(ctx)["evidence_digest"])


@check("DS-EVIDENCE-DIGEST")
def ds_evidence_digest(ctx):
    """DS-EVIDENCE-DIGEST: Snapshot evidence_digest binds the snapshot identity (FORMAT.md 6.1). Yields a Violation per failure."""
    ev = _snap(ctx)
    yield from expect_equal("DS-EVIDENCE-DIGEST", "descriptor", "/snapshot/evidence_digest", ev["evidence_digest"],
                   domain_digest(SNAPSHOT_DOMAIN, snapshot_evidence_input(ev)))


@check("DL-SCHEMA")
def dl_schema(ctx):
    """DL-SCHEMA: Logical-resume evidence schema is supported (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from expect_equal("DL-SCHEMA", "descriptor", "/logical_resume/schema", descriptor_logical_resume(ctx)["schema"], LOGICAL_EVIDENCE_SCHEMA)


@check("DL-SEMANTICS")
def dl_semantics(ctx):
    """DL-SEMANTICS: Resume semantics are between_tool_rounds_v1 (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from expect_equal("DL-SEMANTICS", "descriptor", "/logical_resume/resume_semantics", descriptor_logical_resume(ctx)["resume_semantics"], RESUME_SEMANTICS)


@check("DL-SESSION-ID")
def dl_session_id(ctx):
    """DL-SESSION-ID: Logical-resume session_id is a valid id (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from id_violations("DL-SESSION-ID", "descriptor", "/logical_resume/session_id", descriptor_logical_resume(ctx)["session_id"])


@check("DL-RUN-ID")
def dl_run_id(ctx):
    """DL-RUN-ID: Logical-resume source_run_id is a valid id (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from id_violations("DL-RUN-ID", "descriptor", "/logical_resume/source_run_id", descriptor_logical_resume(ctx)["source_run_id"])


@check("DL-VERSION")
def dl_version(ctx):
    """DL-VERSION: Loop checkpoint schema version is exactly 1 (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from expect_equal("DL-VERSION", "descriptor", "/logical_resume/checkpoint_schema_version", descriptor_logical_resume(ctx)["checkpoint_schema_version"], 1)


@check("DL-ROUNDS")
def dl_rounds(ctx):
    """DL-ROUNDS: Logical resume has a completed tool round (FORMAT.md 6.1). Yields a Violation per failure."""
    if descriptor_logical_resume(ctx)["completed_tool_rounds"] == 0:
        yield Violation(reference_message("DL-ROUNDS"), "descriptor", "/logical_resume/completed_tool_rounds", expected=">= 1", actual=0)


@check("DL-SIZE")
def dl_size(ctx):
    """DL-SIZE: Logical-resume size is within (0, 256 MiB] (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from _size("DL-SIZE", "/logical_resume/size_bytes", descriptor_logical_resume(ctx)["size_bytes"])


@check("DL-CONTENT-DIGEST")
def dl_content_digest(ctx):
    """DL-CONTENT-DIGEST: Logical-resume content_digest is canonical lowercase SHA-256 (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from _sha("DL-CONTENT-DIGEST", "/logical_resume/content_digest", descriptor_logical_resume(ctx)["content_digest"])


@check("DL-EVIDENCE-FORMAT")
def dl_evidence_format(ctx):
    """DL-EVIDENCE-FORMAT: Logical-resume evidence_digest is canonical lowercase SHA-256 (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from _sha("DL-EVIDENCE-FORMAT", "/logical_resume/evidence_digest", descriptor_logical_resume(ctx)["evidence_digest"])


@check("DL-EVIDENCE-DIGEST")
def dl_evidence_digest(ctx):
    """DL-EVIDENCE-DIGEST: Logical-resume evidence_digest binds the boundary (FORMAT.md 6.1). Yields a Violation per failure."""
    ev = descriptor_logical_resume(ctx)
    yield from expect_equal("DL-EVIDENCE-DIGEST", "descriptor", "/logical_resume/evidence_digest", ev["evidence_digest"],
                   domain_digest(LOGICAL_DOMAIN, logical_evidence_input(ev)))


@check("D-SESSION-MATCH")
def d_session_match(ctx):
    """D-SESSION-MATCH: Logical-resume and snapshot evidence name the same session (FORMAT.md 6.1). Yields a Violation per failure."""
    ev = descriptor_logical_resume(ctx)
    yield from expect_equal("D-SESSION-MATCH", "descriptor", "/logical_resume/session_id", ev["session_id"],
                   _snap(ctx)["session_id"], ("descriptor", "/snapshot/session_id"))


@check("D-SIZE")
def d_size(ctx):
    """D-SIZE: Payload size is within (0, 256 MiB] (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from _size("D-SIZE", "/size_bytes", ctx.desc["size_bytes"])


@check("D-CONTENT-DIGEST")
def d_content_digest(ctx):
    """D-CONTENT-DIGEST: Payload content_digest is canonical lowercase SHA-256 (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from _sha("D-CONTENT-DIGEST", "/content_digest", ctx.desc["content_digest"])


@check("D-COMPONENT-SIZE")
def d_component_size(ctx):
    """D-COMPONENT-SIZE: No component is larger than the payload (FORMAT.md 6.1). Yields a Violation per failure."""
    d = ctx.desc
    total = d["size_bytes"]
    for name in ("snapshot", "logical_resume"):
        comp = d.get(name)
        if comp is not None and comp["size_bytes"] > total:
            yield Violation(reference_message("D-COMPONENT-SIZE"), "descriptor", f"/{name}/size_bytes",
                            expected="<= " + nv(total, "/size_bytes", "descriptor"), actual=comp["size_bytes"], extra=(("descriptor", "/size_bytes"),))


@check("D-DIGEST-FORMAT")
def d_digest_format(ctx):
    """D-DIGEST-FORMAT: descriptor_digest is canonical lowercase SHA-256 (FORMAT.md 6.1). Yields a Violation per failure."""
    yield from _sha("D-DIGEST-FORMAT", "/descriptor_digest", ctx.desc["descriptor_digest"])


@check("D-DIGEST")
def d_digest(ctx):
    """D-DIGEST: descriptor_digest binds the descriptor (FORMAT.md 6.1). Yields a Violation per failure."""
    d = ctx.desc
    yield from expect_equal("D-DIGEST", "descriptor", "/descriptor_digest", d["descriptor_digest"],
                   domain_digest(DESCRIPTOR_DOMAIN, descriptor_digest_input(d)))
