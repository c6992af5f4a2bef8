"""Whether store folders lie on filesystems whose every change reaches an inotify watch.

The freshness check sweeps a local store by statting the files it knows (every entry created, removed or
renamed there queues an event); on a network, FUSE or virtual mount, where a change can arrive without one,
a sweep lists every folder again. This reads the mount table to tell the two apart.
"""

from __future__ import annotations

import os
from pathlib import Path

LOCAL_FILESYSTEMS = frozenset(
    {"ext2", "ext3", "ext4", "xfs", "btrfs", "tmpfs", "overlay", "zfs", "f2fs", "jfs", "reiserfs", "bcachefs"}
)
"""Filesystems whose every change, made on this machine, reaches an inotify watch (a network or FUSE mount can
change without an event: there a sweep lists every folder again)."""


def all_local(paths: list[Path]) -> bool:
    """True if every path lies on a filesystem of :data:`LOCAL_FILESYSTEMS` (per ``/proc/self/mountinfo``)."""
    try:
        lines = Path("/proc/self/mountinfo").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return False
    mounts: list[tuple[str, str]] = []
    for line in lines:
        left, _, right = line.partition(" - ")
        fields, kinds = left.split(), right.split()
        if len(fields) >= 5 and kinds:
            mounts.append((fields[4].replace("\\040", " "), kinds[0]))
    for path in paths:
        where = os.path.realpath(path)
        best = max(
            (m for m in mounts if where == m[0] or where.startswith(m[0].rstrip("/") + "/")),
            key=lambda m: len(m[0]),
            default=None,
        )
        if best is None or best[1] not in LOCAL_FILESYSTEMS:
            return False
    return True
