"""Widgets of the desktop inspector; they read models only through :mod:`inspector.gui.roles`."""
