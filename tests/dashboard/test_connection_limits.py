"""Idle and slow connections cannot starve the dashboard, and running out of descriptors logs a line, not a flood.

Against the installed ``synapse dashboard`` with its descriptors capped by
``RLIMIT_NOFILE``: 300 connections that never finish a request (some send
nothing, some half a request line) leave room for a real request, and every
one of them is closed, none before the idle timeout. With the connection cap
set above what the descriptors allow, failed accepts leave a bounded log.
"""

from __future__ import annotations

import socket
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from tests.support.live_dashboard import Session, live_dashboard

FLOOD = 300
NOFILE = 256
IDLE_S = 2.0
CLOSE_BOUND_S = 60.0


@contextmanager
def idle_connections(port: int, count: int) -> Iterator[list[socket.socket]]:
    """``count`` connections to the dashboard: even ones send nothing, odd ones half a request line."""
    with ExitStack() as stack:
        opened = []
        for i in range(count):
            sock = stack.enter_context(socket.create_connection(("127.0.0.1", port), timeout=CLOSE_BOUND_S))
            if i % 2:
                sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n")
            opened.append(sock)
        yield opened


def closed_by_server(sock: socket.socket) -> bool:
    """True once the server closed ``sock`` (EOF or reset), reading whatever it answered first."""
    try:
        while sock.recv(4096):
            pass
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False
    return True


def test_three_hundred_idle_connections_neither_starve_a_real_request_nor_stay_open(demo: Path) -> None:
    with live_dashboard(demo, "--idle-timeout", str(IDLE_S), nofile=NOFILE) as live:
        with idle_connections(live.port, FLOOD) as flood:
            session = Session(live).login()  # a real request, served while the flood is open
            assert session.get("/").status == 200
            assert all(closed_by_server(sock) for sock in flood)

        started = time.monotonic()
        with idle_connections(live.port, 1) as (alone,):
            assert closed_by_server(alone)
        assert time.monotonic() - started >= IDLE_S  # closed by the idle timeout, not before it
        assert session.get("/").status == 200


def test_running_out_of_descriptors_logs_one_line_not_a_traceback_per_failed_accept(demo: Path) -> None:
    with live_dashboard(demo, "--max-connections", "1000", nofile=NOFILE) as live:
        session = Session(live).login()
        assert session.get("/search?q=momentum").status == 200  # the index is loaded: no file opens in the flood
        with idle_connections(live.port, FLOOD):
            live.wait_for("out of descriptors")
            during = live.log()
        assert session.get("/").status == 200  # the flood is gone: accepting works again
    assert "Traceback" not in during, during
    assert len(during.encode()) < 16_000
    assert sum("out of descriptors" in line for line in during.splitlines()) <= 3
