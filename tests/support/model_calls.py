"""Drive :mod:`blocking_model` from a test: its spec, the moment it runs, its release, and whether it is gone."""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

import anyio
import psutil

from tests.support.procs import processes, wait_until

SCRIPT = Path(__file__).with_name("blocking_model.py")


@dataclass(frozen=True)
class Running:
    pid: int
    pgid: int
    helper: int


def blocking_spec(folder: Path) -> str:
    """The ``command:`` spec of a blocking model reporting through FIFOs in ``folder``."""
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("started", "release"):
        os.mkfifo(folder / name)
    return f"command:{sys.executable} {SCRIPT} {folder}"


async def model_started(folder: Path, timeout_s: float = 240) -> Running:
    """Wait until the model runs (it opens the FIFO's other end) and return its pid, group and helper."""

    def read() -> str:
        with (folder / "started").open(encoding="utf-8") as fifo:
            return fifo.read()

    with anyio.fail_after(timeout_s):
        pid, pgid, helper = (
            int(part) for part in (await anyio.to_thread.run_sync(read, abandon_on_cancel=True)).split()
        )
    return Running(pid, pgid, helper)


async def release_model(folder: Path, timeout_s: float = 60) -> None:
    def write() -> None:
        with (folder / "release").open("w", encoding="utf-8") as fifo:
            fifo.write("go\n")

    with anyio.fail_after(timeout_s):
        await anyio.to_thread.run_sync(write, abandon_on_cancel=True)


def alive(pid: int) -> bool:
    return any(p.pid == pid and p.state != psutil.STATUS_ZOMBIE for p in processes())


def all_gone(*pids: int, timeout_s: float = 30) -> bool:
    """Bounded census poll: a killed process is reaped by its parent (or init) a moment later."""
    return wait_until(lambda: not any(alive(pid) for pid in pids), timeout_s=timeout_s)
