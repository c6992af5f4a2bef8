"""Run a command with a pseudo-terminal as its stdout (and optionally stderr): what a person's terminal receives."""

from __future__ import annotations

import os
import pty
import subprocess
from collections.abc import Mapping, Sequence


def run_in_terminal(argv: Sequence[str], env: Mapping[str, str], *, stderr_too: bool = False) -> tuple[int, str]:
    """The exit code and everything the terminal received (its ``\\r\\n`` translation left as it is)."""
    primary, secondary = pty.openpty()
    stderr = secondary if stderr_too else subprocess.PIPE
    with subprocess.Popen(
        list(argv), stdout=secondary, stderr=stderr, stdin=subprocess.DEVNULL, env=dict(env)
    ) as child:
        os.close(secondary)
        received = bytearray()
        while True:
            try:
                chunk = os.read(primary, 65536)
            except OSError:  # EIO: the child closed its side of the terminal
                break
            if not chunk:
                break
            received.extend(chunk)
        child.wait(timeout=300)
    os.close(primary)
    return child.returncode, received.decode("utf-8")
