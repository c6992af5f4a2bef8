"""Candidate practice -> canon pairs from the two hands-off signals the seed names.

1. **Semantic neighbours.** Memory and the zettelkasten share one embedding
   space, so a memory entry's nearest zettelkasten notes by cosine are found
   with the vectors the index already holds (no model work). The cosine is
   recorded on the pair: the offline typer uses it as its confidence.
2. **Shared provenance.** A memory entry pinned to (or citing) a code path
   that a note declares in ``files`` (or cites as ``repo:`` address) is about
   the same code. This channel does not depend on wording, which is why the
   claim overlay leans on it: a terse decision and a formal claim rarely read
   alike even when they are about the same model.

The two are unioned per pair with the channels that found it. ``kind="claim"``
narrows both endpoints (canon: claim/finding notes; practice:
decision/experiment/checkpoint entries) and overfetches neighbours (4 x k):
recall is the risk on that path, and the typer's confidence gate, not the
neighbour cut, should decide what survives. The type filter is applied inside
the index's ranking (a mask over the vector matrix), so all 4 x k neighbours
are claims or findings instead of whatever survives filtering an unfiltered
top list. Pairs come out ordered practice first, then ``cross`` (multi-source)
claims before single-source ones, then by similarity: the order the typer
visits them in.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from adapters.base import Node
from adapters.ids import decode_id
from adapters.index.documents import ChannelHit
from synapse_server.overlay.model import Channel, OverlayKind

__all__ = [
    "CLAIM_CANON_TYPES",
    "CLAIM_OVERFETCH",
    "CLAIM_PRACTICE_KINDS",
    "NEIGHBOURS",
    "Candidate",
    "Endpoints",
    "NeighbourIndex",
    "PairEvidence",
    "code_paths",
    "endpoints",
    "find_candidates",
    "shared_provenance",
]

NEIGHBOURS = 5
"""Semantic neighbours per memory entry (k)."""

CLAIM_OVERFETCH = 4
"""The claim path asks for this many times k neighbours."""

CLAIM_CANON_TYPES: tuple[str, ...] = ("claim", "finding")
CLAIM_PRACTICE_KINDS: tuple[str, ...] = ("decision", "experiment", "checkpoint")
NON_NOTE_TYPES: frozenset[str] = frozenset({"source", "tag"})
"""Zettelkasten nodes that are bibliographic records or an adopted vault's tag lists, not notes: never endpoints."""

SIMILARITY_DIGITS = 4
"""Cosines are rounded so a rebuild on another machine (other BLAS, other float noise) writes the same bytes."""


class NeighbourIndex(Protocol):
    """What candidates need from the hybrid index: nearest neighbours of an indexed doc by its stored vector."""

    def similar(
        self,
        address: str,
        limit: int = 10,
        *,
        families: Collection[str] | None = None,
        projects: Collection[str] | None = None,
        types: Collection[str] | None = None,
    ) -> list[ChannelHit]: ...


@dataclass(frozen=True, slots=True)
class PairEvidence:
    """Why a pair is a candidate: the channels that found it, the cosine (if indexed) and the shared code paths."""

    channels: tuple[Channel, ...]
    similarity: float | None
    shared_paths: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Candidate:
    practice: str
    canon: str
    evidence: PairEvidence
    cross: bool = False


@dataclass(frozen=True, slots=True)
class Endpoints:
    """The practice rows and canon columns an overlay of one kind and scope may link."""

    practice: tuple[Node, ...]
    canon: tuple[Node, ...]


def endpoints(nodes: Mapping[str, Node], kind: OverlayKind, projects: Iterable[str]) -> Endpoints:
    """Memory entries and in-scope notes, narrowed to the comparable registers for the claim overlay."""
    scope = set(projects)
    practice = [n for n in nodes.values() if n.family == "memory"]
    canon = [
        n
        for n in nodes.values()
        if n.family == "zk" and n.address.split(":", 2)[1] in scope and n.type not in NON_NOTE_TYPES
    ]
    if kind == "claim":
        practice = [n for n in practice if n.type in CLAIM_PRACTICE_KINDS]
        canon = [n for n in canon if n.type in CLAIM_CANON_TYPES]
    return Endpoints(tuple(sorted(practice, key=_address)), tuple(sorted(canon, key=_address)))


def code_paths(node: Node) -> frozenset[str]:
    """Repository paths a node is about: memory pins and cited ``repo:`` paths, a note's ``files``."""
    paths = {decode_id(e.dst.split(":", 2)[2]) for e in node.edges if e.dst.startswith("repo:") and e.rel in _CODE_RELS}
    if node.family == "zk":
        paths.update(str(p) for p in node.meta.get("files") or ())
    return frozenset(p for p in paths if p)


_CODE_RELS = frozenset({"pins", "cites", "files"})


def shared_provenance(practice: Sequence[Node], canon: Sequence[Node]) -> dict[tuple[str, str], tuple[str, ...]]:
    """Every (practice, canon) pair sharing at least one code path, with the shared paths (sorted)."""
    notes_by_path: dict[str, list[str]] = {}
    for note in canon:
        for path in code_paths(note):
            notes_by_path.setdefault(path, []).append(note.address)
    pairs: dict[tuple[str, str], set[str]] = {}
    for entry in practice:
        for path in code_paths(entry):
            for note_address in notes_by_path.get(path, ()):
                pairs.setdefault((entry.address, note_address), set()).add(path)
    return {key: tuple(sorted(paths)) for key, paths in sorted(pairs.items())}


def find_candidates(
    index: NeighbourIndex,
    nodes: Mapping[str, Node],
    kind: OverlayKind,
    projects: Sequence[str],
    neighbours: int = NEIGHBOURS,
) -> list[Candidate]:
    """The union of semantic neighbours and shared-provenance pairs for one overlay kind and scope."""
    ends = endpoints(nodes, kind, projects)
    if not ends.practice or not ends.canon:
        return []
    canon = {n.address: n for n in ends.canon}
    types = sorted({n.type for n in ends.canon})
    provenance = shared_provenance(ends.practice, ends.canon)
    partners: dict[str, set[str]] = {}
    for practice_address, canon_address in provenance:
        partners.setdefault(practice_address, set()).add(canon_address)
    depth = neighbours * (CLAIM_OVERFETCH if kind == "claim" else 1)
    out: list[Candidate] = []
    for entry in ends.practice:
        wanted = partners.get(entry.address, set())
        hits = index.similar(entry.address, depth, families=("zk",), projects=projects, types=types)
        near = [h.address for h in hits if h.address in canon]
        cosine = {h.address: h.score for h in hits if h.address in canon}
        if wanted - cosine.keys():
            # A provenance partner outside the neighbourhood: rank every canon note once so it gets its cosine too.
            ranked = index.similar(entry.address, len(canon), families=("zk",), projects=projects, types=types)
            cosine.update((h.address, h.score) for h in ranked if h.address in wanted)
        for note in sorted(set(near) | wanted):
            channels: list[Channel] = []
            if note in near:
                channels.append("semantic")
            if note in wanted:
                channels.append("provenance")
            score = cosine.get(note)
            similarity = None if score is None else round(score, SIMILARITY_DIGITS)
            evidence = PairEvidence(tuple(channels), similarity, provenance.get((entry.address, note), ()))
            out.append(Candidate(entry.address, note, evidence, bool(canon[note].meta.get("cross"))))
    out.sort(key=lambda c: (c.practice, not c.cross, -(c.evidence.similarity or 0.0), c.canon))
    return out


def _address(node: Node) -> str:
    return node.address
