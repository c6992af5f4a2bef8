"""The one error the PostgreSQL backend raises, and the guard that keeps the DSN out of it.

A driver error can quote the connection target (host, socket path, user,
database name), and a DSN may carry a password, so no driver message is ever
passed on: :func:`guarded` turns every ``psycopg`` error into
:class:`IndexUnavailable` naming only the error class and SQLSTATE, raised
``from None`` so a logged traceback does not carry the original either.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator


class IndexUnavailable(RuntimeError):
    """The shared index database cannot be reached or refused an operation (message free of the DSN)."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def describe_error(exc: BaseException) -> str:
    """``OperationalError`` or ``UndefinedTable [42P01]``: enough to act on, nothing from the DSN."""
    state = getattr(exc, "sqlstate", None)
    return f"{type(exc).__name__} [{state}]" if state else type(exc).__name__


@contextlib.contextmanager
def guarded(action: str) -> Iterator[None]:
    """Re-raise any driver error inside as :class:`IndexUnavailable` ("postgres index: <action> failed: ...")."""
    import psycopg

    try:
        yield
    except psycopg.Error as exc:
        raise IndexUnavailable(f"postgres index: {action} failed ({describe_error(exc)})") from None
