"""RESULTS written whole or not at all: JSON Lines (always available) or Parquet (pyarrow, the ``audit`` extra),
each a new file (:func:`inspector.session.writing.write_new_file`: never over an existing name; removed when a
step fails)."""

from __future__ import annotations

import json

from inspector.formats import names
from inspector.session.writing import write_new_file

__all__ = ["FORMATS", "write_results", "parquet_schema", "need_pyarrow"]

#: The formats of RESULTS: the ``audit --format`` values, from the one registry (:mod:`inspector.formats`).
FORMATS = names("audit")
_ROWS = 16384  # (rows per row group: the rows of one group are held as dicts, about 25 MiB)


def need_pyarrow():
    """The ``pyarrow`` module. Raises ``ImportError`` when it is not installed (the ``audit`` extra)."""
    import pyarrow  # noqa: F401
    import pyarrow.parquet  # noqa: F401

    return pyarrow


def parquet_schema():
    """The Arrow schema of a record (:data:`.core.RECORD_SCHEMA`): one column per member; ``root_cause`` a
    struct ``{rule, code, message}``, ``lint`` a list of strings."""
    pa = need_pyarrow()
    s, i, b = pa.string(), pa.int64(), pa.bool_()
    return pa.schema([
        ("schema", s), ("checkpoint", b), ("payload", s), ("descriptor", s), ("other", s),
        ("payload_bytes", i), ("descriptor_bytes", i), ("other_bytes", i),
        ("payload_sha256", s), ("descriptor_sha256", s), ("other_sha256", s), ("sha256", s),
        ("session_id", s), ("run_id", s), ("pass", i), ("verified", b), ("ok", b),
        ("root_cause", pa.struct([("rule", s), ("code", s), ("message", s)])),
        ("generation", s), ("resumability", s), ("lint", pa.list_(s)), ("error", s)])


def _line(rec: dict) -> bytes:
    """One record as a line of UTF-8 JSON; a string that is no Unicode text (a lone surrogate from a JSON
    ``\\udc80`` escape in an id) is written as that escape, never as bytes that are not UTF-8."""
    try:
        return (json.dumps(rec, ensure_ascii=False, sort_keys=True) + "\n").encode("utf-8")
    except UnicodeEncodeError:
        return (json.dumps(rec, sort_keys=True) + "\n").encode("ascii")


def _jsonl(records):
    for rec in records:
        yield _line(rec)


class _Chunks:
    """A write-only file object for pyarrow whose written bytes are taken out by :meth:`take`."""

    def __init__(self):
        self.parts: list[bytes] = []
        self.closed = False
        self.pos = 0

    def write(self, data) -> int:
        b = bytes(data)
        self.parts.append(b)
        self.pos += len(b)
        return len(b)

    def tell(self) -> int:
        return self.pos

    def flush(self) -> None:
        pass

    def close(self) -> None:
        self.closed = True

    def writable(self) -> bool:
        return True

    def take(self) -> bytes:
        out, self.parts = b"".join(self.parts), []
        return out


def _parquet(records):
    pa = need_pyarrow()
    import pyarrow.parquet as pq

    schema = parquet_schema()
    sink = _Chunks()
    writer = pq.ParquetWriter(pa.PythonFile(sink, mode="w"), schema)
    try:
        rows: list = []
        for rec in records:
            rows.append(rec)
            if len(rows) >= _ROWS:
                writer.write_table(pa.Table.from_pylist(rows, schema=schema))
                rows = []
                yield sink.take()
        if rows:
            writer.write_table(pa.Table.from_pylist(rows, schema=schema))
    finally:
        writer.close()
    yield sink.take()


def write_results(path: str, fmt: str, records) -> None:
    """Write ``records`` (an iterable of record dicts) to the new file ``path`` as ``fmt`` (:data:`FORMATS`),
    whole or not at all.

    Raises:
        FileExistsError: ``path`` exists. OSError: it cannot be written (nothing is left). ImportError:
        ``parquet`` without pyarrow. ValueError: an unknown ``fmt``.
    """
    if fmt == "jsonl":
        write_new_file(path, _jsonl(records))
    elif fmt == "parquet":
        need_pyarrow()
        write_new_file(path, _parquet(records))
    else:
        raise ValueError(f"unknown format {fmt!r}")
