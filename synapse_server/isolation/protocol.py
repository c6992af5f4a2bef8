"""The worker pipe protocol: JSON objects, one per line, over a dedicated socket.

The socket is an extra descriptor handed to the worker (``--fd``), never its
stdin or stdout: those stay ordinary so a ``command:`` model bridge under the
worker can use them, and nothing a library prints can corrupt a message.

Messages (each has a ``type``)::

    worker -> parent  {"type": "ready"}                            warm-up done (interpreter, model, stores)
    parent -> worker  {"type": "navigate", "request": {...}}       one NavigateRequest, exactly once
                      (+ "host": {"client", "replies", "digests"}  a step of a host-navigated turn)
    worker -> parent  {"type": "result", "result": {...}}          a NavigateResult (answer, abstain or failure)
    worker -> parent  {"type": "pending", "pending": {...}}        a host step's next prompt (a PendingStep)
    worker -> parent  {"type": "stale", "step": k}                 the replay met other evidence at step k
    worker -> parent  {"type": "error", "kind": ..., "message": ..., "exit_code": ..., "parameter": ...}
                                                                    a typed SynapseError (bad config, bad spec)
    worker -> parent  {"type": "failure", "halted_reason": ..., "detail": ...}
                                                                    an unexpected exception, already logged
"""

from __future__ import annotations

import json
from typing import Any

MAX_LINE_BYTES = 64 * 1024 * 1024
"""A result carries the rendered envelope; anything past this is a broken worker, not a big answer."""

TEST_JOB_ENV = "SYNAPSE_TEST_WORKER_JOB"
"""Test-only: ``module:function`` the worker runs instead of a turn (the suite's ``tests/support/worker_jobs.py``).

Read only by the worker from its environment, which only whoever starts the
server controls; no tool parameter can reach it.
"""


class ProtocolError(Exception):
    """A line from the other side that is not one protocol message."""


def encode(message: dict[str, Any]) -> bytes:
    return json.dumps(message, ensure_ascii=False, separators=(",", ":")).encode("utf-8") + b"\n"


def decode(line: bytes) -> dict[str, Any]:
    try:
        message = json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ProtocolError(f"not a JSON line: {exc}") from None
    if not isinstance(message, dict) or not isinstance(message.get("type"), str):
        raise ProtocolError("a message must be a JSON object with a string 'type'")
    return message
