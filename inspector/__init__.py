"""Checkpoint Inspector: verify and explain A3S Code portable session checkpoints.

Importing ``inspector`` stays cheap and Qt-free; the engine lives in
:mod:`inspector.checkpoint`, the front-ends in :mod:`inspector.cli` and :mod:`inspector.gui`.
"""

__version__ = "0.1.0"
