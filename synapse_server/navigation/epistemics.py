"""Engine-owned status: derived from tether checks, never from the model.

Each verified tether supports a tier (a git pin or citation -> grounded, a
content hash or reproducible run -> measured). A node's status is the weakest
tier among its tethers; any taint (stale, unresolved, refuted, contested)
floors it to ``inferred``; an unverifiable tether supports nothing. ``outdated``
keeps the status and obliges the canonical disclosure.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from adapters.base import Node, TetherCheck, TetherKind

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
    return NodeEpistemics(node.address, status, tether_status, frozenset(taints), outdated, tuple(checks))
