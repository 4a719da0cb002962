"""What lets the audit's client hold a store of millions in bounded memory (Qt-free, Dask-free).

:class:`Spill` partitions JSON values by a key into files on the disk, so that work that must see every value of
one key at once (pairing by digest and by name stem, grouping a session's exports, FORMAT.md 4.18) is done one
partition at a time: every value of a key lands in the same partition, so the partition's answer is the whole
source's answer for that key. :class:`KeySet` remembers which records were written (``--resume``: "a record is
written once") in 16 bytes a record, not the record.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Iterator

__all__ = ["Spill", "KeySet", "PARTITIONS", "MAX_PARTITIONS", "partitions_for"]

#: How many partitions a :class:`Spill` has at least (:func:`partitions_for`).
PARTITIONS = 64
#: How many it has at most: each is an open file while values are added (with a 16 KiB buffer).
MAX_PARTITIONS = 512
#: About how many values a partition should hold (a few MiB while it is worked on).
PARTITION_VALUES = 10_000
_BUFFER = 1 << 14


def partitions_for(values: int) -> int:
    """How many partitions to cut ``values`` values into: one per :data:`PARTITION_VALUES`, at least
    :data:`PARTITIONS` and at most :data:`MAX_PARTITIONS` (10 million pairs, 20 million files: 512 partitions
    of about 40,000 files each; 10 million records of sessions: 512 of about 20,000)."""
    return min(MAX_PARTITIONS, max(PARTITIONS, values // PARTITION_VALUES))


def _bucket(key: str, n: int) -> int:
    return int.from_bytes(hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=8).digest(), "big") % n


class Spill:
    """JSON values partitioned by a string key into ``partitions`` files under the new folder ``folder``.

    :meth:`add` appends a value to its key's partition (buffered); :meth:`partitions` then gives each partition's
    values as a list, in the order they were added, and removes its file; :meth:`remove` removes what is left.
    A value must be what :func:`json.dumps` writes (lists, not tuples, come back).

    Raises:
        FileExistsError: ``folder`` exists. OSError: the disk is full or the folder cannot be written.
    """

    def __init__(self, folder: str, partitions: int = PARTITIONS):
        os.mkdir(folder)
        self.folder = folder
        self.n = max(1, int(partitions))
        self._files: dict[int, object] = {}
        self.count = 0

    def _path(self, i: int) -> str:
        return os.path.join(self.folder, f"spill-{i:05d}.jsonl")

    def add(self, key: str, value) -> None:
        """Append ``value`` to the partition of ``key``."""
        i = _bucket(key, self.n)
        fh = self._files.get(i)
        if fh is None:
            fh = self._files[i] = open(self._path(i), "ab", buffering=_BUFFER)  # noqa: SIM115 - kept open
        # (ASCII with escapes: a file name's undecodable byte, a surrogate, comes back as it went)
        fh.write(json.dumps(value, separators=(",", ":")).encode("ascii") + b"\n")
        self.count += 1

    def _lines(self) -> Iterator[Iterator]:
        """Each partition's values as an iterator over its file's lines (the writers closed first); the file is
        removed once its iterator is done."""
        for fh in self._files.values():
            fh.close()
        used, self._files = sorted(self._files), {}
        for i in used:
            path = self._path(i)
            with open(path, "rb") as fh:
                yield (json.loads(line) for line in fh)
            os.unlink(path)

    def partitions(self) -> Iterator[list]:
        """Each partition's values (a list, in the order added), one partition at a time; a partition's file is
        removed once it is read."""
        for values in self._lines():
            yield list(values)

    def stream(self) -> Iterator:
        """Every value, one at a time (partition by partition, each in the order added), read line by line; a
        partition's file is removed once it is read."""
        for values in self._lines():
            yield from values

    def remove(self) -> None:
        """Close and remove every file and the folder (nothing is left)."""
        for fh in self._files.values():
            try:
                fh.close()
            except OSError:
                pass
        self._files = {}
        shutil.rmtree(self.folder, ignore_errors=True)


class KeySet:
    """A set of record keys (:func:`.core.record_key` tuples), each kept as the 16-byte BLAKE2b digest of its JSON
    form: about 80 bytes a key in memory, whatever its locations' length (10 million keys: about 0.8 GiB). Two keys
    share a digest with a chance of about 10^-25 at 10 million: never, in practice."""

    def __init__(self):
        self._digests: set[bytes] = set()

    @staticmethod
    def digest(key: tuple) -> str:
        """The 16-byte BLAKE2b digest of ``key``'s JSON form, as 32 hex digits (what the journal keeps)."""
        return hashlib.blake2b(json.dumps(key, ensure_ascii=False).encode("utf-8", "surrogatepass"),
                               digest_size=16).hexdigest()

    def add_digest(self, digest: str) -> bool:
        """Add a key by its :meth:`digest`; True when it was not in the set."""
        d = bytes.fromhex(digest)
        if d in self._digests:
            return False
        self._digests.add(d)
        return True

    def add(self, key: tuple) -> bool:
        """Add ``key``; True when it was not in the set."""
        return self.add_digest(self.digest(key))

    def __contains__(self, key: tuple) -> bool:
        return bytes.fromhex(self.digest(key)) in self._digests

    def __len__(self) -> int:
        return len(self._digests)
