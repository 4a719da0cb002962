"""What a front-end does with files over time, without Qt.

Loading in stages and worker processes (``engine``, ``workers``), file bytes and identity
(``filebytes``), search in the engine's lazy JSON index (``search``), edits in a sandbox
(``edits``), folder scans (``folderscan``), compare loading (``compare_loading``), selection history
(``history``), recent files (``recent``), drops (``drops``), path names (``pathnames``) and tree text
(``annotate``, ``tree_item``, ``visible``). Imports the engine and never PySide6: the window and the
CLI can both use it.
"""
