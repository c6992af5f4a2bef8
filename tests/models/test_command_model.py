from __future__ import annotations

import os
import select
import shlex
import sys
import time
from pathlib import Path

import pytest

from synapse_server.models import (
    ModelCommandFailed,
    ModelMisconfigured,
    ModelOptions,
    ModelTimeout,
    resolve_model,
)

PY = shlex.quote(sys.executable)


def test_the_command_gets_the_prompt_on_stdin_and_its_stdout_is_the_reply(tmp_path: Path) -> None:
    code = "import sys; print('reply to ' + sys.stdin.read().upper())"
    model = resolve_model(f"command:{PY} -c {shlex.quote(code)}", cwd=tmp_path)

    reply = model.complete("the question")

    assert reply.text == "reply to THE QUESTION"
    assert reply.usage is None
    assert reply.model.provider == "command"


def test_a_system_prompt_is_sent_first_on_stdin_separated_by_a_blank_line(tmp_path: Path) -> None:
    model = resolve_model("command:cat", cwd=tmp_path)

    assert model.complete("question", system="rules").text == "rules\n\nquestion"


def test_unicode_survives_the_round_trip(tmp_path: Path) -> None:
    assert resolve_model("command:cat", cwd=tmp_path).complete("Δ → ✓").text == "Δ → ✓"


def test_the_command_runs_without_a_shell_in_the_given_cwd(tmp_path: Path) -> None:
    model = resolve_model("command:echo $HOME ; pwd", cwd=tmp_path)

    assert model.complete("").text == "$HOME ; pwd"
    assert Path(resolve_model("command:pwd", cwd=tmp_path).complete("").text).resolve() == tmp_path.resolve()


def test_an_explicit_env_is_the_whole_environment_of_the_command(tmp_path: Path) -> None:
    env = {"PATH": os.environ.get("PATH", ""), "GREETING": "hello"}
    model = resolve_model("command:sh -c 'echo $GREETING-$OPENAI_API_KEY'", env=env, cwd=tmp_path)

    assert model.complete("").text == "hello-"


def test_a_non_zero_exit_is_a_model_error_carrying_the_stderr_tail(tmp_path: Path) -> None:
    model = resolve_model(
        "command:sh -c 'cat >/dev/null; echo early-noise >&2; echo the-real-cause >&2; exit 3'", cwd=tmp_path
    )

    with pytest.raises(ModelCommandFailed) as caught:
        model.complete("secret prompt text")

    assert caught.value.detail["returncode"] == 3
    assert "the-real-cause" in str(caught.value.detail["stderr_tail"])
    assert "secret prompt text" not in caught.value.message


def test_the_stderr_tail_is_bounded(tmp_path: Path) -> None:
    model = resolve_model(
        f"command:{PY} -c \"import sys; sys.stderr.write('x' * 100000 + 'END'); sys.exit(1)\"", cwd=tmp_path
    )

    with pytest.raises(ModelCommandFailed) as caught:
        model.complete("")

    stderr_tail = str(caught.value.detail["stderr_tail"])
    assert stderr_tail.endswith("END")
    assert len(stderr_tail) < 1000


def test_a_missing_executable_is_a_misconfiguration(tmp_path: Path) -> None:
    model = resolve_model("command:synapse-no-such-model-cli -p", cwd=tmp_path)

    with pytest.raises(ModelMisconfigured) as caught:
        model.complete("q")
    assert "synapse-no-such-model-cli" in caught.value.message


def _exits_within(pid: int, timeout_s: float) -> bool:
    """Wait on a pidfd (no polling, no sleep) until ``pid`` has exited; a killed process may still be closing."""
    try:
        fd = os.pidfd_open(pid)
    except ProcessLookupError:
        return True
    try:
        readable, _, _ = select.select([fd], [], [], timeout_s)
        return bool(readable)
    finally:
        os.close(fd)


def test_a_timeout_kills_the_whole_process_group_including_grandchildren(tmp_path: Path) -> None:
    pids = tmp_path / "pids"
    script = f'sleep 300 & echo "$$ $!" > {shlex.quote(str(pids))}; wait'
    model = resolve_model(f"command:sh -c {shlex.quote(script)}", cwd=tmp_path, options=ModelOptions(timeout_s=2))

    started = time.monotonic()
    with pytest.raises(ModelTimeout) as caught:
        model.complete("q")

    assert time.monotonic() - started < 30
    assert caught.value.kind == "model_timeout"
    child, grandchild = (int(pid) for pid in pids.read_text(encoding="utf-8").split())
    assert _exits_within(child, 0)  # our own child: killed and already reaped
    assert _exits_within(grandchild, 10)
