"""The rendered envelopes of recent navigate turns, served as ``synapse://turns/<id>/envelope`` while the server runs.

A navigate result's envelope (the evidence the model read) is most of its
size, and for an abstention it is the very text that invites a host model to
answer anyway; so the tool result carries a link to it, not the text. The
shelf keeps the newest :data:`KEPT` envelopes in memory: they are derived,
disposable and already visible to whoever called navigate.
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict

KEPT = 64
URI_TEMPLATE = "synapse://turns/{turn_id}/envelope"


def envelope_uri(turn_id: str) -> str:
    return URI_TEMPLATE.format(turn_id=turn_id)


class EnvelopeShelf:
    """A bounded, thread-safe map of turn id to envelope text, oldest dropped first."""

    def __init__(self, kept: int = KEPT) -> None:
        self._kept = kept
        self._items: OrderedDict[str, str] = OrderedDict()
        self._lock = threading.Lock()

    def put(self, envelope: str, turn_id: str | None = None) -> str:
        """Keep ``envelope`` and return the id it is served under (a fresh one unless ``turn_id`` is given)."""
        key = turn_id or secrets.token_hex(8)
        with self._lock:
            self._items[key] = envelope
            self._items.move_to_end(key)
            while len(self._items) > self._kept:
                self._items.popitem(last=False)
        return key

    def get(self, turn_id: str) -> str | None:
        with self._lock:
            return self._items.get(turn_id)
