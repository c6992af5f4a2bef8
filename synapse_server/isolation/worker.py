"""The navigate template: ``python -P -m synapse_server.isolation.worker --fd N --root DIR``.

It warms up once (imports, the embedding model through the stores' public
loader, the workspace's stores and index cache), says ``ready`` on its control
socket, and from then on forks one child per turn. A fork of a warm process
starts a turn in milliseconds, where a fresh interpreter would import and load
everything again; before each fork the template checks whether the store files
changed and, only then, loads and syncs them again (:func:`refresh`).
The template itself never runs a turn and holds no open index or store handle
when it forks; it is single-threaded, so a fork copies no lock held elsewhere.

Each child calls ``setsid`` (its own session and process group, so the server
can kill it and everything it started in one ``killpg``), reads exactly one
request from the turn socket the server handed over for it, runs one turn,
answers and exits. It shares nothing mutable with the template or other turns:
a fork copies memory, and nothing flows back.

The template reaps its children, and tells the server how each ended on that
turn's own socket (``exited`` with the status; a negative status is the signal),
but only with ``WNOWAIT``: the zombie is reaped when the server asks (``reap``),
after it killed the group, so a process-group id can never be reused under a
``killpg``. Core dumps are off so a native crash never drops a core file into
the workspace. See :mod:`synapse_server.isolation.protocol` for the messages.
"""

from __future__ import annotations

import argparse
import contextlib
import faulthandler
import importlib
import logging
import os
import resource
import selectors
import signal
import socket
import sys
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from synapse_server.errors import typed
from synapse_server.isolation.protocol import MAX_LINE_BYTES, TEST_JOB_ENV, ProtocolError, decode, encode
from synapse_server.processes.children import arm_parent_death_signal, kill_group, process_scope

log = logging.getLogger("synapse_server.worker")

TURN_MODULE = "synapse_server.isolation.turn"
WARM_UP_TEXT = "Which decision set the volatility target, and what did the backtest measure?"
_CONTROL_CHUNK = 64 * 1024


@dataclass
class Warm:
    """What warm-up prepared: the embedder, the config value it was built for, the turn function, the stores.

    ``preloaded`` is the workspace loaded once (:class:`~synapse_server.isolation.turn.Preloaded`: stores, index
    sync, vectors, node graph), kept current by ``freshness``, which is checked before every fork (see
    :func:`refresh`). Both are None when the load failed: the turn then loads for itself and reports the
    failure properly.
    """

    embedder: Any
    embedding_key: str | None
    turn: Callable[..., Any] | None
    preloaded: Any = None
    freshness: Any = None


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="synapse-worker")
    parser.add_argument("--fd", type=int, required=True, help="the control socket to the server")
    parser.add_argument("--root", required=True, help="the workspace root")
    args = parser.parse_args(argv)
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="%(levelname)s worker: %(message)s")
    arm_parent_death_signal()  # a server killed outright takes the template with it
    _no_core_dumps()
    faulthandler.enable(file=sys.stderr)  # a native crash still dies by its signal, with a Python stack in the log
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")  # its thread pool would not survive a fork
    root = Path(args.root)
    control = socket.socket(fileno=args.fd)
    job = os.environ.get(TEST_JOB_ENV) or None
    warm = None if job else warm_up(root)
    return Template(control, root, warm, job).serve()


def warm_up(root: Path) -> Warm:
    """Pay start-up once: model weights, the engine's imports, the stores and the index cache of this workspace."""
    from synapse_server.workspace.config import load_workspace
    from synapse_server.workspace.stores import make_embedder

    warm = Warm(None, None, _turn_function())
    try:
        workspace = load_workspace(root)
        warm.embedding_key = _embedding_key(workspace)
        warm.embedder = make_embedder(workspace)
        warm.embedder.encode([WARM_UP_TEXT])  # loads the weights and runs the first (slow) forward pass, once
    except Exception as exc:  # the turn meets the same problem and reports it properly
        log.info("warm-up incomplete: %s: %s", type(exc).__name__, exc)
        return warm
    refresh(warm, root)
    return warm


def refresh(warm: Warm, root: Path) -> None:
    """Before a fork: keep the loaded stores while their files are unchanged, otherwise load and sync again.

    The check is the server's own (:class:`~synapse_server.workspace.freshness.Freshness`: the store folders'
    inotify queue, or a full fingerprint where no watch can be trusted), so a turn sees every store change
    that finished before it was forked. The index is synced here and closed again before the fork; its
    result travels to the turn as ``synced``. Any failure drops the loaded state: the turn loads for itself.
    After an edit only the stores whose folders changed are read again (the others are the earlier load's).
    """
    if warm.freshness is not None and warm.freshness.current():
        return
    earlier = (warm.preloaded, warm.freshness.parts) if warm.preloaded is not None else None
    stale = warm.freshness
    warm.preloaded = warm.freshness = None
    if warm.embedder is None:  # warm-up failed: every turn builds its own encoder and reports what went wrong
        if stale is not None:
            stale.close()
        return
    try:
        warm.preloaded, warm.freshness = _reload(warm, root, stale, earlier)
    except Exception as exc:
        log.info("stores not preloaded: %s: %s", type(exc).__name__, exc)


def _reload(warm: Warm, root: Path, stale: Any, earlier: tuple[Any, dict[str, str]] | None) -> tuple[Any, Any]:
    """The preload and its freshness check after ``stale`` saw a change (or, with no ``stale``, the first)."""
    from synapse_server.isolation.turn import preload
    from synapse_server.workspace.config import load_workspace
    from synapse_server.workspace.freshness import Freshness, changed_parts
    from synapse_server.workspace.stores import make_embedder

    try:
        workspace = load_workspace(root)
        key = _embedding_key(workspace)
        if key != warm.embedding_key:
            warm.embedder, warm.embedding_key = make_embedder(workspace), key
        # The check that saw the change fingerprinted the files before this load: a write during it shows next time.
        freshness = stale.renewed(workspace) if stale is not None else Freshness(workspace)
    finally:
        if stale is not None:
            stale.close()  # a no-op once the renewed check holds its watch
    try:
        if earlier is None:
            return preload(workspace, warm.embedder), freshness  # closes its index: no handle crosses a fork
        changed = changed_parts(earlier[1], freshness.parts)
        return preload(workspace, warm.embedder, earlier=earlier[0], changed=changed, vouch=freshness.vouch), freshness
    except BaseException:
        freshness.close()
        raise


class Template:
    """The fork server: control messages in, one forked turn per ``fork``, exit reports per turn socket."""

    def __init__(self, control: socket.socket, root: Path, warm: Warm | None, job: str | None) -> None:
        self.control, self.root, self.warm, self.job = control, root, warm, job
        self.turns: dict[int, socket.socket] = {}
        """Live or unreaped children: pid -> the template's copy of that turn's socket."""
        self.reported: set[int] = set()
        self._buffer = b""
        self._fds: list[int] = []
        self._wake_r, self._wake_w = socket.socketpair()

    def serve(self) -> int:
        for end in (self._wake_r, self._wake_w):
            end.setblocking(False)
        signal.signal(signal.SIGCHLD, lambda *_: None)  # a handler, so the wake-up descriptor is written
        signal.set_wakeup_fd(self._wake_w.fileno())
        selector = selectors.DefaultSelector()
        selector.register(self.control, selectors.EVENT_READ, "control")
        selector.register(self._wake_r, selectors.EVENT_READ, "child")
        try:
            self.control.sendall(encode({"type": "ready"}))
            while True:
                for key, _ in selector.select():
                    if key.data == "child":
                        with contextlib.suppress(BlockingIOError):
                            while self._wake_r.recv(4096):
                                pass
                    elif not self._read_control(selector):
                        return 0
                self._report_exits()
        except OSError:  # the server's end is gone mid-message
            return 0
        finally:
            self._shutdown()

    def _read_control(self, selector: selectors.BaseSelector) -> bool:
        data, fds, _flags, _addr = socket.recv_fds(self.control, _CONTROL_CHUNK, 8)
        self._fds.extend(fds)
        if not data:
            return False  # the server closed the control socket (or died): stop
        self._buffer += data
        while b"\n" in self._buffer:
            line, self._buffer = self._buffer.split(b"\n", 1)
            try:
                message = decode(line)
            except ProtocolError as exc:
                log.error("template: %s", exc)
                continue
            if message["type"] == "fork" and self._fds:
                self._fork(self._fds.pop(0), selector)
            elif message["type"] == "reap" and isinstance(message.get("pid"), int):
                self._reap(message["pid"])
            else:
                log.error("template: unexpected control message %r", message["type"])
        return True

    def _fork(self, fd: int, selector: selectors.BaseSelector) -> None:
        turn = socket.socket(fileno=fd)
        if self.warm is not None:
            refresh(self.warm, self.root)
        try:
            pid = os.fork()
        except OSError as exc:  # out of processes or memory: this turn fails, the template goes on
            with contextlib.suppress(OSError):
                turn.sendall(encode({"type": "failure", "detail": f"could not fork a turn: {exc.strerror}"}))
            turn.close()
            return
        if pid == 0:  # the child: never returns
            code = 70
            try:
                os.setsid()
                signal.set_wakeup_fd(-1)
                signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                selector.close()
                for other in (self.control, self._wake_r, self._wake_w, *self.turns.values()):
                    other.close()
                code = run_turn(turn, self.root, self.warm, self.job)
            finally:
                logging.shutdown()
                sys.stderr.flush()
                os._exit(code)
        self.turns[pid] = turn
        with contextlib.suppress(OSError):  # the server gave up on this turn already
            turn.sendall(encode({"type": "forked", "pid": pid}))

    def _report_exits(self) -> None:
        gone: list[int] = []
        for pid, turn in self.turns.items():
            if pid in self.reported:
                continue
            info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
            if info is None or info.si_pid == 0:
                continue
            self.reported.add(pid)
            killed = info.si_code in (os.CLD_KILLED, os.CLD_DUMPED)
            try:
                turn.sendall(encode({"type": "exited", "status": -info.si_status if killed else info.si_status}))
            except OSError:  # the server never learned this turn (it gave up while forking): reap it now
                gone.append(pid)
        for pid in gone:
            self._reap(pid)

    def _reap(self, pid: int) -> None:
        """The server killed the turn's group: reap the zombie, report if not yet done, close its socket."""
        turn = self.turns.pop(pid, None)
        if turn is None:
            return
        _, status = os.waitpid(pid, 0)
        if pid not in self.reported:
            code = -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
            with contextlib.suppress(OSError):
                turn.sendall(encode({"type": "exited", "status": code}))
        self.reported.discard(pid)
        turn.close()

    def _shutdown(self) -> None:
        for pid, turn in list(self.turns.items()):
            kill_group(pid)
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)
            turn.close()
        self.turns.clear()


def run_turn(sock: socket.socket, root: Path, warm: Warm | None, job: str | None) -> int:
    """In a forked child: one request line in, one reply out; command models it starts are reported."""
    reader = sock.makefile("rb")
    try:
        line = reader.readline(MAX_LINE_BYTES + 1)
    except OSError:
        return 0
    if not line:
        return 0  # the server gave the turn up before sending it
    send_lock = threading.Lock()

    def send(message: dict[str, Any]) -> None:
        with send_lock:
            sock.sendall(encode(message))

    with process_scope(on_spawn=lambda pgid: send({"type": "child", "pgid": pgid})) as scope:
        _die_with_parent(sock, scope.close)
        reply = handle(line, root, warm, job)
    try:
        send(reply)
    except OSError:
        return 1
    return 0


def run_test_job(job: str, request: Any) -> Any:
    """Test-only: run the ``module:function`` that ``SYNAPSE_TEST_WORKER_JOB`` names instead of a turn.

    The jobs live with the tests, not in this package: the module is imported only here, only when whoever
    started the server set the variable (no tool parameter reaches it), from that environment's path.
    """
    module, _, function = job.partition(":")
    if not module or not function:
        raise ValueError(f"{TEST_JOB_ENV} must name module:function, not {job!r}")
    return getattr(importlib.import_module(module), function)(request)


def handle(line: bytes, root: Path, warm: Warm | None, job: str | None) -> dict[str, Any]:
    """One request line in, one reply message out; no exception escapes."""
    from synapse_server.navigation.request import NavigateRequest

    try:
        message = decode(line)
        if message["type"] != "navigate":
            raise ProtocolError(f"unexpected message type {message['type']!r}")
        request = NavigateRequest.model_validate(message.get("request"))
        if message.get("host") is not None:
            return _host_step(root, request, message["host"], warm)
        if job is not None:
            result = run_test_job(job, request)
        elif warm is None or warm.turn is None:
            return {
                "type": "failure",
                "halted_reason": "internal-error",
                "detail": "the navigation engine is not installed",
            }
        else:
            result = warm.turn(root, request, embedder=_embedder_for(root, warm), preloaded=warm.preloaded)
        return {"type": "result", "result": result.model_dump(mode="json")}
    except Exception as exc:
        if (known := typed(exc)) is not None:  # a SynapseError, or an adapter's typed failure
            parameter = known.detail.get("parameter")
            return {
                "type": "error",
                "kind": known.kind,
                "message": known.message,
                "exit_code": known.exit_code,
                "parameter": parameter if isinstance(parameter, str) else None,
            }
        log.exception("navigate turn failed")
        return {
            "type": "failure",
            "halted_reason": "internal-error",
            "detail": f"internal error ({type(exc).__name__})",
        }


def _host_step(root: Path, request: Any, host: object, warm: Warm | None) -> dict[str, Any]:
    """One step of a host-navigated turn: a verdict (``result``), the next prompt (``pending``) or ``stale``."""
    from synapse_server.isolation.turn import host_turn
    from synapse_server.models.host import HostTranscript
    from synapse_server.navigation.pending import PendingStep, StaleStep

    if warm is None:
        return {"type": "failure", "halted_reason": "internal-error", "detail": "the navigation engine is not ready"}
    transcript = HostTranscript.model_validate(host)
    outcome = host_turn(root, request, transcript, embedder=_embedder_for(root, warm), preloaded=warm.preloaded)
    if isinstance(outcome, PendingStep):
        return {"type": "pending", "pending": outcome.model_dump(mode="json")}
    if isinstance(outcome, StaleStep):
        return {"type": "stale", "step": outcome.step}
    return {"type": "result", "result": outcome.model_dump(mode="json")}


def _embedder_for(root: Path, warm: Warm) -> Any:
    """The warm encoder while the config still names it; otherwise (changed, or warm-up failed) a new one.

    Building it anew raises the configuration error the caller should see.
    """
    from synapse_server.workspace.config import load_workspace
    from synapse_server.workspace.stores import make_embedder

    workspace = load_workspace(root)
    if warm.embedder is not None and warm.embedding_key == _embedding_key(workspace):
        return warm.embedder
    return make_embedder(workspace)


def _embedding_key(workspace: Any) -> str:
    return repr(getattr(workspace.config, "embedding_model", None))


def _turn_function() -> Callable[..., Any] | None:
    try:
        from synapse_server.isolation import turn
    except ModuleNotFoundError as exc:
        if exc.name != TURN_MODULE:
            raise
        log.warning("the navigation engine (%s) is not installed", TURN_MODULE)
        return None
    return turn.navigate_turn


def _no_core_dumps() -> None:
    _soft, hard = resource.getrlimit(resource.RLIMIT_CORE)
    resource.setrlimit(resource.RLIMIT_CORE, (0, hard))


def _die_with_parent(sock: socket.socket, kill_commands: Callable[[], None]) -> None:
    """If the server goes away mid-turn (its end of the socket closes), take the turn and its commands down."""

    def watch() -> None:
        try:
            while sock.recv(4096):
                pass
        except OSError:
            pass
        kill_commands()
        kill_group(os.getpid())  # the turn leads its own group (setsid)
        os.kill(os.getpid(), signal.SIGKILL)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


if __name__ == "__main__":
    raise SystemExit(main())
