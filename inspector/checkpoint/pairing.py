"""Which payload a descriptor belongs to, among many files (a folder's pairing policy).

A descriptor binds its payload by the payload's SHA-256 (``content_digest``, FORMAT.md 2-3.2), so files
pair by digest first; a name stem breaks ties between copies of one payload; a descriptor whose digest
matches nothing (drift, the interesting case) then pairs with the payload of the same name stem
(``x.payload.json`` + ``x.descriptor.json``). The engine's input floor: the folder scan of the window and
the CLI use the same policy.
"""

from __future__ import annotations

import os
from typing import Sequence, TypeVar

__all__ = ["name_stem", "pair_by_digest"]

P = TypeVar("P")
D = TypeVar("D")


def name_stem(path: str) -> str:
    """The file name without its role words and extension: ``run-7.payload.json`` -> ``run-7``
    (lower case; ``payload``/``descriptor`` in any of the usual spellings removed)."""
    name = os.path.basename(path).lower()
    for token in (".json", ".payload", ".descriptor", "-payload", "-descriptor", "_payload", "_descriptor",
                  "payload", "descriptor"):
        name = name.replace(token, "")
    return name.strip(".-_")


def pair_by_digest(payloads: Sequence[tuple[P, str, str | None]],
                   descriptors: Sequence[tuple[D, str, str | None]]) -> list[tuple[P | None, D | None]]:
    """Pair payloads with descriptors.

    Args:
        payloads: ``(item, path, sha256)`` per payload (``sha256``: ``"sha256:<hex>"`` of its bytes, or
            ``None`` when not hashed, e.g. over the 256 MiB ceiling).
        descriptors: ``(item, path, stated)`` per descriptor (``stated``: its ``content_digest``, or ``None``).

    Returns:
        ``[(payload item or None, descriptor item or None)]``: each pair once, then descriptors and payloads
        left alone, all sorted by the path of the pair's payload (else its descriptor). Rounds, in order: same
        digest and same name stem; same digest; same name stem. Within a round, descriptors in the given
        order each take the first free payload that matches.
    """
    pairs: list[tuple] = []
    used: set[int] = set()
    done: set[int] = set()
    path_of: dict[int, str] = {}

    def round_(match) -> None:
        for di, (d, dpath, stated) in enumerate(descriptors):
            if di in done:
                continue
            for pi, (p, ppath, sha) in enumerate(payloads):
                if pi not in used and match(ppath, sha, dpath, stated):
                    used.add(pi)
                    done.add(di)
                    pairs.append((p, d))
                    path_of[id(pairs[-1])] = ppath
                    break

    round_(lambda pp, sha, dp, st: st is not None and sha == st and name_stem(pp) == name_stem(dp))
    round_(lambda pp, sha, dp, st: st is not None and sha == st)
    round_(lambda pp, sha, dp, st: name_stem(pp) == name_stem(dp))
    keyed = [(path_of[id(pair)], pair) for pair in pairs]
    keyed += [(dpath, (None, d)) for di, (d, dpath, _) in enumerate(descriptors) if di not in done]
    keyed += [(ppath, (p, None)) for pi, (p, ppath, _) in enumerate(payloads) if pi not in used]
    keyed.sort(key=lambda kp: kp[0])
    return [pair for _, pair in keyed]
