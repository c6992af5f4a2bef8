"""Tether resolvers: deterministic checks that turn a tether into a :class:`TetherCheck`.

One resolver per :class:`TetherKind`, each a plain object with
``check(tether) -> TetherCheck`` built from the data it needs. A
:class:`Resolvers` table holds one per kind, so the navigation engine can be
handed a different set in tests; :func:`workspace_resolvers` builds the real
set for a workspace from its loaded nodes.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from adapters.base import Node, Tether, TetherCheck, TetherKind
from adapters.resolvers.citation import CitationResolver, SourceRecord, normalise_quote, source_records
from adapters.resolvers.content_hash import ContentHashResolver, sha256_file
from adapters.resolvers.git_pin import GitLookup, GitPinResolver, GitRepoLookup
from adapters.resolvers.run import SEVERITY, RunResolver, worst

__all__ = [
    "SEVERITY",
    "CitationResolver",
    "ContentHashResolver",
    "GitLookup",
    "GitPinResolver",
    "GitRepoLookup",
    "Resolvers",
    "RunResolver",
    "SourceRecord",
    "TetherResolver",
    "committed_runs",
    "feeds_resolvers",
    "normalise_quote",
    "renewed_resolvers",
    "resolve",
    "run_hashes",
    "sha256_file",
    "source_records",
    "workspace_resolvers",
    "worst",
]


class TetherResolver(Protocol):
    """Anything that can check one kind of tether."""

    def check(self, tether: Tether) -> TetherCheck: ...


@dataclass(frozen=True)
class Resolvers:
    """The resolver for each tether kind; a kind without one is ``unverifiable``."""

    by_kind: Mapping[TetherKind, TetherResolver] = field(default_factory=dict)

    def resolve(self, tether: Tether) -> TetherCheck:
        resolver = self.by_kind.get(tether.kind)
        if resolver is None:
            return TetherCheck(tether, "unverifiable", f"no resolver for {tether.kind.value} tethers")
        return resolver.check(tether)


def resolve(tether: Tether, resolvers: Resolvers) -> TetherCheck:
    """Check one tether with the injected resolver set."""
    return resolvers.resolve(tether)


def run_hashes(nodes: Iterable[Node]) -> dict[str, tuple[Tether, ...]]:
    """Run id -> the content-hash tethers of its inputs and outputs, from the runs store's nodes."""
    table: dict[str, tuple[Tether, ...]] = {}
    for node in nodes:
        if node.family == "data" and node.type == "run":
            ident = str(node.meta.get("id", node.address.rsplit(":", 1)[-1]))
            table[ident] = tuple(t for t in node.tethers if t.kind is TetherKind.CONTENT_HASH)
    return table


def committed_runs(nodes: Iterable[Node]) -> frozenset[str]:
    """The ids of the runs whose files are pinned in git (the stores mark them ``committed``)."""
    return frozenset(
        str(node.meta.get("id", node.address.rsplit(":", 1)[-1]))
        for node in nodes
        if node.family == "data" and node.type == "run" and node.meta.get("committed") is True
    )


def workspace_resolvers(workspace_root: Path, repo_path: Path | None, nodes: Iterable[Node]) -> Resolvers:
    """The real resolvers for a workspace: git pins against ``repo_path``, hashes against the disk,
    runs and citations against the run and source nodes among ``nodes``."""
    loaded = list(nodes)
    return _assembled(
        workspace_root, repo_path, run_hashes(loaded), committed_runs(loaded), source_records(loaded, workspace_root)
    )


def feeds_resolvers(node: Node) -> bool:
    """Whether ``node`` is one :func:`workspace_resolvers` builds its tables from (a run or a source record)."""
    return (node.family == "data" and node.type == "run") or (node.family == "zk" and node.type == "source")


def renewed_resolvers(earlier: Resolvers, workspace_root: Path, repo_path: Path | None) -> Resolvers:
    """:func:`workspace_resolvers` over the same run and source nodes as ``earlier``, without walking every node.

    For a reload in which no node :func:`feeds_resolvers` changed: the tables are the earlier ones (read-only),
    every resolver is new, so nothing an earlier check cached (a file's hash, a cached text) is carried over.
    """
    runs, citations = earlier.by_kind[TetherKind.RUN], earlier.by_kind[TetherKind.CITATION]
    if not isinstance(runs, RunResolver) or not isinstance(citations, CitationResolver):
        raise TypeError("renewed_resolvers needs resolvers made by workspace_resolvers")
    return _assembled(workspace_root, repo_path, runs.run_hashes, runs.committed, citations.sources)


def _assembled(
    workspace_root: Path,
    repo_path: Path | None,
    hashes: Mapping[str, Sequence[Tether]],
    committed: Collection[str],
    sources: Mapping[tuple[str, str], SourceRecord],
) -> Resolvers:
    content = ContentHashResolver(workspace_root)
    git = GitPinResolver(GitRepoLookup(repo_path, workspace_root) if repo_path is not None else None)
    return Resolvers(
        {
            TetherKind.GIT_PIN: git,
            TetherKind.CONTENT_HASH: content,
            TetherKind.RUN: RunResolver(hashes, content, committed),
            TetherKind.CITATION: CitationResolver(sources),
        }
    )
