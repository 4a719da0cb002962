"""Fields a later A3S Code release added, as signs of the writer (FORMAT.md 3.4, 0.1).

The P-CANONICAL diagnosis names them in its note (:func:`newer_summary`); the generation analysis
(:mod:`inspector.checkpoint.analysis.generation`) lists them as :class:`GenerationSign`. Explains,
never decides a verdict.
"""

from __future__ import annotations

from dataclasses import dataclass

from inspector.checkpoint.diagnosis.hazards import REFERENCE_RELEASE, RELEASES, newer_field

__all__ = ["GenerationSign", "newer_summary"]


@dataclass(frozen=True)
class GenerationSign:
    """One field that dates the artifact.

    ``field``: ``Struct.field`` (``"LoopConvergenceState.mutations"``); ``pointer``: where it is in
    the payload (RFC 6901); ``release``: the release that changed it (``RELEASES`` text);
    ``change``: ``added`` (a later release introduced it), ``removed`` (a later release removed
    it) or ``absent`` (an earlier generation did not write it); ``effect``: what it does here.
    """

    field: str
    pointer: str
    release: str
    change: str
    effect: str

    def to_json(self) -> dict:
        """JSON form: the attributes as keys."""
        return {"field": self.field, "pointer": self.pointer, "release": self.release, "change": self.change,
                "effect": self.effect}


def newer_signs(differences) -> list[GenerationSign]:
    """The generation signs of P-CANONICAL ``differences`` (``Difference``s): one per ``newer-field`` difference, the
    release that added the field (FORMAT.md 3.4, the release tables of :mod:`.hazards`), in the differences' order."""
    signs = []
    for d in differences:
        if d.kind == "newer-field":
            field, release = newer_field(d.pointer)
            signs.append(GenerationSign(field, d.pointer, RELEASES[release], "added",
                                        f"unknown to {REFERENCE_RELEASE}: dropped on read, so the re-encoding "
                                        "differs (P-CANONICAL)"))
    return signs


def newer_summary(differences) -> str | None:
    """The sentence for a P-CANONICAL diagnosis whose ``differences`` include newer fields, else ``None``."""
    signs = newer_signs(differences)
    if not signs:
        return None
    releases = sorted({s.release for s in signs})
    fields = ", ".join(dict.fromkeys(s.field for s in signs))
    head = (f"written by a newer A3S Code: {' / '.join(releases)} writes {fields}, which the pinned "
            f"{REFERENCE_RELEASE} reference does not know and drops on read")
    others = sorted({d.kind for d in differences if d.kind != "newer-field"})
    if not others:
        return (head + "; the reference rejects the artifact for that alone (P-CANONICAL): a version difference, "
                "not corruption")
    return head + f"; other differences remain ({', '.join(k.replace('-', ' ') for k in others)})"
