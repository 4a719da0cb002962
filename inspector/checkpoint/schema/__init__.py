"""Floor 2 of the engine: the types as data and the exact typed decode (FORMAT.md 4).

``model`` holds the payload and descriptor types in declaration order (``kinds`` the type kinds,
``pins`` the upstream pins); ``typed`` and ``typed_content`` are ``serde_json::from_slice::<T>`` with
serde derive's behaviour; ``serde_errors`` is serde's wording for typed values; ``timestamp`` is
chrono's RFC 3339. Imports only the floors below (``jsontext``, ``slotted``).
"""
