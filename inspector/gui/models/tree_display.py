"""What the rows of a JSON tree show: values from the file's bytes, container summaries, tooltips,
the text Copy Value copies, and the marks of failed rules (a mix-in of
:class:`~inspector.gui.models.json_tree.JsonTreeModel`)."""

from __future__ import annotations

from inspector.checkpoint import Location, Verdict

from .. import style
from inspector.checkpoint.jsontext.lazyjson import find_span, load_value, lone_child
from ..roles import ACCESSIBLE as _ACCESSIBLE, DECORATION as _DECORATION, DISPLAY as _DISPLAY, EDIT as _EDIT
from ..roles import FOREGROUND as _FOREGROUND, TOOLTIP as _TOOLTIP
from ..roles import CopyValueRole, KindRole, LocationRole, PointerRole, SpanRole, VerdictRole
from inspector.session.visible import mixed_scripts, visible
from inspector.session.annotate import ToolPairs, is_timestamp_key, preview, summary, timestamp_text
from inspector.session.tree_item import TreeItem, human_size

__all__ = ["TreeDisplay"]

_PREVIEW = 160
#: At most this many bytes of a scalar are read to show it (its cell, its tooltip).
_SHOWN = 65536
_ROLES = frozenset({_DISPLAY, _EDIT, _TOOLTIP, _DECORATION, _FOREGROUND, _ACCESSIBLE, LocationRole, PointerRole,
                    SpanRole, KindRole, CopyValueRole, VerdictRole})

#: Roles answered by :meth:`TreeDisplay._span_data`.
_SPAN_ROLES = frozenset({LocationRole, PointerRole, SpanRole, KindRole})



def _mixed_id(key, value: str) -> list[str]:
    """The scripts an id's value mixes (:func:`.visible.mixed_scripts`) when ``key`` names an id (``id``,
    ``..._id``, ``...Id``), else ``[]``: the window flags such an id."""
    if not isinstance(key, str) or not (key == "id" or key.endswith(("_id", "Id"))):
        return []
    return mixed_scripts(value[:512])

class TreeDisplay:
    """Display helpers of the tree model; expects ``source``, ``_data``, ``_index``, ``_markers``,
    ``_pairs`` and ``_resume_run`` on the model."""

    def _range_data(self, item: TreeItem, col: int, role: int):
        """A range row: ``[1000 … 1999]``, how many children it holds, their bytes."""
        what = "keys" if item.infos.kind == "object" else "items"
        if role == _DISPLAY or role == _ACCESSIBLE:
            return (f"[{item.lo:,} … {item.hi - 1:,}]", f"{item.hi - item.lo:,} {what}",
                    f"{item.start}–{item.end}")[col] if role == _DISPLAY else \
                f"{what} {item.lo} to {item.hi - 1} of {item.pointer or '/'}"
        if role == _TOOLTIP:
            return f"{what} {item.lo:,} to {item.hi - 1:,} of {self.source} {item.pointer or '/'}\nbytes {item.start}–{item.end}"
        if role in _SPAN_ROLES:
            return self._span_data(item, role)
        if role == VerdictRole or (col == 0 and role in (_DECORATION, _FOREGROUND)):
            v = self._marker(item)
            if role == VerdictRole:
                return v
            if v is not None:
                return style.icon(v) if role == _DECORATION else style.colour(v)
        return None

    def _span_data(self, item: TreeItem, role: int):
        """Where a row is: its :class:`Location`, JSON Pointer, byte span or kind (``range`` for range rows)."""
        if role == LocationRole:
            return Location(self.source, item.pointer, (item.start, item.end))
        if role == PointerRole:
            return item.pointer
        if role == SpanRole:
            return (item.start, item.end)
        return item.kind

    # -- display helpers ------------------------------------------------------------------------
    def _marker(self, item: TreeItem) -> Verdict | None:
        if not self._markers:
            return None
        p = item.pointer
        if p in self._markers:
            return self._markers[p]
        prefix = p + "/"
        for q, v in self._markers.items():
            if q.startswith(prefix):
                return v
        return None

    def _scalar(self, item: TreeItem):
        """``("s", text)`` of a string (decoded; one over 4 MiB: its first 64 KiB as they are, and "…") or
        ``("r", raw text)`` of another scalar (one over 64 KiB, a huge number: its first 64 KiB and "…"). Only
        what is shown is read: a 50 MB base64 value was copied whole to show its first characters."""
        if item._cache is None:
            size = item.end - item.start
            if item.kind == "string":
                v = load_value(self._data, item.start, item.end, limit=4 << 20)
                if v is None:
                    v = bytes(self._data[item.start + 1:min(item.end, item.start + _SHOWN)]).decode("utf-8", "replace") \
                        + "…"
                item._cache = ("s", v)
            elif size > _SHOWN:
                item._cache = ("r", bytes(self._data[item.start:item.start + _SHOWN]).decode("utf-8", "replace") + "…")
            else:
                item._cache = ("r", self._data[item.start:item.end].decode("utf-8", "replace"))
        return item._cache

    def _display_value(self, item: TreeItem) -> str:
        if item.is_container:
            return self._container_summary(item)
        tag, v = self._scalar(item)
        if tag == "s":
            mixed = _mixed_id(item.key, v)
            return "“" + preview(v, _PREVIEW) + "”" + (f"  ⚠ mixes {' and '.join(mixed)}" if mixed else "")
        unit = is_timestamp_key(item.key)
        if unit and item.kind == "number" and v.isdigit():
            ts = timestamp_text(int(v), unit)
            if ts:
                return f"{ts}  ({v})"
        return v

    def _container_summary(self, item: TreeItem) -> str:
        if item._cache is None:
            value = load_value(self._data, item.start, item.end, limit=256 * 1024)
            pairs = None
            ptr = item.pointer
            if "/messages" in ptr:
                base = ptr[: ptr.index("/messages") + len("/messages")]
                pairs = self._pairs.setdefault(base, ToolPairs())
                if ptr != base and base not in self._pairs_filled:
                    self._fill_pairs(base, pairs)
            text = summary(self.source, ptr, item.key, value, pairs=pairs, resume_run_id=self._resume_run)
            if text is None:
                known = item.infos
                if known is None and self._index is not None:
                    known = self._index.get(item.start)
                    floor = self._index.big  # large containers of two children or more are recorded
                    if known is None and floor is not None and item.end - item.start >= floor:  # one child or none
                        known = lone_child(self._data, item.start, item.end)
                n = len(value) if value is not None else (len(known) if known is not None else None)
                size = item.end - item.start
                big = f" · {human_size(size)}" if size >= 1 << 20 else ""
                count = "?" if n is None else str(n)
                if item.kind == "object":
                    text = f"{{{count} keys{big}}}"
                else:
                    text = f"[{count} items{big}]"
            if "/content/" in ptr:
                return text  # pairing may improve as more messages load: not cached
            item._cache = ("c", text)
        return item._cache[1]

    @property
    def _pairs_filled(self) -> set:
        return self.__dict__.setdefault("_filled", set())

    def _fill_pairs(self, base: str, pairs: ToolPairs) -> None:
        """Pair tool calls over the whole messages array when it is small enough to decode."""
        self._pairs_filled.add(base)
        span = find_span(self._data, self._index, base)
        if span is None:
            return
        # Decoded on the GUI thread, so only while small (512 KiB: a few ms); a longer
        # conversation pairs its tool calls as its rows are read.
        value = load_value(self._data, *span, limit=512 << 10)
        if isinstance(value, list):
            for i, msg in enumerate(value):
                pairs.add(i, msg)

    def _edit_text(self, item: TreeItem) -> str:
        """The whole value to edit (the cell shows at most 64 KiB of it: an edit must start from all of it)."""
        if item.end - item.start > _SHOWN or (item.kind == "string" and item.end - item.start > (4 << 20)):
            if item.kind == "string":
                v = load_value(self._data, item.start, item.end, limit=1 << 62)
                if isinstance(v, str):
                    return v
            return bytes(self._data[item.start:item.end]).decode("utf-8", "replace")
        return self._scalar(item)[1]

    def _copy_text(self, item: TreeItem) -> str:
        if item.kind == "string":
            v = load_value(self._data, item.start, item.end, limit=1 << 62)
            if isinstance(v, str):
                return v
        return self._data[item.start:item.end].decode("utf-8", "replace")

    def _tooltip(self, item: TreeItem) -> str:
        lines = [f"{self.source} {item.pointer or '/'}", f"bytes {item.start}–{item.end} ({item.end - item.start} bytes)"]
        if not item.is_container:
            tag, v = self._scalar(item)
            text = visible(v if len(v) <= 600 else v[:600] + "…")
            lines.append(("“" + text + "”") if tag == "s" else text)
            mixed = _mixed_id(item.key, v) if tag == "s" else []
            if mixed:
                lines.append(f"⚠ this id mixes {' and '.join(mixed)} letters: it can look like another id")
            unit = is_timestamp_key(item.key)
            if unit and tag == "r" and v.isdigit():
                ts = timestamp_text(int(v), unit)
                if ts:
                    lines.append(f"raw value {v} = {ts} (Unix {'milliseconds' if unit == 'ms' else 'seconds'})")
        m = self._marker(item)
        if m is not None:
            lines.append(f"{style.label(m)}: a rule failed at this field" + ("" if item.pointer in self._markers
                                                                              else " or below it"))
        return "\n".join(lines)
