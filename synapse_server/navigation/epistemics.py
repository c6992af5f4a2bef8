"""Engine-owned status: derived from tether checks, never from the model.

Each verified tether supports a tier (a git pin or citation -> grounded, a
content hash or reproducible run -> measured). A node's status is the weakest
tier among its tethers; any taint (stale, unresolved, refuted, contested)
floors it to ``inferred``; an unverifiable tether supports nothing. ``outdated``
keeps the status and obliges the canonical disclosure. So does supersession
(:mod:`synapse_server.navigation.supersession`): a superseded, deprecated,
reverted or rejected record keeps its status, and every answer citing it carries
``<address> is superseded by <address> (status: <word>)``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from adapters.base import Node, TetherCheck, TetherKind
from synapse_server.navigation.supersession import Supersession, disclosure, supersession_of

Status = Literal["grounded", "measured", "inferred"]
Taint = Literal["stale", "unresolved", "refuted", "contested"]

STATUS_ORDER: dict[str, int] = {"inferred": 0, "measured": 1, "grounded": 2}
OUTDATED_DISCLOSURE = "grounded as of the pinned sha; the current committed file (HEAD) has since changed"

_SUPPORTS: dict[TetherKind, Status] = {
    TetherKind.GIT_PIN: "grounded",
    TetherKind.CITATION: "grounded",
    TetherKind.CONTENT_HASH: "measured",
    TetherKind.RUN: "measured",
}
_TAINT_OF_STATE: dict[str, Taint] = {"stale": "stale", "unresolved": "unresolved", "failed": "refuted"}


@dataclass(frozen=True, slots=True)
class NodeEpistemics:
    """What the engine knows about one node's standing."""

    address: str
    status: Status
    tether_status: Status  # what the tethers alone support; ``status`` also floors a contested node
    taints: frozenset[Taint]
    outdated: bool
    checks: tuple[TetherCheck, ...]
    superseded_by: tuple[str, ...] = ()
    """The records that replace this one (addresses, sorted): the offline navigator prefers those."""
    supersession: str | None = None
    """The status word that marks this record as not current (``superseded``, ``deprecated``, ``reverted``,
    ``rejected``, ``partly superseded`` …), ``superseded`` when only another record says it replaces it; None
    for a current record."""

    @property
    def superseded(self) -> bool:
        """Not the current record: it keeps its status, and an answer citing it must carry the disclosure."""
        return self.supersession is not None

    @property
    def superseded_disclosure(self) -> str | None:
        """The canonical supersession disclosure, or None for a current record."""
        if self.supersession is None:
            return None
        return disclosure(self.address, Supersession(self.supersession, self.superseded_by))

    @property
    def verified(self) -> bool:
        """Grounded or measured, and clean: the only kind of node that can license an answer."""
        return self.status != "inferred" and not self.taints


def weakest(statuses: Iterable[Status]) -> Status:
    """Weakest-link propagation; an empty input is ``inferred`` (nothing verified)."""
    ordered = sorted(statuses, key=STATUS_ORDER.__getitem__)
    return ordered[0] if ordered else "inferred"


def derive(node: Node, checks: Sequence[TetherCheck], *, contested: bool = False) -> NodeEpistemics:
    """Status, taints and the outdated flag of ``node`` from its resolved tether checks."""
    taints: set[Taint] = {t for c in checks if (t := _TAINT_OF_STATE.get(c.state)) is not None}
    if contested:
        taints.add("contested")
    supported = [c for c in checks if c.state in ("ok", "outdated")]
    if taints - {"contested"} or not checks or len(supported) != len(checks):
        tether_status: Status = "inferred"
    else:
        tether_status = weakest(_SUPPORTS[c.tether.kind] for c in supported)
    status: Status = "inferred" if taints else tether_status
    outdated = not (taints - {"contested"}) and any(c.state == "outdated" for c in checks)
    found = supersession_of(node)
    return NodeEpistemics(
        node.address,
        status,
        tether_status,
        frozenset(taints),
        outdated,
        tuple(checks),
        superseded_by=found.by if found is not None else (),
        supersession=found.word if found is not None else None,
    )
