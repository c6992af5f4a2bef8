"""The dashboard's history: every navigate result it ran, one JSON line each, under the cache folder.

Only the dashboard's own server-side calls append here, and a card is only
ever drawn from an entry read back and re-validated against the public
result model (unknown fields refused), so nothing a model writes into a chat
can pose as a result. The envelope (rendered evidence with source bodies) is
not kept: the cards never show it. Nothing here touches a source store.
"""

from __future__ import annotations

import json
import logging
import os
import secrets
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from synapse_server.navigation.surfaces import NavigateResult

log = logging.getLogger(__name__)

HISTORY_FILE = "dashboard/history.jsonl"
Origin = Literal["ask", "chat"]


class Entry(BaseModel):
    """One recorded navigate turn: its id, when, the question, where it was asked and the public result."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    at: str
    question: str
    origin: Origin
    result: NavigateResult


class History:
    """Append-only JSON lines at ``<cache>/dashboard/history.jsonl``; read newest first."""

    def __init__(self, cache_dir: Path) -> None:
        self.path = Path(cache_dir) / HISTORY_FILE
        self._lock = threading.Lock()

    def record(self, question: str, result: NavigateResult, origin: Origin) -> Entry:
        kept = result.model_copy(update={"envelope": ""})
        entry = Entry(
            id=secrets.token_hex(8),
            at=datetime.now(UTC).isoformat(timespec="seconds"),
            question=question,
            origin=origin,
            result=kept,
        )
        line = entry.model_dump_json() + "\n"
        with self._lock:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
            with os.fdopen(fd, "a", encoding="utf-8") as handle:
                handle.write(line)
        return entry

    def entries(self) -> list[Entry]:
        """Every readable entry, newest first; a damaged line is skipped and logged, never shown."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return []
        found: list[Entry] = []
        for number, line in enumerate(text.splitlines(), 1):
            if not line.strip():
                continue
            try:
                found.append(Entry.model_validate(json.loads(line)))
            except (json.JSONDecodeError, ValidationError):
                log.warning("history line %d is not a valid entry; skipped", number)
        return found[::-1]

    def get(self, entry_id: str) -> Entry | None:
        return next((entry for entry in self.entries() if entry.id == entry_id), None)
