"""One read of every run's retained events, shared by the rules and the lint.

A payload can hold hundreds of thousands of run events (FORMAT.md 4.5, ``run_records[].events``),
and walking them costs mostly the memory reads of each event object. So S-EVENT-SEQ
(:mod:`.checks`), the binding rules (:mod:`.checks_bindings`) and the lint's
``event-sequence-gap``/``usage-mismatch`` (:mod:`.lint`) share one pass that keeps, per run, each
event's ``sequence`` and the indices of the few events whose kind one of them reads; the rest of
their work runs over those lists.
"""

from __future__ import annotations

from typing import NamedTuple

__all__ = ["MARKED_KINDS", "RunEvents", "read_runs", "for_context"]

#: Event kinds (``event.type``) some reader looks at: the binding rules (``cognitive_context_bound``,
#: ``tool_end``) and the lint's usage sums (``turn_end``).
MARKED_KINDS = frozenset(("cognitive_context_bound", "tool_end", "turn_end", "agent_end"))


class RunEvents(NamedTuple):
    """The events of one run record, read once.

    Attributes:
        events: the run record's ``events`` list (``[]`` when absent).
        sequences: ``events[j].get("sequence")`` for every ``j`` (ints in a typed payload).
        marked: the indices ``j``, ascending, whose ``events[j]["event"]["type"]`` is one of
            :data:`MARKED_KINDS` (an event that is not an object has no kind).
    """

    events: list
    sequences: list
    marked: list


def read_runs(runs: list) -> list[RunEvents]:
    """One :class:`RunEvents` per run record of ``runs`` (``snapshot.run_records``), in order."""
    out = []
    kinds = MARKED_KINDS
    for rec in runs:
        events = rec.get("events") or []
        sequences: list = []
        marked: list[int] = []
        add_sequence = sequences.append
        for j, ev in enumerate(events):
            add_sequence(ev.get("sequence"))
            body = ev.get("event")
            if isinstance(body, dict) and body.get("type") in kinds:
                marked.append(j)
        out.append(RunEvents(events, sequences, marked))
    return out


def for_context(ctx) -> list[RunEvents]:
    """:func:`read_runs` of the context's typed payload, read once per :class:`~.context.Context`.

    Raises:
        NotApplicable: without a typed payload (as ``ctx.pay`` does).
    """
    memo = ctx.__dict__.get("_run_events")
    if memo is None:
        memo = ctx.__dict__["_run_events"] = read_runs(ctx.pay["snapshot"]["run_records"])
    return memo
