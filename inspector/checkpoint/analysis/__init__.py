"""Floor 9 of the engine: analyses that explain a verdict and never change it.

``generation`` (which release wrote the artifact), ``lint`` (FORMAT.md 4.17 integrity lint),
``resumability``, ``views`` and ``passes`` (the timeline and transcript data), ``compare`` and
``compare_text`` (two documents side by side), ``canondiff`` (the canonical diff). Each reads the
verification's context and report and fills one field of it.
"""
