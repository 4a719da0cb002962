"""Floor 6 of the engine: the rules as data and their checks (FORMAT.md 5).

``rules.toml`` (ids, order, stage, per-run order, serde detail) and ``plain.toml`` (plain language) are
loaded by ``catalogue``; ``context`` holds the lazily computed facts of one verification; the checks are
registered once per rule in ``checks`` (bytes, structure and evidence stages), ``checks_loop`` (the loop
checkpoint) and ``checks_bindings`` (bindings, with ``bindings``' validators); ``runevents`` orders run
events (FORMAT.md 4.17); ``consequences`` declares which failures follow from others.
"""
