"""The rule registry: :class:`Violation`, :data:`CHECKS` and ``@check``, and the helpers the checks of
every stage share (FORMAT.md 6). Each ``checks_*`` module registers its rules here by id; the catalogue
(``rules.toml``) says their order, and :mod:`.checks` imports every stage so the registry is complete.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable

import orjson

from inspector.checkpoint.digest import is_valid_id
from inspector.checkpoint.rules.catalogue import rule as _rule
from inspector.checkpoint.rules.context import Context, NotApplicable
from inspector.checkpoint.schema.typed import rust_debug_str as q
from inspector.checkpoint.slotted import Text, ours
from inspector.checkpoint.slotted import value as fv

__all__ = ["Violation", "CHECKS", "check", "reference_message", "qv", "nv", "expect_equal", "id_violations",
           "SESSION_ID_POINTER", "session_id_of", "runs_of", "short_json", "U64_MAX",
           "descriptor_logical_resume"]

U64_MAX = (1 << 64) - 1


@dataclass(frozen=True)
class Violation:
    """One failure of a rule.

    ``detail``: the reference message without prefix, a :class:`~.slotted.Text` (our words, values
    from the files as slots; a plain ``str`` is of unknown origin and never shown in a ticket).
    ``expected``: our words unless a :class:`~.slotted.Text` says otherwise; ``actual``: the value
    found at ``source``/``pointer`` unless a :class:`~.slotted.Text` says otherwise (fail closed).
    ``expected_at``: ``(source, pointer)`` when ``expected`` is a value read from a file there.
    ``source``/``pointer``: where
    (``payload``/``descriptor`` and a JSON Pointer). ``offset``: a byte offset when there is
    no pointer (parse errors). ``order``: sub-order within the rule's rank (run index, ...).
    """

    detail: str
    source: str = "payload"
    pointer: str = ""
    expected: object = None
    actual: object = None
    offset: int | None = None
    order: tuple = ()
    notes: tuple = ()
    extra: tuple = ()  # more (source, pointer) locations
    expected_at: tuple | None = None  # (source, pointer) when ``expected`` is a raw value read there


CHECKS: dict[str, Callable[[Context], Iterable[Violation]]] = {}


def check(rule_id: str):
    """Register ``fn`` as the check of ``rule_id`` (the id must exist in the catalogue)."""
    _rule(rule_id)

    def deco(fn):
        CHECKS[rule_id] = fn
        return fn

    return deco


def reference_message(rule_id: str) -> Text:
    """The reference's fixed message of a rule (rules.toml): our words, no slot."""
    return ours(_rule(rule_id).message)


def qv(v, pointer: str, source: str = "payload") -> Text:
    """A string from the file at ``pointer``, printed as Rust's ``{:?}`` (a slot)."""
    return fv(v, source, pointer, form=q)


def nv(v, pointer: str, source: str = "payload") -> Text:
    """A number (or other scalar) from the file at ``pointer``, printed as it is (a slot)."""
    return fv(v, source, pointer)


def expect_equal(rule_id, source, pointer, actual, expected, expected_at=None):
    """A violation when ``actual`` (read at ``pointer``) differs from ``expected``: a constant of the
    format, or a value read from a file at ``expected_at`` (``(source, pointer)``)."""
    if actual != expected:
        yield Violation(reference_message(rule_id), source, pointer, expected=expected, actual=actual, expected_at=expected_at)


def id_violations(rule_id, source, pointer, value):
    """A :class:`Violation` of ``rule_id`` at ``source``/``pointer`` when ``value`` is not a valid id (non-blank, at most
    256 bytes, no control characters: id-valid, FORMAT.md 6); nothing otherwise (a generator)."""
    if not is_valid_id(value):
        yield Violation(reference_message(rule_id), source, pointer, expected="non-blank, <= 256 bytes, no control characters",
                        actual=qv(value, pointer, source))


SESSION_ID_POINTER = "/snapshot/session/id"


def session_id_of(ctx) -> str:
    """The decoded payload's ``snapshot.session.id`` (a rule that reads it runs after P-PARSE: FORMAT.md 6)."""
    return ctx.pay["snapshot"]["session"]["id"]


def runs_of(ctx):
    """The decoded payload's ``snapshot.run_records`` (a list of dicts; after P-PARSE: FORMAT.md 6)."""
    return ctx.pay["snapshot"]["run_records"]


def short_json(v) -> str:
    """``v`` as compact JSON with sorted keys, at most 200 characters (``...`` when cut), ``absent`` for ``None``: how a
    compared value is printed in a finding."""
    s = "absent" if v is None else orjson.dumps(v, option=orjson.OPT_SORT_KEYS).decode()
    return s if len(s) <= 200 else s[:197] + "..."


def descriptor_logical_resume(ctx):
    """The descriptor's ``logical_resume`` evidence; raises NotApplicable when it has none."""
    lr = ctx.desc.get("logical_resume")
    if lr is None:
        raise NotApplicable("the descriptor has no logical_resume evidence")
    return lr
