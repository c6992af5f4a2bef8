"""The parent side of navigate isolation: a warm template, one forked process per turn, a cap, clean-up.

One template process per server imports the engine and loads the embedding
model once (:mod:`synapse_server.isolation.worker`); every turn is a fresh
child forked from it, so back-to-back turns never wait for an import. Each
turn's process leads its own process group, so a timeout kills the turn *and*
anything it started (a ``command:`` model's group is reported to us and killed
beside it); anyio's own cancellation would only kill a direct child. A turn
that dies by a signal (SIGSEGV in native embedding code, SIGKILL from the OOM
killer) is a structured ``native-crash`` naming the signal. At most
``max_concurrent`` turns run at once; the others wait their turn and say so
through the call's progress reporter.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import subprocess
import sys
from collections import deque
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import Process, UNIXSocketStream
from anyio.streams.buffered import BufferedByteReceiveStream
from pydantic import ValidationError

from synapse_server.context.progress import Reporter
from synapse_server.errors import SynapseError
from synapse_server.isolation.outcomes import failure_result, signal_name
from synapse_server.isolation.protocol import MAX_LINE_BYTES, ProtocolError, decode, encode
from synapse_server.models.host import HostTranscript
from synapse_server.navigation.pending import PendingStep, StaleStep
from synapse_server.navigation.request import NavigateRequest
from synapse_server.navigation.surfaces import ModelInfo, NavigateResult
from synapse_server.processes.children import kill_group

StepResult = NavigateResult | PendingStep | StaleStep

log = logging.getLogger(__name__)

EXIT_GRACE_S = 5.0
"""After a turn's group was killed, how long to wait for the template's exit report."""
WARM_UP_LIMIT_S = 600.0
"""How long a turn waits for the template's one-time warm-up (model load, first index build) before failing."""
WORKER_MODULE = "synapse_server.isolation.worker"
DEFAULT_MAX_CONCURRENT = 2


class WorkerDied(Exception):
    """The turn ended without a final message; ``returncode`` None means its end was never reported."""

    def __init__(self, returncode: int | None) -> None:
        super().__init__(f"worker ended with {returncode}")
        self.returncode = returncode


class ForkFailed(Exception):
    """The template could not start a turn; ``gone`` when the template itself has ended."""

    def __init__(self, detail: str, *, gone: bool) -> None:
        super().__init__(detail)
        self.gone = gone


class WorkerReportedError(SynapseError):
    """A typed error the worker raised (bad config, bad model spec), carried over with its public kind."""

    def __init__(self, kind: str, message: str, exit_code: int, parameter: str | None) -> None:
        super().__init__(message, **({"parameter": parameter} if parameter else {}))
        self.kind = kind
        self.exit_code = exit_code


async def _read(lines: BufferedByteReceiveStream) -> dict[str, Any] | None:
    """The next message, or None at the end of the stream."""
    try:
        return decode(await lines.receive_until(b"\n", MAX_LINE_BYTES))
    except (anyio.IncompleteRead, anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
        return None


class Template:
    """The warm template process and the server's end of its control socket."""

    def __init__(self, process: Process, control: UNIXSocketStream) -> None:
        self.process = process
        self.pid = process.pid
        self._control = control
        self._lines = BufferedByteReceiveStream(control)
        self._ready = False
        self._forking = anyio.Lock()

    @classmethod
    async def spawn(cls, root: Path, env: Mapping[str, str], python: str = sys.executable) -> Template:
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
        return cls(process, await UNIXSocketStream.from_socket(parent_end))

    def exited(self) -> bool:
        return self.process.returncode is not None

    async def fork(self) -> Turn:
        """A fresh turn process forked from the warm template (waits for warm-up the first time)."""
        async with self._forking:  # one fork at a time: the control socket and the ready wait have one reader
            return await self._fork()

    async def _fork(self) -> Turn:
        if not self._ready:
            try:
                message = await _read(self._lines)
            except ProtocolError:
                message = None
            if message is None or message["type"] != "ready":
                raise ForkFailed("the navigate template ended before it was ready", gone=True)
            self._ready = True
        ours, theirs = socket.socketpair()
        try:
            try:
                await self._control.send_fds(encode({"type": "fork"}), [theirs.fileno()])
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                ours.close()
                raise ForkFailed("the navigate template is gone", gone=True) from None
        finally:
            theirs.close()
        stream = await UNIXSocketStream.from_socket(ours)
        lines = BufferedByteReceiveStream(stream)
        try:
            message = await _read(lines)
        except BaseException:  # cancelled or garbled: closing our end makes the child exit unused
            await stream.aclose()
            raise
        if message is None or message["type"] != "forked" or not isinstance(message.get("pid"), int):
            await stream.aclose()
            if message is not None and message["type"] == "failure":
                raise ForkFailed(str(message.get("detail") or "fork failed"), gone=False)
            raise ForkFailed("the navigate template did not start the turn", gone=True)
        return Turn(self, message["pid"], stream, lines)

    async def reap(self, pid: int) -> None:
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            await self._control.send(encode({"type": "reap", "pid": pid}))

    async def kill(self) -> None:
        """Kill the template's group (its turns lead their own and are killed by their owners); reap it."""
        with anyio.CancelScope(shield=True):
            kill_group(self.pid)
            await self.process.wait()
            await self._control.aclose()
            await self.process.aclose()


class Turn:
    """One forked turn: its pid (= its process group), its socket, and the command groups it reported."""

    def __init__(self, template: Template, pid: int, stream: UNIXSocketStream, lines: BufferedByteReceiveStream):
        self.template = template
        self.pid = pid
        self.children: set[int] = set()
        self.status: int | None = None
        self._stream = stream
        self._lines = lines

    async def exchange(self, request: NavigateRequest, host: HostTranscript | None = None) -> dict[str, Any]:
        """Send the request and return the turn's final message; raises :class:`WorkerDied` on a silent end."""
        sent: dict[str, Any] = {"type": "navigate", "request": request.model_dump(mode="json")}
        if host is not None:
            sent["host"] = host.model_dump(mode="json")
        try:
            await self._stream.send(encode(sent))
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            raise WorkerDied(None) from None
        while True:
            message = await self._read_status()
            if message is None:
                raise WorkerDied(self.status)
            if message["type"] == "child" and isinstance(message.get("pgid"), int):
                self.children.add(message["pgid"])
            elif message["type"] not in ("ready", "child"):
                return message

    async def _read_status(self) -> dict[str, Any] | None:
        """The next message other than an exit report; None once the turn has exited (status recorded)."""
        message = await _read(self._lines)
        if message is None:
            return None
        if message["type"] == "exited":
            self.status = int(message.get("status") or 0)
            return None
        return message

    async def kill(self) -> None:
        """Kill the turn's group and the command groups it reported, have it reaped, close; safe to call twice."""
        with anyio.CancelScope(shield=True):
            kill_group(self.pid)
            for pgid in self.children:
                kill_group(pgid)
            await self.template.reap(self.pid)
            with anyio.move_on_after(EXIT_GRACE_S):
                while await _read(self._lines) is not None:
                    pass  # the exit report, then the end of the socket once the template reaped the turn
            await self._stream.aclose()


class WorkerPool:
    """Runs navigate turns forked from one warm template, at most ``max_concurrent`` at a time."""

    def __init__(
        self,
        root: Path,
        *,
        env: Mapping[str, str],
        prespawn: bool = True,
        python: str = sys.executable,
        max_concurrent: int = DEFAULT_MAX_CONCURRENT,
    ):
        self.root = root
        self.env = dict(env)
        self.prespawn = prespawn
        self.python = python
        self.max_concurrent = max_concurrent
        self.recent_pids: deque[int] = deque(maxlen=64)
        """Process-group ids of recent turns, newest last (tests check their groups are gone)."""
        self._template: Template | None = None
        self._active: set[Turn] = set()
        self._lock: anyio.Lock | None = None
        self._limiter: anyio.CapacityLimiter | None = None

    @property
    def template(self) -> Template | None:
        return self._template

    async def start(self) -> None:
        """Spawn the template now, so it is warm by the first turn (``prespawn``); otherwise the first turn does."""
        if self.prespawn:
            await self._warm_template()

    async def aclose(self) -> None:
        """Kill every running turn and the template (server shutdown); the pool can start again afterwards."""
        with anyio.CancelScope(shield=True):
            for turn in list(self._active):
                await turn.kill()
            self._active.clear()
            template, self._template = self._template, None
            if template is not None:
                await template.kill()
            self._lock = self._limiter = None  # the next session may run in another event loop

    async def run_turn(
        self,
        request: NavigateRequest,
        *,
        timeout_s: float,
        model: ModelInfo,
        max_concurrent: int | None = None,
        progress: Reporter | None = None,
    ) -> NavigateResult:
        """One turn in a fresh process; operational failures come back as ``failure`` results, never raised.

        The timeout counts from the moment the turn starts: neither the wait for a free slot nor the template's
        one-time warm-up (bounded by :data:`WARM_UP_LIMIT_S`) counts against it.
        """
        result = await self._queued(request, None, timeout_s, model, max_concurrent, progress)
        if isinstance(result, NavigateResult):
            return result
        log.error("navigate worker suspended a turn that no host navigates")
        return failure_result("internal-error", "the navigate worker sent an unexpected message", model)

    async def run_host_step(
        self,
        request: NavigateRequest,
        host: HostTranscript,
        *,
        timeout_s: float,
        model: ModelInfo,
        max_concurrent: int | None = None,
        progress: Reporter | None = None,
    ) -> StepResult:
        """One step of a host-navigated turn, isolated like any turn: a verdict, the next prompt, or stale."""
        return await self._queued(request, host, timeout_s, model, max_concurrent, progress)

    async def _queued(
        self,
        request: NavigateRequest,
        host: HostTranscript | None,
        timeout_s: float,
        model: ModelInfo,
        max_concurrent: int | None,
        progress: Reporter | None,
    ) -> StepResult:
        limiter = self._capacity(max_concurrent)
        queued = limiter.available_tokens < 1
        if queued and progress is not None:
            running = f"{limiter.borrowed_tokens:g} navigate turns running (max_concurrent {limiter.total_tokens:g})"
            await progress(0, None, f"queued: {running}")
        async with limiter:
            if queued and progress is not None:
                await progress(1, None, "navigate turn started")
            return await self._run(request, host, timeout_s, model)

    async def _run(
        self, request: NavigateRequest, host: HostTranscript | None, timeout_s: float, model: ModelInfo
    ) -> StepResult:
        turn: Turn | None = None
        try:
            with anyio.fail_after(WARM_UP_LIMIT_S):
                turn = await self._fork()
            self._active.add(turn)
            with anyio.fail_after(timeout_s):
                message = await turn.exchange(request, host)
        except TimeoutError:
            if turn is None:
                detail = f"the navigate worker did not warm up within {WARM_UP_LIMIT_S:g} s"
                return failure_result("internal-error", detail, model)
            detail = f"navigate ran past its {timeout_s:g} s timeout; the worker and its children were stopped"
            return failure_result("timeout", detail, model)
        except ForkFailed as exc:
            log.error("could not start a navigate turn: %s", exc)
            return failure_result("internal-error", f"the navigate worker could not start: {exc}", model)
        except WorkerDied as died:
            return _death(died.returncode, model)
        except ProtocolError as exc:
            log.error("navigate worker broke the protocol: %s", exc)
            return failure_result("internal-error", "the navigate worker sent an unreadable reply", model)
        except anyio.DelimiterNotFound:
            return failure_result("internal-error", "the navigate worker sent an oversized reply", model)
        finally:
            if turn is not None:
                self._active.discard(turn)
                await turn.kill()
        return _interpret(message, model)

    async def _fork(self) -> Turn:
        """Fork from the template, starting a new one once if it has died."""
        template = await self._warm_template()
        try:
            turn = await template.fork()
        except ForkFailed as exc:
            if not exc.gone:
                raise
            log.warning("navigate template %d is gone (%s); starting a new one", template.pid, exc)
            await self._drop_template(template)
            turn = await (await self._warm_template()).fork()
        self.recent_pids.append(turn.pid)
        return turn

    async def _warm_template(self) -> Template:
        async with self._guard():
            if self._template is not None and self._template.exited():
                log.warning("navigate template %d died (%s)", self._template.pid, self._template.process.returncode)
                await self._drop_template(self._template)
            if self._template is None:
                try:
                    self._template = await Template.spawn(self.root, self.env, self.python)
                except OSError as exc:
                    raise ForkFailed(f"cannot start the navigate template: {exc.strerror}", gone=True) from None
            return self._template

    async def _drop_template(self, template: Template) -> None:
        if self._template is template:
            self._template = None
        await template.kill()

    def _capacity(self, max_concurrent: int | None) -> anyio.CapacityLimiter:
        if self._limiter is None:  # created on first use, inside the event loop that will use it
            self._limiter = anyio.CapacityLimiter(self.max_concurrent)
        if max_concurrent is not None and max_concurrent != self._limiter.total_tokens:
            self._limiter.total_tokens = max_concurrent
        return self._limiter

    def _guard(self) -> anyio.Lock:
        if self._lock is None:
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


def _interpret(message: dict[str, Any], model: ModelInfo) -> StepResult:
    kind = message["type"]
    if kind in ("pending", "stale"):
        try:
            if kind == "pending":
                return PendingStep.model_validate(message.get("pending"))
            return StaleStep.model_validate({"step": message.get("step")})
        except ValidationError:
            log.exception("navigate worker sent a malformed %s step", kind)
            return failure_result("internal-error", "the navigate worker sent a malformed result", model)
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
