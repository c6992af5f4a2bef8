"""What every store adapter produces: nodes with canonical addresses, tethers and edges.

The engine reasons over these values only; it never opens a file. Adapters do
the reading (I/O at the edge) and report a malformed file as a
:class:`Diagnostic` instead of raising, so one bad file never sinks its store.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, Protocol

Family = Literal["memory", "zk", "code", "data"]
"""memory = practice, zk = canon, code = the git repository, data = experiment runs."""

Severity = Literal["error", "warning", "info"]


class TetherKind(StrEnum):
    GIT_PIN = "git-pin"  # path@sha in the workspace repository -> can support grounded
    CONTENT_HASH = "content-hash"  # sha256 of bytes on disk -> can support measured
    RUN = "run"  # every input/output hash of a run verifies -> measured
    CITATION = "citation"  # a zk source record (+ optional verbatim quote) -> grounded


@dataclass(frozen=True, slots=True)
class Tether:
    """A machine-checkable link from a node to the bytes or record that back it.

    ``target`` is a repository path (git pin, content hash), a run id (run) or a
    source id (citation); ``ref`` is the pinned sha, the recorded sha256 or the
    citation locator; ``quote`` is a citation's verbatim quote; ``project`` the
    zettelkasten project (``alias.project`` when federated) whose sources a
    citation names.
    """

    kind: TetherKind
    target: str
    ref: str | None = None
    quote: str | None = None
    project: str | None = None


@dataclass(frozen=True, slots=True)
class Edge:
    """A typed, directed relation between two canonical addresses (as strings)."""

    src: str
    dst: str
    rel: str  # parent | child | related | cites | pins | runs | files | supports | contradicts | refines | ...


@dataclass(frozen=True, slots=True)
class Node:
    """One addressable piece of evidence.

    ``body`` is the raw text (Markdown for memory and notes). ``meta`` keeps the
    store-specific fields (tags, status, claim_strength, cross, created, ...)
    that later features read; ``path`` and ``line`` point at the source file so
    diagnostics and ``get`` can name it. ``seed_rank`` is set by retrieval.
    """

    address: str
    type: str
    title: str
    body: str
    family: Family
    provenance: tuple[str, ...] = ()
    tethers: tuple[Tether, ...] = ()
    edges: tuple[Edge, ...] = ()
    meta: Mapping[str, Any] = field(default_factory=dict)
    path: str | None = None
    line: int | None = None
    seed_rank: int | None = None


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """A problem found in a store file: ``path:line: severity[code] message``."""

    path: str
    line: int
    code: str
    message: str
    severity: Severity = "error"
    field: str | None = None

    def format(self) -> str:
        return f"{self.path}:{self.line}: {self.severity}[{self.code}] {self.message}"


@dataclass(frozen=True, slots=True)
class Skipped:
    """A file a source holds but did not read, and why.

    ``reason`` is a short phrase that groups skips (``not UTF-8``, ``a test
    fixture``, ``unreadable blob``): ``synapse lint`` and ``init --adopt``
    report skips per source grouped by it, so a user sees what was left out
    instead of a store that is silently smaller.
    """

    path: str
    reason: str


@dataclass(frozen=True, slots=True)
class LoadResult:
    """An adapter's nodes plus what it had to skip or warn about.

    ``files_read`` counts the files the adapter read (``None`` when it does not
    count: the reporter then counts the distinct files behind its nodes);
    ``skipped`` names every file it left out and why.
    """

    nodes: tuple[Node, ...]
    diagnostics: tuple[Diagnostic, ...] = ()
    files_read: int | None = None
    skipped: tuple[Skipped, ...] = ()


class Adapter(Protocol):
    """One source store. ``load`` never raises for bad content, only for I/O it cannot survive."""

    family: Family

    def load(self) -> LoadResult: ...


ResolverState = Literal["ok", "stale", "outdated", "unresolved", "failed", "unverifiable"]


@dataclass(frozen=True, slots=True)
class TetherCheck:
    """What a resolver found, with the detail a gap line needs.

    ``state`` is the precise finding; ``outcome`` collapses it onto the
    verifier contract (ok / failed / unverifiable) every verifier shares.
    ``outdated`` keeps ``ok`` (the pinned bytes are retrievable) but obliges
    the canonical disclosure.
    """

    tether: Tether
    state: ResolverState
    detail: str

    @property
    def outcome(self) -> Literal["ok", "failed", "unverifiable"]:
        if self.state in ("ok", "outdated"):
            return "ok"
        if self.state == "unverifiable":
            return "unverifiable"
        return "failed"
