"""The headless command-line front-end (``checkpoint-inspector verify|describe|canon|rules|explain``)."""

from .main import main

__all__ = ["main"]
