"""The typed failures of Synapse, one class per failure class.

They are raised by the library and mapped to public JSON (and CLI exit codes)
in exactly one place each: the dispatcher for the MCP tool, ``cli.py`` for the
command line. ``kind`` is the stable public name of the class.
"""

from __future__ import annotations


class SynapseError(Exception):
    """Base of every expected failure; ``kind`` names it publicly."""

    kind = "error"
    exit_code = 1
    hint = ""
    """What a person can try next, shown after the message by the CLI (never in the public JSON)."""

    def __init__(self, message: str, **detail: object) -> None:
        super().__init__(message)
        self.message = message
        self.detail = detail


class InvalidInput(SynapseError):
    """A caller-supplied value is of the wrong type or outside its domain."""

    kind = "invalid_input"
    exit_code = 2


class ConfigError(InvalidInput):
    """``.synapse/config.yaml`` is unreadable or invalid; names the key and file."""

    kind = "config_error"
    hint = "fix the named key in .synapse/config.yaml"


class WorkspaceError(InvalidInput):
    """No usable workspace at the given root."""

    kind = "workspace_error"


class PathOutsideWorkspace(InvalidInput):
    """A path or id would read outside the workspace (traversal, escaping symlink, a symlink in the cache)."""

    kind = "path_outside_workspace"


class NotFound(InvalidInput):
    """An id or address that resolves to nothing."""

    kind = "not_found"
    hint = "`synapse search QUERY` lists the ids that exist"


class TurnInvalid(InvalidInput):
    """A pending-turn token this server did not issue, altered, unreadable, or whose record is gone or changed."""

    kind = "turn_invalid"
    hint = "ask the question again: navigate with question=… starts a new turn"


class TurnExpired(InvalidInput):
    """A pending-turn token past its expiry (``navigate.turn_ttl_s``)."""

    kind = "turn_expired"
    hint = "ask the question again: navigate with question=… starts a new turn"


class TurnUsed(InvalidInput):
    """A pending-turn token whose step was already answered: each step takes exactly one reply."""

    kind = "turn_used"
    hint = "continue with the newest turn token, or ask the question again"


class WriteRefused(SynapseError):
    """A write was asked of a write-free server."""

    kind = "write_refused"
    exit_code = 2
    hint = "--write-free, SYNAPSE_WRITE_FREE=1 or write_free: true in the config made this run write-free"


class IndexUnavailable(SynapseError):
    """The shared index database cannot be reached or refused an operation; the message never holds the DSN."""

    kind = "index_unavailable"
    hint = "check that the index database is running and reachable"


def typed(exc: BaseException) -> SynapseError | None:
    """The typed error an adapter's own failure stands for, or None for a genuine bug.

    Adapters sit below this package and cannot raise its classes; the index backend raises its own
    ``IndexUnavailable`` (always DSN-free) when a shared database goes away in the middle of a session, and
    the cache writers ``CacheLinkRefused`` when a symlink sits where the cache keeps a folder or file.
    Every boundary that maps errors asks here before it calls a failure internal.
    """
    from adapters.cache_files import CacheLinkRefused
    from adapters.index.pg_errors import IndexUnavailable as BackendUnavailable

    if isinstance(exc, SynapseError):
        return exc
    if isinstance(exc, BackendUnavailable):
        return IndexUnavailable(exc.message)
    if isinstance(exc, CacheLinkRefused):  # a symlink a repository ships in its cache folder
        return PathOutsideWorkspace(exc.message, path=exc.where)
    return None
