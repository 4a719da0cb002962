"""Bundled data installed as ``inspector.resources``: sample checkpoints and icons."""
