"""The group guard kills a watched process group when its starter dies, and leaves it alone once released.

Real processes: a starter (a Python child of the test) starts a guard and a
process group of its own - a leader and a helper, as a ``command:`` model that
forks would have - then either dies without a word or releases the guard.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

from tests.support import REPOSITORY
from tests.support.procs import group_members, wait_until

STARTER_IMPORTS = "import os, subprocess, sys, time\n"
STARTER = """
from synapse_server.processes.children import GroupGuard
guard = GroupGuard()
leader = subprocess.Popen(
    [sys.executable, "-c", "import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)']); time.sleep(120)"],
    start_new_session=True,
    stdout=subprocess.DEVNULL,
    stderr=subprocess.DEVNULL,
)
guard.watch(leader.pid)
while _group_size(leader.pid) < 2:
    time.sleep(0.01)  # polling for the helper to exist, bounded by the test's timeout
print(leader.pid, guard.pid, flush=True)
if sys.argv[1] == "release":
    guard.release()
os._exit(0)
"""

IN_GROUP = """
import psutil

def _group_size(pgid):
    size = 0
    for pid in psutil.pids():
        try:
            size += os.getpgid(pid) == pgid
        except ProcessLookupError:
            pass  # exited while we looked
    return size
"""


def start(how: str) -> tuple[int, int]:
    """Run the starter to its end; the leader of the group it made, and its guard."""
    done = subprocess.run(
        [sys.executable, "-c", STARTER_IMPORTS + IN_GROUP + STARTER, how],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REPOSITORY,  # the checkout, whose synapse_server the starter imports
        check=True,
    )
    leader, guard = (int(part) for part in done.stdout.split())
    return leader, guard


def test_a_starter_that_dies_without_releasing_takes_the_whole_watched_group_down() -> None:
    leader, _ = start("die")
    assert wait_until(lambda: group_members(leader) == [], timeout_s=30), "the leader and its helper are killed"


def test_a_released_guard_exits_and_leaves_the_group_to_its_starter() -> None:
    leader, guard = start("release")
    try:
        assert wait_until(lambda: group_members(guard) == [], timeout_s=30), "the guard itself exits"
        assert len(group_members(leader)) == 2, "the released guard killed nothing"
    finally:
        os.killpg(leader, signal.SIGKILL)
    assert wait_until(lambda: group_members(leader) == [], timeout_s=30)
