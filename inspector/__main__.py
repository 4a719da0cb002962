"""``python -m inspector`` runs the ``checkpoint-inspector`` command."""

from inspector.entry import main

raise SystemExit(main())
