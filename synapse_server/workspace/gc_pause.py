"""Loading a workspace allocates a few million long-lived objects; the cyclic collector need not chase them.

CPython runs a full collection whenever enough new container objects survive, and each full collection walks
every tracked object in the process. A load of 100k nodes triggered several of those in a heap that already held
the previous load, which made a reload after one edit cost about a second of collection for nothing: what a load
allocates lives until the next load, and it holds no reference cycles to free. So loads run with the automatic
collector paused; reference counting still frees everything as before, and the collector resumes after.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["collector_paused"]


@contextmanager
def collector_paused() -> Iterator[None]:
    """Pause automatic cyclic collection for the block (nested use is safe: only the outermost resumes it)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
