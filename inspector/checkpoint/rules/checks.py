"""One small check function per rule id of FORMAT.md section 6, registered with ``@check``.

A check takes the :class:`~.context.Context` and returns an iterable of :class:`Violation`
(empty: the rule passes), or raises :class:`~.context.NotApplicable`. Messages are the
reference's verbatim texts with its interpolations (Rust ``{:?}`` via ``rust_debug_str``).
Checks evaluate independently of one another: the reference stops at its first error, we show
every failure and let :mod:`inspector.checkpoint.verify` pick the root cause by evaluation order.

Rules live one module per stage, registered in :mod:`.registry` (below them all): descriptor
(:mod:`.checks_descriptor`), payload bytes, parse, canonical form and rebuilt descriptor
(:mod:`.checks_payload`), snapshot (:mod:`.checks_snapshot`), bindings (:mod:`.checks_bindings`) and the
loop checkpoint (:mod:`.checks_loop`). Importing this module imports every stage, so :data:`CHECKS` is
complete (a test checks it against the catalogue both ways).
"""

from __future__ import annotations

from inspector.checkpoint.rules import (  # noqa: F401 (each registers its rules)
    checks_bindings,
    checks_descriptor,
    checks_loop,
    checks_payload,
    checks_snapshot,
)
from inspector.checkpoint.rules.registry import CHECKS, Violation, check

__all__ = ["Violation", "CHECKS", "check"]
