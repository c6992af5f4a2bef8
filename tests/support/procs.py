"""Process and descriptor census from /proc, for tests that must prove nothing was left behind."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    pgrp: int
    state: str
    cmdline: str


def processes() -> list[Proc]:
    found: list[Proc] = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text(encoding="utf-8", errors="replace")
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace").strip()
        except OSError:
            continue  # exited while we looked
        fields = stat[stat.rindex(")") + 2 :].split()
        found.append(Proc(int(entry.name), int(fields[1]), int(fields[2]), fields[0], cmdline))
    return found


def children(pid: int | None = None) -> set[int]:
    """Every child of ``pid`` (default: this process), zombies included: an unreaped child is a leak too."""
    parent = os.getpid() if pid is None else pid
    return {p.pid for p in processes() if p.ppid == parent}


def group_members(pgid: int) -> list[Proc]:
    """Live (non-zombie) processes in process group ``pgid``."""
    return [p for p in processes() if p.pgrp == pgid and p.state != "Z"]


def open_fds() -> set[int]:
    return {int(name) for name in os.listdir("/proc/self/fd")}


def workers_for(root: Path) -> list[Proc]:
    """Live navigate workers serving ``root`` (found by their command line)."""
    marker = f"--root {root}"
    return [
        p
        for p in processes()
        if "synapse_server.isolation.worker" in p.cmdline and marker in p.cmdline and p.state != "Z"
    ]


def wait_until(predicate: Callable[[], bool], timeout_s: float = 10.0, interval_s: float = 0.05) -> bool:
    """Poll an external process's state with a deadline (never a bare sleep for synchronisation)."""
    deadline = time.monotonic() + timeout_s
    while True:
        if predicate():
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(interval_s)
