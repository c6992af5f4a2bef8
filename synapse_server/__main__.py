"""``python -m synapse_server`` runs the CLI (``serve`` starts the stdio server)."""

from synapse_server.cli.main import main

raise SystemExit(main())
