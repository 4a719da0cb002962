"""``python -m inspector`` runs the ``checkpoint-inspector`` command."""

from inspector.cli import main

raise SystemExit(main())
