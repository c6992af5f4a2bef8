"""Source stores -> addressable nodes with tethers and edges.

Import-light on purpose: no torch, no index. GitPython is imported only by the
code adapter and the git-pin resolver, and the readers load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

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

_LAZY = {
    "CodeAdapter": "adapters.code",
    "MemoryAdapter": "adapters.memory",
    "RunsAdapter": "adapters.runs",
    "ZettelkastenAdapter": "adapters.zettelkasten",
    "ZkProject": "adapters.zettelkasten",
    "ContestedClaim": "adapters.zk_debate",
    "DebateMap": "adapters.zk_debate",
    "load_debate": "adapters.zk_debate",
}
"""Names whose modules load on first use, so importing ``adapters.base`` (the node types every layer shares)
does not pull in the readers and, through them, GitPython."""


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'adapters' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
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
