"""The audit's outputs (RESULTS, ``--summary``, ``--summary-html``), all or none, even when the command is killed
while it writes them (Qt-free, Dask-free).

Each output is first written whole into the journal (``RESULTS.partial/out/``; a failure or Ctrl+C there
leaves no output anywhere). Then ``out/COMMIT.json`` names each staged file's final path, with the exit code and
the summary's text, and each file is published under its final name: a hard link (never over an existing name)
and the staged name removed; where the folder cannot hold a link (another filesystem, a share without links) the
file is copied whole (:func:`inspector.session.writing.write_new_file`). RESULTS is published last. A command
killed after COMMIT.json is finished by ``--resume`` (:func:`pending`, :func:`publish`) with the paths it was
given: a final name that is already the staged file (the same inode, or the same bytes) counts as published. A
write that fails (a folder that is not there, a full disk) removes what it published and the staged files:
``--resume`` then writes the outputs again, from the journal, to the paths it is given.
"""

from __future__ import annotations

import errno
import json
import os
import shutil

from inspector.session.writing import write_new_file

__all__ = ["stage_folder", "commit", "pending", "publish", "COMMIT"]

COMMIT = "COMMIT.json"
_NO_LINK = {errno.EXDEV, errno.EPERM, errno.EMLINK, getattr(errno, "ENOTSUP", -1), getattr(errno, "EOPNOTSUPP", -1)}


def stage_folder(journal: str) -> str:
    """A new, empty ``out/`` folder in the journal ``journal`` (a stale one, from a run killed before its
    COMMIT.json, removed first). Raises ``OSError``."""
    folder = os.path.join(journal, "out")
    shutil.rmtree(folder, ignore_errors=True)
    os.mkdir(folder)
    return folder


def commit(journal: str, items: list[tuple[str, str]], code: int, text: str) -> dict:
    """Write ``out/COMMIT.json``: ``items`` (``(staged name in out/, final path)``, in the order they are to be
    published), the exit ``code`` and the summary ``text`` to print. Returns what it wrote. Raises ``OSError``."""
    doc = {"items": [list(x) for x in items], "exit": code, "text": text}
    write_new_file(os.path.join(journal, "out", COMMIT), json.dumps(doc).encode("ascii"))
    return doc


def pending(journal: str) -> dict | None:
    """The COMMIT.json of a run killed while it published its outputs, or ``None``."""
    path = os.path.join(journal, "out", COMMIT)
    if not os.path.isfile(path):
        return None
    try:
        with open(path, "rb") as fh:  # (a file this command wrote in its own journal)
            doc = json.loads(fh.read())
        return doc if isinstance(doc, dict) and isinstance(doc.get("items"), list) else None
    except (OSError, ValueError):
        return None


def _same(a: str, b: str) -> bool:
    try:
        if os.path.samefile(a, b):
            return True
        if os.path.getsize(a) != os.path.getsize(b):
            return False
        with open(a, "rb") as fa, open(b, "rb") as fb:  # (the staged file and the copy this command made)
            while True:
                x, y = fa.read(1 << 20), fb.read(1 << 20)
                if x != y:
                    return False
                if not x:
                    return True
    except OSError:
        return False


def _chunks(path: str):
    with open(path, "rb") as fh:  # (the staged file, in the command's own journal)
        while True:
            b = fh.read(1 << 20)
            if not b:
                return
            yield b


def publish(journal: str, doc: dict) -> None:
    """Publish each staged file of ``doc`` (:func:`commit`) under its final name, in order, then remove
    ``out/``. Every name is linked (or copied) before any staged file is removed; when one fails, the names this
    call made are removed again and ``out/`` with them (the journal's records stay: ``--resume`` writes the
    outputs again, to the paths it is then given).

    Raises:
        FileExistsError: a final name is taken by another file (nothing is overwritten; ``filename`` says which).
        OSError: a file cannot be linked or copied.
    """
    folder = os.path.join(journal, "out")
    made: list[tuple[str, str]] = []
    try:
        for name, final in doc["items"]:
            src = os.path.join(folder, name)
            if not os.path.exists(src):
                continue  # (published, and its staged name removed, before a kill)
            if os.path.lexists(final):
                if _same(src, final):
                    continue  # (published before a kill)
                raise FileExistsError(errno.EEXIST, "exists", final)
            try:
                os.link(src, final)
            except OSError as e:
                if e.errno not in _NO_LINK:
                    raise
                write_new_file(final, _chunks(src))
            made.append((src, final))
    except BaseException:
        for src, final in made:
            if _same(src, final):
                try:
                    os.unlink(final)
                except OSError:
                    pass
        shutil.rmtree(folder, ignore_errors=True)
        raise
    shutil.rmtree(folder, ignore_errors=True)
