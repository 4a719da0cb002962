"""The span index of a JSON document's large containers and the child boundaries it hands out (FORMAT.md 3.1:
byte offsets into the file as read; no Qt; importable in a child process, sent back from one by pickling).

:class:`Children` is what the trees read for one container; :class:`SpanIndex` keeps the children of many, flat.
It lives in the engine's text floor because the reader that proves a payload fills it: the fast paths record
the children of large containers while they compare the file with its printing (``read.fastpath``,
``read.typedfast``) and :meth:`SpanIndex.from_records` makes the index of those records
(:func:`inspector.checkpoint.verify.verify_indexed`). The window's tokenizer
(``lazyjson.build_index``, ``fastindex.fast_index``) fills the same index for a file no fast
reader proved, and reads a lone child from the bytes (``lone_child``) where this index, by its ``big``
promise, holds nothing.
"""

from __future__ import annotations

import operator
from array import array
from bisect import bisect_left
from dataclasses import dataclass
from itertools import islice

__all__ = ["INDEX_BIG", "Children", "SpanIndex"]

#: Containers of at least this many bytes (64 KiB) get their children's spans recorded: by the fast readers when
#: an index is wanted (``read.door``) and by the tokenizer's index (``lazyjson.build_index``).
INDEX_BIG = 1 << 16


@dataclass
class Children:
    """Child boundaries of one container.

    Attributes:
        kind: ``object`` or ``array``.
        starts, ends: half-open byte spans of the child values (``array('q')``).
        key_starts: for objects, the byte offset of each key's opening quote; ``None`` for arrays.
        keys: for objects, the decoded keys in file order (duplicates kept); ``None`` for arrays.
    """

    kind: str
    starts: array
    ends: array
    key_starts: array | None = None
    keys: list | None = None

    def __len__(self) -> int:
        return len(self.starts)


class SpanIndex:
    """The children of every large container of one document, kept flat: a few arrays, not an object per
    container.

    Why flat: a document nested a million levels deep has a million large containers (each encloses the
    rest). As a ``{start: Children}`` dict that was three million objects the cyclic garbage collector
    tracks; its first pass after the indexing job held the interpreter lock for 0.5 s, a stall of the
    window (``benchmarks/README.md``). Here the children's spans of all containers share
    two ``array('q')`` pools, keys share one list of ``str`` (which the collector does not track), and a
    container's :class:`Children` is cut from the pools when asked for.

    Read-only mapping interface over container start offsets (bytes): ``get``, ``[]``, ``in``, ``len``,
    iteration (ascending starts), ``items()``; equality compares ``big`` and the contents. Built by :meth:`add`
    (any order of containers; a start added twice keeps the last).

    ``big`` (bytes, or ``None``) is the builders' promise (:func:`build_index`, :func:`fast_index`): every
    container of at least ``big`` bytes *with two children or more* is recorded. One with a single child (or
    none) is not: its child is where the container's own span says (:func:`children_of` reads it from the
    bytes, :func:`lone_child`), so a chain nested a million deep, where each container encloses the rest,
    costs the index nothing instead of 55 MiB. ``None`` (an index built by hand) promises nothing.
    """

    _CACHED = 8

    def __init__(self, big: int | None = None) -> None:
        self.big = big
        # container number -> its start; the lookup from a start is a sorted copy of them (:meth:`freeze`): a
        # ``{start: number}`` dict of a million containers held about 100 MB of int objects
        self._start_of = array("q")
        self._sorted: tuple[array, array] | None = None  # (starts ascending, their numbers), or None while stale
        self._kind = bytearray()  # b"o" object / b"a" array, per number
        self._lo = array("q", [0])  # its children are pool entries lo[i] .. lo[i + 1]
        self._klo = array("q", [0])  # its keys are key pool entries klo[i] .. klo[i + 1]
        self._starts, self._ends = array("q"), array("q")
        self._key_starts = array("q")
        self._keys: list = []
        self._cache: dict[int, Children] = {}

    @classmethod
    def from_records(cls, records: dict, big: int | None) -> "SpanIndex":
        """The index of a fast reader's span records (``{start: (kind, end, starts, ends, key_starts, keys)}``,
        byte offsets, as ``read.fastpath.decode_fast(spans=)`` and ``read.typedfast.decode_typed(spans=)`` fill
        them), frozen. With ``big`` (bytes): every recorded container of at least ``big`` bytes with two children
        or more (the ``big`` promise; a lone child is read from the bytes), records of smaller containers (which
        the lint's locations asked for) left out. With ``None``: every record, and no promise."""
        index = cls(big=big)
        for s, (kind, e, starts, ends, key_starts, keys) in records.items():
            if big is None or e - s >= big and len(starts) >= 2:
                index.add(s, kind, starts, ends, key_starts, keys)
        return index.freeze()

    def add(self, start: int, kind: str, starts: array, ends: array, key_starts: array | None = None,
            keys: list | None = None) -> None:
        """Record the children of the container at byte ``start`` (``kind`` ``object`` or ``array``;
        spans as in :class:`Children`)."""
        self._start_of.append(start)
        self._sorted = None
        self._kind.append(0x6F if kind == "object" else 0x61)
        self._starts.extend(starts)
        self._ends.extend(ends)
        self._lo.append(len(self._starts))
        if kind == "object":
            self._key_starts.extend(key_starts)
            self._keys.extend(keys)
        self._klo.append(len(self._keys))
        self._cache.clear()

    def get(self, start: int, default=None) -> Children | None:
        """The :class:`Children` of the container at byte ``start``, or ``default`` when not recorded."""
        ch = self._cache.get(start)
        if ch is not None:
            return ch
        i = self._number(start)
        if i is None:
            return default
        a, b = self._lo[i], self._lo[i + 1]
        if self._kind[i] == 0x6F:
            ka, kb = self._klo[i], self._klo[i + 1]
            ch = Children("object", self._starts[a:b], self._ends[a:b], self._key_starts[ka:kb], self._keys[ka:kb])
        else:
            ch = Children("array", self._starts[a:b], self._ends[a:b])
        if len(self._cache) >= self._CACHED:
            self._cache.clear()
        self._cache[start] = ch
        return ch

    def __getitem__(self, start: int) -> Children:
        ch = self.get(start)
        if ch is None:
            raise KeyError(start)
        return ch

    def freeze(self) -> "SpanIndex":
        """Sort the lookup now (the builder calls it, off the GUI thread: the first lookup would otherwise sort
        a million containers in the window's turn); returns the index. A later :meth:`add` is still allowed."""
        if self._sorted is None:
            first = self._start_of
            if all(map(operator.lt, first, islice(first, 1, None))):  # added in ascending order: numbered so
                self._sorted = (first, None)
                return self
            # one key per container: its start above its number, so duplicates sort by when they were added and
            # the last one added wins (``add``'s contract); a start < 2**35, a number < 2**28
            keys = sorted((s << 28) | n for n, s in enumerate(self._start_of))
            starts, numbers = array("q"), array("q")
            mask = (1 << 28) - 1
            for k in keys:
                s = k >> 28
                if starts and starts[-1] == s:
                    numbers[-1] = k & mask
                else:
                    starts.append(s)
                    numbers.append(k & mask)
            self._sorted = (starts, numbers)
        return self

    def _number(self, start) -> int | None:
        if not isinstance(start, int):
            return None
        starts, numbers = self.freeze()._sorted
        i = bisect_left(starts, start)
        if i < len(starts) and starts[i] == start:
            return i if numbers is None else numbers[i]
        return None

    def __contains__(self, start: object) -> bool:
        return self._number(start) is not None

    def __len__(self) -> int:
        return len(self.freeze()._sorted[0])

    def __iter__(self):
        return iter(self.freeze()._sorted[0])

    def items(self):
        """``(start, Children)`` pairs in ascending start order (each cut from the pools)."""
        return ((s, self[s]) for s in self)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SpanIndex):
            return NotImplemented
        return self.big == other.big and len(self) == len(other) and all(
            other.get(s) == ch for s, ch in self.items())

    __hash__ = None  # mutable while built

    def __getstate__(self) -> dict:  # sent from a child process: the pools, not the cache
        state = dict(self.__dict__)
        state["_cache"] = {}
        return state
