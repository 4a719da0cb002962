"""Where a staged load stands: bytes -> structure -> verdicts -> views -> trees.

A large payload is shown in stages (hash before parse; ``inspector.session.engine``): the descriptor's
rules, the payload's size and content digest first (:data:`~inspector.checkpoint.report.STAGE_BYTES`),
then the parse (:data:`~inspector.checkpoint.report.STAGE_STRUCTURE`), then every rule's verdict, then
the Resume dock's timeline and transcript (``report.views``), and the trees' span index whenever the
indexer has it (before or after the verdicts). One :class:`StagedLoad` says all of it; the engine fills
it, every :class:`~inspector.session.engine.Analysis` carries a copy, and the document and the window
read it (``Document.load``), instead of flags spread over both.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

from inspector.checkpoint import STAGE_STRUCTURE

__all__ = ["LoadState", "StagedLoad"]


class LoadState(IntEnum):
    """The furthest stage a load has reached, in the order the window shows them."""

    OPENED = 0  #: nothing decided yet
    BYTES = 1  #: the descriptor's rules, the payload's size and content digest (X-BYTES)
    STRUCTURE = 2  #: the payload parsed and typed (P-PARSE, P-SCHEMA)
    VERDICTS = 3  #: every rule decided: the report
    VIEWS = 4  #: the report's timeline and transcript (or why they could not be built)
    TREES = 5  #: the trees' span index too: the load is complete


@dataclass
class StagedLoad:
    """What a staged load has decided so far.

    ``stage``: the engine's latest partial verdict (:class:`~inspector.checkpoint.Stage`) before the
    report, else ``None``; ``report``: the :class:`~inspector.checkpoint.Report` once every rule is
    decided; ``views_done``: the report's views were built or failed (``views_error`` says why);
    ``trees_done``: the payload's span index is ready (the trees can be shown).
    """

    stage: object = None
    report: object = None
    views_done: bool = False
    views_error: str | None = None
    trees_done: bool = False

    @property
    def state(self) -> LoadState:
        """The furthest :class:`LoadState` reached in order (trees count once the views are there)."""
        if self.report is None:
            if self.stage is None:
                return LoadState.OPENED
            return LoadState.STRUCTURE if self.stage.name == STAGE_STRUCTURE else LoadState.BYTES
        if not self.views_done:
            return LoadState.VERDICTS
        return LoadState.TREES if self.trees_done else LoadState.VIEWS

    @property
    def views_follow(self) -> bool:
        """The verdicts are decided and the timeline and transcript are still being built."""
        return self.report is not None and not self.views_done

    def progress_text(self, size_bytes: int, elapsed_s: float) -> str:
        """The status line of a load in progress: what is done, the payload's size (MiB) and the time so far."""
        if self.report is not None:
            what = "Verified; reading the timeline" if self.trees_done else "Verified; reading the trees"
        else:
            what = "Trees ready; verifying" if self.trees_done else "Verifying and reading the trees"
        return f"{what}… {size_bytes / 1048576:.0f} MiB, {elapsed_s:.0f} s"
