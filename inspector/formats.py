"""The output formats, one registry per family: each format's name (what ``--format`` takes), label (what a dialog
lists), file suffix and writer. The CLI's ``--format`` choices and the window's Export dialog are built from here, and
a family's writer is looked up here, so a format is added in one place.

Nothing is imported at load time but ``importlib`` (the CLI's parser reads this before any command runs,
:mod:`inspector.cli.parser`; a ``dataclass`` would import ``inspect``, 9 ms of ``--help``): a writer is named
``"module:function"`` and imported when first used (:meth:`OutputFormat.writer`).
"""

from __future__ import annotations

from importlib import import_module

__all__ = ["OutputFormat", "FAMILIES", "family", "names", "find"]


class OutputFormat:
    """One output format of a family.

    Attributes:
        name: the ``--format`` value (``"sarif"``).
        label: what a dialog lists (``"SARIF 2.1.0"``).
        suffix: the file suffix a saved output gets, with its dot (``".sarif"``).
        write: the writer as ``"module:function"`` (its arguments are the family's), or ``None`` when the command
            writes the format itself (a streamed output: the scan's JSON lines, the audit's files).
    """

    __slots__ = ("name", "label", "suffix", "write")

    def __init__(self, name: str, label: str, suffix: str, write: str | None = None) -> None:
        self.name, self.label, self.suffix, self.write = name, label, suffix, write

    def __repr__(self) -> str:
        return f"OutputFormat({self.name!r}, {self.label!r}, {self.suffix!r}, {self.write!r})"

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, OutputFormat):
            return NotImplemented
        return (self.name, self.label, self.suffix, self.write) == (other.name, other.label, other.suffix, other.write)

    def __hash__(self) -> int:
        return hash((self.name, self.label, self.suffix, self.write))

    def writer(self):
        """The writer function (imported now). Raises ``LookupError`` for a format whose command writes it."""
        if self.write is None:
            raise LookupError(f"{self.name}: written by its command, not by one function")
        module, _, function = self.write.partition(":")
        return getattr(import_module(module), function)


_TICKET = "inspector.ticket.render:"
_VERIFY = "inspector.cli.render:"

#: Each family's formats, the default first. ``report``: the support ticket (its writers take the ticket dict);
#: ``verify``: a verdict (its writers take the report and the two files).
FAMILIES: dict[str, tuple[OutputFormat, ...]] = {
    "report": (
        OutputFormat("text", "Text", ".txt", _TICKET + "to_text"),
        OutputFormat("markdown", "Markdown", ".md", _TICKET + "to_markdown"),
        OutputFormat("html", "HTML, self-contained", ".html", _TICKET + "to_html"),
        OutputFormat("json", "JSON", ".json", _TICKET + "to_json"),
        OutputFormat("sarif", "SARIF 2.1.0", ".sarif", _TICKET + "to_sarif"),
    ),
    "verify": (
        OutputFormat("text", "Text", ".txt", _VERIFY + "to_text"),
        OutputFormat("json", "JSON", ".json", _VERIFY + "to_json"),
        OutputFormat("sarif", "SARIF 2.1.0", ".sarif", _VERIFY + "to_sarif"),
    ),
    "rules": (OutputFormat("text", "Text", ".txt"), OutputFormat("json", "JSON", ".json"),
              OutputFormat("markdown", "Markdown", ".md")),
    "diff": (OutputFormat("text", "Text", ".txt"), OutputFormat("json", "JSON", ".json"),
             OutputFormat("patch", "JSON Patch (RFC 6902)", ".json")),
    "timeline": (OutputFormat("text", "Text", ".txt"), OutputFormat("json", "JSON", ".json")),
    "scan": (OutputFormat("text", "Text", ".txt"), OutputFormat("json", "JSON", ".json"),
             OutputFormat("jsonl", "JSON Lines", ".jsonl")),
    "audit": (OutputFormat("jsonl", "JSON Lines", ".jsonl"), OutputFormat("parquet", "Apache Parquet", ".parquet")),
}


def family(name: str) -> tuple[OutputFormat, ...]:
    """The formats of family ``name`` (a key of :data:`FAMILIES`), the default first. Raises ``KeyError``."""
    return FAMILIES[name]


def names(name: str) -> tuple[str, ...]:
    """The ``--format`` values of family ``name``, the default first (the CLI's choices)."""
    return tuple(f.name for f in FAMILIES[name])


def find(name: str, fmt: str) -> OutputFormat:
    """Format ``fmt`` of family ``name``. Raises ``KeyError`` when the family has no such format."""
    for f in FAMILIES[name]:
        if f.name == fmt:
            return f
    raise KeyError(f"{name}: no format {fmt!r}")
