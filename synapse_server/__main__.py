"""``python -m synapse_server`` runs the CLI (``serve`` starts the stdio server)."""

from synapse_server.cli import main

raise SystemExit(main())
