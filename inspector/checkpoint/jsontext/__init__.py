"""Floor 1 of the engine: the exact serde_json text layer (FORMAT.md 3.1).

``reader`` reads JSON text byte for byte as serde_json does (its errors with serde's wording, line and
column, and the byte-span tree); ``number`` spells numbers as serde_json and Rust do; ``canonical`` is the
canonical encoder (FORMAT.md 3.1); ``rust_debug`` prints values as Rust's ``{:?}``. Imports only
:mod:`inspector.checkpoint.slotted` below it.
"""
