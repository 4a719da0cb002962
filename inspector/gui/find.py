"""Find in the trees."""

from __future__ import annotations

from PySide6.QtCore import QModelIndex

from .engine import EDIT_LIMIT

__all__ = ["find_in_tree"]


def find_in_tree(w, text: str, backwards: bool = False) -> bool:
    """Select the next row of the last-used tree of ``w`` whose key or value contains ``text``
    (case-insensitive).

    Fetches rows as it goes for documents up to 16 MiB; larger documents search the rows
    loaded so far. Returns True when found.
    """
    if not text:
        return False
    view = w.selection.last_tree()
    model = view.model()
    needle = text.casefold()
    full = model.document is not None and len(model.document) <= EDIT_LIMIT
    order = []
    stack = [QModelIndex()]
    while stack:
        parent = stack.pop()
        if full and model.canFetchMore(parent):
            while model.canFetchMore(parent):
                model.fetchMore(parent)
        kids = [model.index(r, 0, parent) for r in range(model.rowCount(parent))]
        if parent.isValid():
            order.append(parent)
        stack.extend(reversed(kids))
    if not order:
        return False
    cur = view.currentIndex().siblingAtColumn(0)
    start = next((k for k, i in enumerate(order) if i == cur), -1)
    n = len(order)
    for step in range(1, n + 1):
        k = (start - step) % n if backwards else (start + step) % n
        idx = order[k]
        hay = f"{model.data(idx)}\n{model.data(idx.siblingAtColumn(1))}".casefold()
        if needle in hay:
            view.setCurrentIndex(idx)
            view.scrollTo(idx)
            w.find_bar.status.setText("")
            return True
    w.find_bar.status.setText("not found" + ("" if full else " (in the rows loaded so far)"))
    return False
