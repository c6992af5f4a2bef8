"""Process and descriptor census (through psutil), for tests that must prove nothing was left behind."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import psutil


@dataclass(frozen=True)
class Proc:
    pid: int
    ppid: int
    pgrp: int
    state: str
    """psutil's status: ``zombie`` for an exited, unreaped process."""
    cmdline: str


def processes() -> list[Proc]:
    """Every process this user can see, with its parent, group and command line (one that exits meanwhile is left out)."""
    found: list[Proc] = []
    for process in psutil.process_iter():
        try:
            with process.oneshot():
                found.append(Proc(process.pid, process.ppid(), _pgid(process.pid), process.status(), _cmdline(process)))
        except (psutil.NoSuchProcess, psutil.AccessDenied, ProcessLookupError):
            continue  # exited while we looked
    return found


def children(pid: int | None = None) -> set[int]:
    """Every child of ``pid`` (default: this process), zombies included: an unreaped child is a leak too."""
    try:
        return {child.pid for child in psutil.Process(pid).children()}
    except psutil.NoSuchProcess:
        return set()


def group_members(pgid: int) -> list[Proc]:
    """Live (non-zombie) processes in process group ``pgid``."""
    return [p for p in processes() if p.pgrp == pgid and p.state != psutil.STATUS_ZOMBIE]


def open_fds() -> set[int]:
    """The descriptor numbers this process holds open (psutil counts them, :func:`fd_count`, but names none)."""
    return {int(name) for name in os.listdir("/dev/fd")}


def fd_count(pid: int) -> int:
    return psutil.Process(pid).num_fds()


def rss_bytes(pid: int) -> int:
    """Resident set size of ``pid`` (bytes)."""
    return int(psutil.Process(pid).memory_info().rss)


def workers_for(root: Path) -> list[Proc]:
    """Live navigate workers serving ``root`` (found by their command line)."""
    marker = f"--root {root}"
    return [
        p
        for p in processes()
        if "synapse_server.isolation.worker" in p.cmdline and marker in p.cmdline and p.state != psutil.STATUS_ZOMBIE
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


def _pgid(pid: int) -> int:
    return os.getpgid(pid)  # psutil has no process-group accessor


def _cmdline(process: psutil.Process) -> str:
    try:
        return " ".join(process.cmdline())
    except psutil.ZombieProcess:
        return ""  # a zombie keeps no command line
