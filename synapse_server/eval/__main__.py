"""``python -m synapse_server.eval``: see :mod:`synapse_server.eval.cli`."""

from synapse_server.eval.cli import main

raise SystemExit(main())
