"""Texts with provenance: our words plus typed slots that hold values taken from the files.

Every text the engine produces for a finding (the reference's message, expected/actual, notes) is
a :class:`Text`: a ``str`` (so every front-end prints it unchanged, byte for byte as the reference
words it) that also carries :class:`Slot` records. A slot marks the characters of the text that
came from a file and says which value it was, where it was read (a JSON Pointer into which file,
when known) and what it is there (a value, an object key, a variant name). Everything outside the
slots is our own wording (or the reference's fixed wording).

The ticket report's redaction gate (:mod:`inspector.ticket.gate`) renders a :class:`Text` slot by
slot: our words in clear, each slot through the value checks of the allow-list. Nothing parses a
message back to find a quoted value (provenance in the data, not in regular expressions).

A plain ``str`` has no provenance; the gate treats a plain ``str`` from the engine as one value of
unknown origin (fail closed). ``Text(s)`` with no slots declares ``s`` to be our words.

::

    from inspector.checkpoint.slotted import fmt, value
    detail = fmt("run {} event {} has sequence {}", value(run_id, "payload", p, form=rust_debug_str), j,
                 value(seq, "payload", p + "/sequence"))
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Iterable

__all__ = ["Slot", "Text", "fmt", "value", "ours", "join", "text_of", "slots_of", "rebased", "RELATIVE", "VALUE", "KEY",
           "VARIANT", "POINTER"]

#: What a slot's value is where it was read.
VALUE = "value"      #: a value (string, number, boolean, null) of the file
KEY = "key"          #: an object key of the file
VARIANT = "variant"  #: a string read as an enum variant or tag
POINTER = "pointer"  #: a JSON Pointer into the file (``value`` and ``pointer`` both the pointer)


@dataclass(frozen=True)
class Slot:
    """One value from a file inside a :class:`Text`.

    Attributes:
        start, end: half-open character range of the text that shows the value (its quotes and
            escapes included: the whole printed form, which a redaction marker replaces whole).
        value: the value as read (``str``, ``int``, ``float``, ``bool``, ``None``; ``"map"`` /
            ``"sequence"`` strings never occur: containers are never printed in a message).
        source: ``"payload"`` or ``"descriptor"``, or ``None`` when not known.
        pointer: RFC 6901 JSON Pointer of the value's place in ``source`` (for a key: of the member
            it names), or ``None`` when not known (a serde error reports a line and column only).
        role: :data:`VALUE`, :data:`KEY` or :data:`VARIANT`.
    """

    start: int
    end: int
    value: object
    source: str | None = None
    pointer: str | None = None
    role: str = VALUE

    def shifted(self, by: int) -> "Slot":
        """The same slot ``by`` characters further on."""
        return replace(self, start=self.start + by, end=self.end + by)


class Text(str):
    """A ``str`` with :class:`Slot` records (``slots``, in text order, never overlapping).

    Concatenation with ``+`` keeps the slots; a plain ``str`` on either side is taken as our words
    (use ``+`` only with literals and constants of the engine; build with :func:`fmt` otherwise);
    every other ``str`` operation returns a plain ``str`` without them (which the gate then treats
    as of unknown origin: fail closed). Pickles with its slots (the window's worker processes).
    """

    slots: tuple[Slot, ...]

    def __new__(cls, s: str = "", slots: Iterable[Slot] = ()):
        obj = super().__new__(cls, s)
        obj.slots = tuple(slots)
        return obj

    def __reduce__(self):
        return (Text, (str(self), self.slots))

    def __add__(self, other):
        if not isinstance(other, str):
            return NotImplemented
        return Text(str.__add__(self, other), self.slots + tuple(s.shifted(len(self)) for s in slots_of(other)))

    def __radd__(self, other):
        if not isinstance(other, str):
            return NotImplemented
        n = len(other)
        return Text(str(other) + str(self), slots_of(other) + tuple(s.shifted(n) for s in self.slots))

    def __repr__(self) -> str:
        return f"Text({str.__repr__(self)}, {len(self.slots)} slot{'s' if len(self.slots) != 1 else ''})"

    def pieces(self) -> list[tuple[str, Slot | None]]:
        """The text as ``(piece, slot or None)`` pairs in order: ``None`` pieces are our words."""
        out, pos = [], 0
        for s in self.slots:
            if s.start > pos:
                out.append((str.__getitem__(self, slice(pos, s.start)), None))
            out.append((str.__getitem__(self, slice(s.start, s.end)), s))
            pos = s.end
        if pos < len(self):
            out.append((str.__getitem__(self, slice(pos, None)), None))
        return out


def slots_of(s) -> tuple[Slot, ...]:
    """The slots of ``s`` (none for a plain ``str``)."""
    return s.slots if isinstance(s, Text) else ()


def ours(s: str) -> Text:
    """Declare ``s`` our own words (no value from a file in it)."""
    return s if isinstance(s, Text) else Text(s)


def value(v, source: str | None = None, pointer: str | None = None, *, role: str = VALUE,
          form: Callable[[object], str] | None = None) -> Text:
    """A value from a file as one slot: printed by ``form`` (default ``str``; e.g. Rust's ``{:?}``
    quoting), the slot covering the whole printed form.

    Args:
        v: the value as read (``str``, ``int``, ``float``, ``bool`` or ``None``).
        source, pointer: where it was read (``None`` when not known).
        role: :data:`VALUE`, :data:`KEY` or :data:`VARIANT`.
    """
    printed = (form or str)(v)
    return Text(printed, (Slot(0, len(printed), v, source, pointer, role),))


def fmt(template: str, *args) -> Text:
    """``template`` with each ``{}`` replaced by the next argument (fail closed):

    * a :class:`Text` keeps its slots (our words, values from files as :func:`value` slots);
    * an ``int`` or ``float`` is printed as our words (indices, counts, limits the engine computed;
      a number read from a file is passed as :func:`value`);
    * a plain ``str`` (or anything else) is a value of unknown origin: one slot with no source
      and no pointer, which the gate redacts unless it is a word of the format. Wrap our own
      strings in :func:`ours`.

    Raises:
        ValueError: the count of ``{}`` differs from the count of ``args``.
    """
    parts = template.split("{}")
    if len(parts) != len(args) + 1:
        raise ValueError(f"template has {len(parts) - 1} places for {len(args)} arguments")
    out: list[str] = [parts[0]]
    slots: list[Slot] = []
    pos = len(parts[0])
    for arg, tail in zip(args, parts[1:]):
        if isinstance(arg, Text):
            s = arg
        elif isinstance(arg, (int, float)) and not isinstance(arg, bool):
            s = str(arg)
        else:
            s = value(arg if isinstance(arg, str) else str(arg))
        slots.extend(x.shifted(pos) for x in slots_of(s))
        out.append(str(s))
        out.append(tail)
        pos += len(s) + len(tail)
    return Text("".join(out), slots)


def join(sep: str, items: Iterable[str]) -> Text:
    """``sep.join(items)`` keeping the items' slots (``sep`` is our words)."""
    out: Text = Text("")
    first = True
    for it in items:
        out = out + it if first else out + sep + it
        first = False
    return out


def text_of(v, source: str | None, pointer: str | None) -> Text | None:
    """An expected/actual value for display: a :class:`Text` as it is; anything else as one slot
    from ``source`` at ``pointer`` (fail closed: a value of no stated origin is taken to be from
    the file where the finding points); ``None`` stays ``None``."""
    if v is None or isinstance(v, Text):
        return v
    return value(v, source, pointer)


#: A slot's ``source`` while its ``pointer`` is relative to a value the producer does not know the
#: place of (a binding's validator): the rule that reports it calls :func:`rebased`.
RELATIVE = "."


def rebased(t: str, source: str, prefix: str, *, keep_relative: bool = False) -> str:
    """``t`` with every :data:`RELATIVE` slot placed under ``prefix`` in ``source`` (with
    ``keep_relative``, ``source`` is ignored and the slots stay relative, one level further out)."""
    if not isinstance(t, Text) or not any(s.source == RELATIVE for s in t.slots):
        return t
    return Text(str(t), tuple(replace(s, source=RELATIVE if keep_relative else source, pointer=prefix + (s.pointer or ""))
                              if s.source == RELATIVE else s for s in t.slots))
