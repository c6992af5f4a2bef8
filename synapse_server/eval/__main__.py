"""``python -m synapse_server.eval``: the ``synapse eval`` command (:mod:`synapse_server.cli.commands.eval`)."""

from synapse_server.cli.commands.eval import main

raise SystemExit(main())
