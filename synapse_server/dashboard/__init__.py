"""``synapse dashboard``: a local web app over the same write-free dispatcher the MCP tool uses.

Server-rendered HTML from one Starlette app, no script at all: progress is a
page that refreshes itself, "Show reasoning" and matrix cells are links and
``<details>`` elements. Cards render only from navigate results this server
ran and recorded in its history log; text a model wrote is always plain text.
"""

from synapse_server.dashboard.app import DashboardConfig, build_app

__all__ = ["DashboardConfig", "build_app"]
