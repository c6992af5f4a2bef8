"""``command:CMD``: the model bridge to any CLI that reads a prompt on stdin and answers on stdout.

This is how a coding agent's own model (``claude -p``, ``llm -m …``) serves
navigation without an API key in Synapse. The command line is split with
:func:`shlex.split` and run without a shell, so a spec cannot smuggle shell
syntax. The child leads its own process group: on timeout the whole group is
killed, because CLIs that fork helpers would otherwise leave them running and
holding our pipes, and so is whatever of the group is left once the command
answered. Leading its own group takes it out of its caller's, so the group is
registered with the caller's :class:`~synapse_server.processes.children.ProcessScope`
(killed when the tool call or navigate turn ends, however it ends), and the
kernel kills the command if the process that started it dies (Linux), while a
:class:`~synapse_server.processes.children.GroupGuard` started beside it kills the helpers
left in its group. A system prompt, when given, is sent first on stdin,
separated from the prompt by a blank line; ``max_tokens`` cannot be passed to
an arbitrary CLI and is ignored. The command reports no usage.
"""

from __future__ import annotations

import shlex
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from synapse_server.models.base import DEFAULT_TIMEOUT_S, Completion, Model, ModelIdentity, Prompt
from synapse_server.models.errors import ModelCommandFailed, ModelMisconfigured, ModelSpecError, ModelTimeout, tail
from synapse_server.models.provider import Argument, Provider, ProviderContext
from synapse_server.processes.children import GroupGuard, ProcessScope, current_scope, kill_group, parent_death_signal

PROVIDER = "command"
_DRAIN_S = 5.0


def split_command(command: str) -> list[str]:
    """The argv of a ``command:`` spec; an empty or unbalanced command line is a spec error."""
    try:
        argv = shlex.split(command)
    except ValueError as error:
        raise ModelSpecError(f"command: cannot split the command line: {error}", provider=PROVIDER) from None
    if not argv:
        raise ModelSpecError("command: needs a command line, e.g. command:claude -p", provider=PROVIDER)
    return argv


class CommandModel(Model):
    """Runs ``argv`` once per call with the prompt on stdin; stdout (right-trimmed) is the reply."""

    def __init__(
        self,
        argv: Sequence[str],
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        cwd: Path | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        if not argv:
            raise ModelSpecError("command: needs a command line", provider=PROVIDER)
        self.identity = ModelIdentity(PROVIDER, shlex.join(argv))
        self._argv = list(argv)
        self._timeout_s = timeout_s
        self._cwd = cwd
        self._env = dict(env) if env is not None else None

    def execute(self, prompt: Prompt) -> Completion:
        stdin = prompt.text if prompt.system is None else f"{prompt.system}\n\n{prompt.text}"
        scope = current_scope()
        if scope is not None and scope.closed:
            raise ModelCommandFailed(
                f"command {self._argv[0]!r} not started: the call it served has ended",
                provider=PROVIDER,
                returncode=None,
            )
        guard = GroupGuard()
        try:
            out, err, returncode = self._run(stdin.encode("utf-8"), scope, guard)
        finally:
            guard.release()
        if returncode != 0:
            raise ModelCommandFailed(
                f"command {self._argv[0]!r} exited with status {returncode}",
                provider=PROVIDER,
                returncode=returncode,
                stderr_tail=tail(err.decode("utf-8", "replace")),
            )
        return Completion(out.decode("utf-8", "replace").rstrip(), None, self.identity)

    def _run(self, data: bytes, scope: ProcessScope | None, guard: GroupGuard) -> tuple[bytes, bytes, int]:
        """Start the command, talk to it, and kill its group on every way out; raises the model errors."""
        try:
            child = subprocess.Popen(
                self._argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                cwd=self._cwd,
                env=self._env,
                start_new_session=True,
                preexec_fn=parent_death_signal(),  # only arms prctl: see synapse_server.processes.children
            )
        except OSError as error:
            raise ModelMisconfigured(
                f"command: cannot start {self._argv[0]!r}: {error.strerror or type(error).__name__}",
                provider=PROVIDER,
                command=self._argv[0],
            ) from None
        guard.watch(child.pid)
        if scope is not None and not scope.add(child.pid):
            _kill_group(child)
            child.wait()
            raise ModelCommandFailed(
                f"command {self._argv[0]!r} stopped: the call it served has ended", provider=PROVIDER, returncode=None
            )
        try:
            out, err = _communicate(child, data, self._timeout_s)
        except subprocess.TimeoutExpired:
            _kill_group(child)
            err = _drain_stderr(child)
            raise ModelTimeout(
                f"command {self._argv[0]!r} ran past {self._timeout_s:g}s; its process group was killed",
                provider=PROVIDER,
                timeout_s=self._timeout_s,
                stderr_tail=tail(err.decode("utf-8", "replace")),
            ) from None
        except BaseException:
            _kill_group(child)
            child.wait()
            raise
        finally:
            if scope is not None:
                scope.discard(child.pid)
        return out, err, child.returncode


def _communicate(child: subprocess.Popen[bytes], data: bytes, timeout_s: float) -> tuple[bytes, bytes]:
    """Talk to the command, then kill what is left of its group (helpers it left running)."""
    out, err = child.communicate(data, timeout=timeout_s)
    _kill_group(child)
    return out, err


def _drain_stderr(child: subprocess.Popen[bytes]) -> bytes:
    """What the killed child wrote to stderr; bounded, since a process that left the group may hold the pipe."""
    try:
        return child.communicate(timeout=_DRAIN_S)[1]
    except subprocess.TimeoutExpired:
        for pipe in (child.stdin, child.stdout, child.stderr):
            if pipe is not None:
                pipe.close()
        child.wait()
        return b""


def _kill_group(child: subprocess.Popen[bytes]) -> None:
    """SIGKILL the child's whole process group (it leads one: ``start_new_session``)."""
    kill_group(child.pid)


class CommandProvider(Provider):
    """``command:CMD``: starts a process, so a workspace config alone may not choose it."""

    name = PROVIDER
    argument = Argument("CMD", "a command line")
    reaches_outside = True
    runs = "an external CLI: prompt on stdin, reply on stdout"
    use = "the model bridge (`claude -p`, `llm`)"

    def check(self, argument: str) -> None:
        split_command(argument)

    def build(self, argument: str | None, context: ProviderContext) -> Model:
        assert argument is not None
        return CommandModel(
            split_command(argument),
            timeout_s=context.options.timeout_s,
            cwd=context.cwd,
            env=context.env if context.explicit_env else None,
        )
