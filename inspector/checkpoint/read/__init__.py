"""Floor 3 of the engine: the one door to a payload (``door``).

``door.read_payload`` reads a payload the way the reference does: a fast read that proves it agrees
with the exact decode (``typedfast``, ``fastpath`` with ``fastcheck``), else ``schema.typed``'s exact
decode. No caller chooses a reader; the fast readers are private to this floor (an import-linter
contract forbids importing them from elsewhere).
"""
