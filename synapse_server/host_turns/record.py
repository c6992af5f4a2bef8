"""Each pending turn's record in the workspace cache: the question, the host's replies, one use per step.

``<cache>/turns/<id>.json`` holds the request and, step by step, the host's
reply and the digest of the prompt it answered; a token carries the digest
of the record it was issued against, so an edited record fails closed. A
step is answered once: continuing it creates ``<id>.<step>.used`` with
``O_EXCL``, which exactly one of two racing calls (in one server or two)
can do. Nothing here is kept in memory. A turn's files go once it finishes,
or once they are older than the turn's time to live (:meth:`TurnRecords.prune`
runs at every new turn), so a host that never replies leaves nothing behind
for long. Every file is opened through :mod:`adapters.cache_files`: a
repository that commits a link in its cache folder cannot redirect a write.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import secrets
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from adapters import cache_files
from synapse_server.errors import TurnInvalid, TurnUsed
from synapse_server.models.host import HostTranscript
from synapse_server.navigation.request import NavigateRequest

FOLDER = "turns"
MAX_REPLY_CHARS = 65_536
"""A reply is one MemDSL artifact; anything longer is not one, and would only grow every later step."""
_TURN_ID = re.compile(r"^[0-9a-f]{16}$")
_RECORD_LIMIT = 4 * 1024 * 1024
GONE = "this turn is no longer known here (it finished, expired, or belongs to another workspace)"


class TurnRecord(BaseModel):
    """One turn as the server needs it to replay: what was asked, who answers, and each step so far.

    ``digests`` has one entry per prompt shown (the newest is the one awaiting a reply), ``replies`` one per
    prompt answered, so ``len(digests) == len(replies) + 1`` while the turn is pending.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    request: NavigateRequest
    client: str = Field("", max_length=200)
    replies: list[str] = Field(default_factory=list)
    digests: list[str] = Field(default_factory=list)

    def digest(self) -> str:
        text = json.dumps(self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]

    def transcript(self, reply: str) -> HostTranscript:
        """What the worker replays: every reply so far plus the new one, each beside the prompt it answered."""
        return HostTranscript(client=self.client, replies=[*self.replies, reply], digests=list(self.digests))

    def answered(self, reply: str, next_digest: str) -> TurnRecord:
        """The record after ``reply`` was accepted and the turn moved on to a prompt with ``next_digest``."""
        return self.model_copy(update={"replies": [*self.replies, reply], "digests": [*self.digests, next_digest]})


class TurnRecords:
    """The ``turns`` folder of one workspace cache."""

    def __init__(self, cache_dir: Path, ttl_s: float, clock: Callable[[], float] = time.time) -> None:
        self.cache_dir = Path(cache_dir)
        self.ttl_s = ttl_s
        self.clock = clock

    def create(self, record: TurnRecord) -> str:
        """Store a new turn's record under a fresh random id, and return the id."""
        turn = secrets.token_hex(8)
        self._write(turn, record, exclusive=True)
        return turn

    def load(self, turn: str, expected_digest: str) -> TurnRecord:
        """The record a token was issued against; :class:`TurnInvalid` when it is gone or differs."""
        name = _record_name(turn)
        try:
            with cache_files.cache_folder(self.cache_dir, FOLDER, create=False) as folder:
                fd = cache_files.open_file(folder, name, os.O_RDONLY, within=FOLDER)
                with os.fdopen(fd, "rb") as file:
                    data = file.read(_RECORD_LIMIT + 1)
        except FileNotFoundError:
            raise TurnInvalid(f"turn: {GONE}; start again with a question", parameter="turn") from None
        try:
            record = TurnRecord.model_validate_json(data) if len(data) <= _RECORD_LIMIT else None
        except ValidationError:
            record = None
        if record is None or record.digest() != expected_digest:
            raise TurnInvalid("turn: its record changed since the token was issued; start again", parameter="turn")
        return record

    def claim(self, turn: str, step: int) -> None:
        """Mark ``step`` of ``turn`` answered, or raise :class:`TurnUsed` when some call already did."""
        name = f"{_checked(turn)}.{int(step)}.used"
        with cache_files.cache_folder(self.cache_dir, FOLDER) as folder:
            try:
                fd = cache_files.open_file(folder, name, os.O_WRONLY | os.O_CREAT | os.O_EXCL, within=FOLDER)
            except FileExistsError:
                raise TurnUsed(
                    f"turn: step {step} was already answered; continue with the newest token", parameter="turn"
                ) from None
            os.close(fd)

    def save(self, turn: str, record: TurnRecord) -> None:
        self._write(turn, record, exclusive=False)

    def finish(self, turn: str) -> None:
        """Forget a finished turn's record; its used marks stay until they expire, so a replay stays refused."""
        with (
            contextlib.suppress(FileNotFoundError),
            cache_files.cache_folder(self.cache_dir, FOLDER, create=False) as folder,
        ):
            cache_files.unlink(folder, _record_name(turn))

    def prune(self) -> int:
        """Remove every turn file older than the time to live (a token that old has expired); returns the count."""
        cutoff = self.clock() - self.ttl_s
        removed = 0
        try:
            with cache_files.cache_folder(self.cache_dir, FOLDER, create=False) as folder:
                for name in os.listdir(folder):
                    with contextlib.suppress(FileNotFoundError):
                        if os.lstat(name, dir_fd=folder).st_mtime < cutoff:
                            cache_files.unlink(folder, name)
                            removed += 1
        except FileNotFoundError:
            return 0
        return removed

    def _write(self, turn: str, record: TurnRecord, *, exclusive: bool) -> None:
        name = _record_name(turn)
        data = record.model_dump_json().encode("utf-8")
        with cache_files.cache_folder(self.cache_dir, FOLDER) as folder:
            if exclusive:
                flags, target = os.O_WRONLY | os.O_CREAT | os.O_EXCL, name
            else:
                flags, target = os.O_WRONLY | os.O_CREAT | os.O_TRUNC, f".{name}.{secrets.token_hex(4)}.tmp"
            fd = cache_files.open_file(folder, target, flags, within=FOLDER)
            with os.fdopen(fd, "wb") as file:
                file.write(data)
            if target != name:
                cache_files.replace(folder, target, name)


def _record_name(turn: str) -> str:
    return f"{_checked(turn)}.json"


def _checked(turn: str) -> str:
    """A turn id is 16 hex digits; anything else never reaches a file name (tokens are signed, but still)."""
    if not _TURN_ID.match(turn):
        raise TurnInvalid("turn carries an unreadable payload", parameter="turn")
    return turn
