"""The synthesize briefs the matrix cell pages show: written only by a form post, kept until their inputs change.

Writing briefs runs the model once per high-value cell, so a page view (a GET,
which any page on another local port can trigger with an ``<img>``) only reads
what was written. The briefs are kept under a key of everything they depend
on: the store files, config and git HEAD (the load's freshness fingerprint),
the claim overlay file, and the server's model setting; any change makes the
cell pages offer the form again instead of showing briefs of an older state.
"""

from __future__ import annotations

import os
from typing import Any

import anyio

from synapse_server.actions.deps import Deps
from synapse_server.errors import SynapseError
from synapse_server.mcp.dispatch import Dispatcher
from synapse_server.overlay.store import overlay_path

MAX_BRIEFS = 100

Key = tuple[str, tuple[int, int, int] | None, str | None]


class BriefCache:
    """The last synthesize result (errors included) and the key of the state it was written from."""

    def __init__(self, deps: Deps, dispatcher: Dispatcher) -> None:
        self.deps = deps
        self.dispatcher = dispatcher
        self._kept: tuple[Key, dict[str, Any]] | None = None
        self._lock = anyio.Lock()

    async def current(self) -> dict[str, Any] | None:
        """The kept synthesize payload if the stores, overlay and model are still what it was written from."""
        key = await anyio.to_thread.run_sync(self._key)
        return self._kept[1] if key is not None and self._kept is not None and self._kept[0] == key else None

    async def write(self) -> dict[str, Any]:
        """Run synthesize unless the current state's briefs are kept already; posts made together run it once."""
        async with self._lock:
            key = await anyio.to_thread.run_sync(self._key)
            if key is not None and self._kept is not None and self._kept[0] == key:
                return self._kept[1]
            payload = (await self.dispatcher.call({"action": "synthesize", "limit": MAX_BRIEFS})).payload
            if key is not None:
                self._kept = (key, payload)  # the key read before the run: a change during it shows as stale
            return payload

    def _key(self) -> Key | None:
        """None when the workspace cannot be read now (synthesize then reports why, and nothing is kept)."""
        try:
            workspace = self.deps.workspace()
            fingerprint = self.deps.freshness.value
        except SynapseError:
            return None
        try:
            stat = os.stat(overlay_path(workspace, "claim"))
            overlay = (stat.st_ino, stat.st_size, stat.st_mtime_ns)
        except OSError:
            overlay = None
        return (fingerprint, overlay, self.deps.settings.model)
