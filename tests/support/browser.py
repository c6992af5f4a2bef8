"""The dashboard's browser tests' shared parts: the system Chromium, its flags, and a live ``synapse dashboard``.

Chromium is the system's (Debian's ``chromium`` package); Playwright's own browser download is never used.
The fixtures that start a live dashboard and keep screenshots are in tests/dashboard/conftest.py.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from synapse_server.demo import load_questions

SYNAPSE = Path(sys.executable).parent / "synapse"
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
CASES = {case["id"]: case for case in load_questions()["questions"]}
ANSWERED = CASES["sharpe-after-cost-increase"]
WAIT_MS = 180_000


def chromium() -> str | None:
    """The system Chromium: ``$SYNAPSE_CHROMIUM``, else ``chromium`` or ``chromium-browser`` on the PATH."""
    named = os.environ.get("SYNAPSE_CHROMIUM")
    if named:
        return named if Path(named).is_file() else None
    return shutil.which("chromium") or shutil.which("chromium-browser")


CHROMIUM = chromium()
NO_CHROMIUM = "no system Chromium found (install Debian's: apt-get install -y chromium)"
