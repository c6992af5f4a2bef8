"""The parent side of navigate isolation: spawn, feed, time out, reap.

Every turn runs in a fresh worker process that is the leader of its own
process group (``start_new_session``), so a timeout can kill the worker *and*
anything it started (a ``command:`` model bridge, its children) in one
``killpg``; anyio's own cancellation would only kill the direct child. The
worker's death by signal (SIGSEGV in native embedding code, SIGKILL from the
OOM killer) becomes a structured ``native-crash`` failure naming the signal.

One spare worker is spawned ahead of need. It warms up on its own (imports,
embedding model, store caches) while nobody waits for it; a turn takes it and a
replacement is spawned at once, so back-to-back turns never pay a cold start
they could have overlapped. A spare is used for exactly one turn.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import subprocess
import sys
from collections import deque
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import Process, SocketStream
from anyio.streams.buffered import BufferedByteReceiveStream
from pydantic import ValidationError

from synapse_server.errors import SynapseError
from synapse_server.isolation.outcomes import failure_result, signal_name
from synapse_server.isolation.protocol import MAX_LINE_BYTES, ProtocolError, decode, encode
from synapse_server.navigation.request import NavigateRequest
from synapse_server.navigation.surfaces import ModelInfo, NavigateResult

log = logging.getLogger(__name__)

EXIT_GRACE_S = 5.0
"""After the worker closes its pipe, how long to wait for it to exit before calling it hung."""
WORKER_MODULE = "synapse_server.isolation.worker"


class WorkerDied(Exception):
    """The worker closed its pipe without a final message; ``returncode`` None means it is still running."""

    def __init__(self, returncode: int | None) -> None:
        super().__init__(f"worker ended with {returncode}")
        self.returncode = returncode


class WorkerReportedError(SynapseError):
    """A typed error the worker raised (bad config, bad model spec), carried over with its public kind."""

    def __init__(self, kind: str, message: str, exit_code: int, parameter: str | None) -> None:
        super().__init__(message, **({"parameter": parameter} if parameter else {}))
        self.kind = kind
        self.exit_code = exit_code


class WorkerProcess:
    """One spawned worker: its process, the parent's end of its socket, and a line reader over it."""

    def __init__(self, process: Process, stream: SocketStream) -> None:
        self.process = process
        self.pid = process.pid
        self._stream = stream
        self._lines = BufferedByteReceiveStream(stream)

    @classmethod
    async def spawn(cls, root: Path, env: Mapping[str, str], python: str = sys.executable) -> WorkerProcess:
        parent_end, child_end = socket.socketpair()
        try:
            command = [python, "-P", "-m", WORKER_MODULE, "--fd", str(child_end.fileno()), "--root", str(root)]
            process = await anyio.open_process(
                command,
                stdin=subprocess.DEVNULL,  # a model bridge needs ordinary stdio; the worker itself never reads it
                stdout=2,  # a stray print in the worker lands in the server log, never on the MCP wire
                stderr=None,
                env=dict(env),
                start_new_session=True,
                pass_fds=(child_end.fileno(),),
            )
        except BaseException:
            parent_end.close()
            raise
        finally:
            child_end.close()
        return cls(process, await SocketStream.from_socket(parent_end))

    def exited(self) -> bool:
        return self.process.returncode is not None

    async def exchange(self, request: NavigateRequest) -> dict[str, Any]:
        """Send the request and return the worker's final message; raises :class:`WorkerDied` on a silent end."""
        try:
            await self._stream.send(encode({"type": "navigate", "request": request.model_dump(mode="json")}))
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            raise WorkerDied(await self._exit_status()) from None
        while True:
            try:
                line = await self._lines.receive_until(b"\n", MAX_LINE_BYTES)
            except (anyio.IncompleteRead, anyio.EndOfStream, anyio.BrokenResourceError, OSError):
                raise WorkerDied(await self._exit_status()) from None
            message = decode(line)
            if message["type"] != "ready":
                return message

    async def kill(self) -> None:
        """Kill the whole process group, reap the worker, close the socket; safe to call twice."""
        with anyio.CancelScope(shield=True):
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pid, signal.SIGKILL)
            await self.process.wait()
            await self._stream.aclose()
            await self.process.aclose()

    async def _exit_status(self) -> int | None:
        with anyio.move_on_after(EXIT_GRACE_S):
            await self.process.wait()
        return self.process.returncode


class WorkerPool:
    """Runs navigate turns in fresh workers, keeping one warm spare (``prespawn``) ahead of need."""

    def __init__(self, root: Path, *, env: Mapping[str, str], prespawn: bool = True, python: str = sys.executable):
        self.root = root
        self.env = dict(env)
        self.prespawn = prespawn
        self.python = python
        self.recent_pids: deque[int] = deque(maxlen=64)
        """Process-group ids of recent workers, newest last (tests check their groups are gone)."""
        self._spare: WorkerProcess | None = None
        self._active: set[WorkerProcess] = set()
        self._lock: anyio.Lock | None = None

    @property
    def spare(self) -> WorkerProcess | None:
        return self._spare

    async def start(self) -> None:
        """Spawn the spare now, so the first turn finds it warm."""
        if self.prespawn:
            async with self._guard():
                if self._spare is None:
                    self._spare = await self._spawn()

    async def aclose(self) -> None:
        """Kill the spare and any running turn's worker (server shutdown)."""
        with anyio.CancelScope(shield=True):
            spare, self._spare = self._spare, None
            for worker in [*self._active, *([spare] if spare else [])]:
                await worker.kill()
            self._active.clear()
            self._lock = None  # the next session may run in another event loop

    async def run_turn(self, request: NavigateRequest, *, timeout_s: float, model: ModelInfo) -> NavigateResult:
        """One turn in a fresh worker; operational failures come back as ``failure`` results, never raised."""
        worker = await self._take()
        self._active.add(worker)
        try:
            with anyio.fail_after(timeout_s):
                message = await worker.exchange(request)
        except TimeoutError:
            detail = f"navigate ran past its {timeout_s:g} s timeout; the worker and its children were stopped"
            return failure_result("timeout", detail, model)
        except WorkerDied as died:
            return _death(died.returncode, model)
        except ProtocolError as exc:
            log.error("navigate worker %d broke the protocol: %s", worker.pid, exc)
            return failure_result("internal-error", "the navigate worker sent an unreadable reply", model)
        except anyio.DelimiterNotFound:
            return failure_result("internal-error", "the navigate worker sent an oversized reply", model)
        finally:
            self._active.discard(worker)
            await worker.kill()
        return _interpret(message, model)

    async def _take(self) -> WorkerProcess:
        async with self._guard():
            worker, self._spare = self._spare, None
            if worker is None:
                worker = await self._spawn()
            elif worker.exited():
                log.warning(
                    "spare navigate worker %d died while idle (status %s)", worker.pid, worker.process.returncode
                )
                await worker.kill()
                worker = await self._spawn()
            if self.prespawn:
                try:
                    self._spare = await self._spawn()
                except OSError:  # out of processes or descriptors: this turn still runs, cold next time
                    log.exception("could not spawn a spare navigate worker")
            return worker

    async def _spawn(self) -> WorkerProcess:
        worker = await WorkerProcess.spawn(self.root, self.env, self.python)
        self.recent_pids.append(worker.pid)
        return worker

    def _guard(self) -> anyio.Lock:
        if self._lock is None:  # created on first use, inside the event loop that will use it
            self._lock = anyio.Lock()
        return self._lock


def _death(returncode: int | None, model: ModelInfo) -> NavigateResult:
    if returncode is not None and returncode < 0:
        name = signal_name(-returncode)
        return failure_result("native-crash", f"the navigate worker died from {name}", model)
    if returncode is None:
        return failure_result("internal-error", "the navigate worker closed its pipe without a result", model)
    return failure_result(
        "internal-error", f"the navigate worker exited with status {returncode} without a result", model
    )


def _interpret(message: dict[str, Any], model: ModelInfo) -> NavigateResult:
    kind = message["type"]
    if kind == "result":
        try:
            return NavigateResult.model_validate(message.get("result"))
        except ValidationError:
            log.exception("navigate worker sent a result that is not a NavigateResult")
            return failure_result("internal-error", "the navigate worker sent a malformed result", model)
    if kind == "error":
        raise WorkerReportedError(
            str(message.get("kind") or "error"),
            str(message.get("message") or "navigate failed"),
            int(message.get("exit_code") or 1),
            message.get("parameter") if isinstance(message.get("parameter"), str) else None,
        )
    if kind == "failure":
        return failure_result("internal-error", str(message.get("detail") or "internal error"), model)
    log.error("navigate worker sent an unexpected message type %r", kind)
    return failure_result("internal-error", "the navigate worker sent an unexpected message", model)
