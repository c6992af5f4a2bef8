"""The dashboard's history: every navigate result it ran, one JSON line each, under the cache folder.

Only the dashboard's own server-side calls append here, and a card is only
ever drawn from an entry read back and re-validated against the public
result model (unknown fields refused), so nothing a model writes into a chat
can pose as a result. The envelope (rendered evidence with source bodies) is
not kept: the cards never show it. Nothing here touches a source store.

The file is opened through :mod:`adapters.cache_files`: a repository that
ships ``<cache>/dashboard/history.jsonl`` (or the folder) as a symlink gets a
refusal, never a line appended to the file the link names. It stays bounded:
past ``max_file_bytes`` it is renamed to ``history.jsonl.1`` (replacing the
older one) and a fresh file starts, so at most two files' worth is ever kept
and read, and the history page shows one page of it at a time.
"""

from __future__ import annotations

import fcntl
import itertools
import json
import logging
import os
import secrets
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from adapters.cache_files import CacheLinkRefused, cache_folder, open_file, replace
from synapse_server.navigation.surfaces import NavigateResult

log = logging.getLogger(__name__)

HISTORY_DIR = "dashboard"
HISTORY_NAME = "history.jsonl"
HISTORY_FILE = f"{HISTORY_DIR}/{HISTORY_NAME}"
ROTATED_NAME = f"{HISTORY_NAME}.1"
MAX_FILE_BYTES = 1024 * 1024
"""Past this size the file is rotated to ``history.jsonl.1``: at most about twice this is kept."""
PAGE_SIZE = 50
Origin = Literal["ask", "chat"]


class Entry(BaseModel):
    """One recorded navigate turn: its id, when, the question, where it was asked and the public result."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    at: str
    question: str
    origin: Origin
    result: NavigateResult


@dataclass(frozen=True)
class HistoryPage:
    """One page of entries, newest first; ``number`` counts from 1."""

    entries: list[Entry]
    number: int
    has_next: bool


class History:
    """Append-only JSON lines at ``<cache>/dashboard/history.jsonl`` (and its ``.1``); read newest first."""

    def __init__(self, cache_dir: Path, *, max_file_bytes: int = MAX_FILE_BYTES) -> None:
        self.cache_dir = Path(cache_dir)
        self.path = self.cache_dir / HISTORY_FILE
        self.max_file_bytes = max_file_bytes
        self._lock = threading.Lock()
        self._within = f"{self.cache_dir.name}/{HISTORY_DIR}"

    def record(self, question: str, result: NavigateResult, origin: Origin) -> Entry:
        """Append one entry; a symlink anywhere under the cache raises ``CacheLinkRefused`` before any write."""
        kept = result.model_copy(update={"envelope": ""})
        entry = Entry(
            id=secrets.token_hex(8),
            at=datetime.now(UTC).isoformat(timespec="seconds"),
            question=question,
            origin=origin,
            result=kept,
        )
        data = (entry.model_dump_json() + "\n").encode("utf-8")
        with self._lock, cache_folder(self.cache_dir, HISTORY_DIR) as folder:
            fcntl.flock(folder, fcntl.LOCK_EX)  # two dashboards on one cache rotate one at a time
            fd = self._open_for_append(folder)
            try:
                if os.fstat(fd).st_size and os.fstat(fd).st_size + len(data) > self.max_file_bytes:
                    os.close(fd)
                    fd = -1
                    replace(folder, HISTORY_NAME, ROTATED_NAME)  # a rename never follows a link at either name
                    fd = self._open_for_append(folder)
                view = memoryview(data)
                while view:
                    view = view[os.write(fd, view) :]
            finally:
                if fd >= 0:
                    os.close(fd)
        return entry

    def entries(self) -> list[Entry]:
        """Every readable entry, newest first; a damaged line is skipped and logged, never shown."""
        return list(self._newest_first())

    def page(self, number: int, size: int = PAGE_SIZE) -> HistoryPage:
        """Page ``number`` (from 1) of ``size`` entries; only the lines up to that page are validated."""
        number = max(1, number)
        start = (number - 1) * size
        found = list(itertools.islice(self._newest_first(), start, start + size + 1))
        return HistoryPage(found[:size], number, len(found) > size)

    def get(self, entry_id: str) -> Entry | None:
        return next((entry for entry in self._newest_first(entry_id) if entry.id == entry_id), None)

    def _open_for_append(self, folder: int) -> int:
        return open_file(folder, HISTORY_NAME, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600, within=self._within)

    def _newest_first(self, containing: str = "") -> Iterator[Entry]:
        """Entries of both files, newest first; only lines holding ``containing`` are parsed."""
        for line in reversed(self._lines()):
            if not line.strip() or containing not in line:
                continue
            try:
                yield Entry.model_validate(json.loads(line))
            except (json.JSONDecodeError, ValidationError):
                log.warning("a history line is not a valid entry; skipped")

    def _lines(self) -> list[str]:
        """The rotated file's lines, then the current file's, oldest first; none read through a symlink."""
        lines: list[str] = []
        try:
            with cache_folder(self.cache_dir, HISTORY_DIR, create=False) as folder:
                for name in (ROTATED_NAME, HISTORY_NAME):
                    try:
                        fd = open_file(folder, name, os.O_RDONLY, within=self._within)
                    except FileNotFoundError:
                        continue
                    with os.fdopen(fd, "r", encoding="utf-8", errors="replace") as handle:
                        lines.extend(handle.read().splitlines())
        except FileNotFoundError:
            return []
        except CacheLinkRefused as exc:
            log.warning("history not read: %s", exc.message)
            return []
        return lines
