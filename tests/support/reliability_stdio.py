"""The installed ``synapse serve`` over real stdio, with its process id for the census.

``file_size_limit`` starts the server under ``RLIMIT_FSIZE`` (set by a tiny
wrapper that then ``exec``s the server, so the limit is the kernel's and the
process id is the server's): any write past that many bytes fails with
``EFBIG``, which is how the suite simulates a full disk without root.
"""

from __future__ import annotations

import os
import sys
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TextIO

from mcp import ClientSession, StdioServerParameters, stdio_client

from tests.support.procs import children, processes

SYNAPSE = Path(sys.executable).parent / "synapse"
_LIMITED = (
    "import os, resource, sys\n"
    "limit = int(sys.argv[1])\n"
    "resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))\n"
    "os.execv(sys.argv[2], sys.argv[2:])\n"
)


@dataclass
class StdioServer:
    session: ClientSession
    pid: int


@asynccontextmanager
async def stdio_server(
    root: Path, errlog: TextIO, *, env: Mapping[str, str] | None = None, file_size_limit: int | None = None
) -> AsyncIterator[StdioServer]:
    """An initialized client session to a fresh ``synapse serve --root ROOT`` child of this process.

    The server inherits this environment (plus ``env``), so it runs the code under test, not another install.
    """
    argv = [str(SYNAPSE), "serve", "--root", str(root)]
    if file_size_limit is not None:
        argv = [sys.executable, "-c", _LIMITED, str(file_size_limit), *argv]
    params = StdioServerParameters(command=argv[0], args=argv[1:], env={**os.environ, **(env or {})})
    before = children()
    async with stdio_client(params, errlog=errlog) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        started = [p.pid for p in processes() if p.pid in children() - before and "serve" in p.cmdline]
        assert len(started) == 1, f"expected one server process, found {started}"
        yield StdioServer(session, started[0])
