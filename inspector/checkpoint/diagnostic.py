"""The one base of the errors the inspector reports to a person (as sigstore-python's ``Error`` with its
``diagnostics()``): an unreadable file, files that do not pair, a source that cannot be listed, an output that
cannot be written whole. Every front-end shows :meth:`InspectorError.diagnostics` as it is (the CLI on stderr with
:attr:`InspectorError.exit_status`, the window in its error banner), so no layer re-words another's error.

A verdict is never one of these (a file that is not JSON is a P-PARSE failure in a report), nor is a crash (the
CLI and the window name a crash by its type only: its text may quote the payload). The engine's lowest floor:
imports nothing.
"""

from __future__ import annotations

__all__ = ["InspectorError"]


class InspectorError(Exception):
    """An error for the user: ``args[0]`` is one sentence that names what went wrong and, where a file is meant,
    the file as the user gave it (never payload content).

    Attributes:
        exit_status: the command line's exit code for it: 2 (the input or the arguments cannot be used, nothing
            was verified) unless a subclass says otherwise (an output that cannot be written whole: 3).
    """

    exit_status = 2

    def diagnostics(self) -> str:
        """The sentence shown to the user (``str`` of the error, or its type's name when it has none)."""
        return str(self.args[0]) if self.args and self.args[0] else type(self).__name__
