"""What a front-end holds of the documents it shows: each :class:`Side` (a payload or descriptor, its bytes
and span index) and an :class:`Analysis` (both sides and the engine's report, with where a staged load
stands), and the two ways a job ends early (:class:`Cancelled`, :class:`UserError`). Data only: the
engine (:mod:`.engine`) makes them, the window shows them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from inspector.checkpoint.diagnostic import InspectorError
from inspector.checkpoint.jsontext.lazyjson import SpanIndex
from inspector.session.staged import StagedLoad

__all__ = ["Side", "Analysis", "Cancelled", "UserError"]


class Cancelled(Exception):
    """The user cancelled the job."""


class UserError(InspectorError):
    """A problem to show the user as one sentence (unreadable file, bad pairing, bad edit)."""



@dataclass
class Side:
    """One input document as the window shows it.

    Attributes:
        source: ``payload`` or ``descriptor``.
        path: the file it was read from (``None`` for a sandbox-only document).
        data: the bytes (the sandbox copy once edited); ``None`` when over the ceiling.
        size: size in bytes. mtime_ns: file modification time when read (0 if none).
        hint: the engine's sentence about an obvious problem (gzip, BOM...), or ``None``.
        index: a :class:`inspector.checkpoint.jsontext.lazyjson.SpanIndex` (``container_start -> Children``) of the large containers, or ``None`` when the bytes
            are not JSON (then ``parse_error`` says why).
        parse_error: ``(message, byte_offset_or_None)`` when the bytes are not JSON.
        sha256: ``sha256:`` digest of ``data`` when computed.
        form: ``None``, or the form it was taken out of (the SDK export wrapper at ``path``).
    """

    source: str
    path: str | None
    data: bytes | None
    size: int
    mtime_ns: int = 0
    hint: str | None = None
    index: SpanIndex | None = None
    parse_error: tuple | None = None
    sha256: str | None = None
    form: str | None = None

    @property
    def tree_ok(self) -> bool:
        """True when a tree can be shown."""
        return self.data is not None and self.index is not None


@dataclass
class Analysis:
    """Result of loading or recomputing: both sides and the engine's report.

    ``report`` is ``None`` in a partial result (trees ready, verification still running), except in
    the one that shows a large payload's verdicts before its views (``views_follow``) and, for a
    pretty-printed one, before its trees (``payload.index`` ``None``); the final result carries the same
    report with its views.
    ``warnings`` are sentences for the user (e.g. the file changed while it was read).
    """

    payload: Side | None
    descriptor: Side | None
    report: object = None
    warnings: list = field(default_factory=list)
    verify_seconds: float = 0.0
    #: Sandbox recomputes: which documents the edits changed, and the edits that were skipped (messages).
    edited_sources: set = field(default_factory=set)
    edit_errors: list = field(default_factory=list)
    #: Set by the window once a partial result is on screen (``threading.Event`` or ``None``).
    shown: object = None
    #: Where a staged load stands (:class:`.staged.StagedLoad`); ``None`` given: complete as far as it goes.
    load: StagedLoad | None = None
    #: The files read, when not the ones asked for (a file opened alone, with its other half found beside it).
    paths: list | None = None
    #: What was said about pairing a file opened alone (found beside it, or none found), else ``None``.
    pairing: str | None = None

    def __post_init__(self):
        if self.load is None:  # not a staged partial: the verdicts (if any) with their views, and the trees
            self.load = StagedLoad(report=self.report, views_done=self.report is not None, trees_done=True)

    @property
    def stage(self):
        """In a partial result: the engine's latest partial verdict (``checkpoint.Stage``), else ``None``."""
        return self.load.stage if self.report is None else None

    @property
    def views_follow(self) -> bool:
        """A partial result with the report: its views (the Resume dock's timeline and transcript) follow."""
        return self.load.views_follow

    @property
    def views_error(self) -> str | None:
        """Why ``report.views`` could not be built after the verdicts (a large payload's), else ``None``."""
        return self.load.views_error
