"""Controllers: the behaviour that acts on the :class:`~inspector.gui.document.Document`.

* :class:`.loading.LoadController`: open files (in the background), cancel, reload, discard edits.
* :class:`.editing.EditController`: sandbox edits (recomputed in the background) and Save As.
* :class:`.folder.FolderController`: scan a folder of checkpoints into the folder table.

None of them builds a widget; dialogs are asked for through callables the window sets.
"""
