"""Source stores -> addressable nodes with tethers and edges.

Import-light on purpose: no torch, no index. GitPython is imported only by the
code adapter and the git-pin resolver.
"""

from __future__ import annotations

from adapters.base import (
    Adapter,
    Diagnostic,
    Edge,
    Family,
    LoadResult,
    Node,
    ResolverState,
    Severity,
    Tether,
    TetherCheck,
    TetherKind,
)
from adapters.code import CodeAdapter
from adapters.memory import MemoryAdapter
from adapters.runs import RunsAdapter
from adapters.zettelkasten import ZettelkastenAdapter, ZkProject
from adapters.zk_debate import ContestedClaim, DebateMap, load_debate

__all__ = [
    "Adapter",
    "CodeAdapter",
    "ContestedClaim",
    "DebateMap",
    "Diagnostic",
    "Edge",
    "Family",
    "LoadResult",
    "MemoryAdapter",
    "Node",
    "ResolverState",
    "RunsAdapter",
    "Severity",
    "Tether",
    "TetherCheck",
    "TetherKind",
    "ZettelkastenAdapter",
    "ZkProject",
    "load_debate",
]
