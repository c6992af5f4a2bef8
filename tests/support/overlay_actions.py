"""What the overlay action tests share: the demo's addresses, the built-overlays record, file snapshots."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DECISION = "mem:tree:deci-e17103e8"
CLAIM_ID = "20260407-1030-costs-reduce-returns"
CLAIM = f"zk:research:{CLAIM_ID}"
CONTESTED = "zk:research:20260505-0900-volatility-scaling-helps"
QUESTION = "How do transaction costs and volatility scaling affect momentum returns?"


@dataclass(frozen=True)
class Built:
    root: Path
    generic: dict[str, Any]
    claim: dict[str, Any]
    progress: list[tuple[float, float | None, str | None]]


def links_of(root: Path, name: str) -> list[dict[str, Any]]:
    links: list[dict[str, Any]] = json.loads((root / ".synapse" / "links" / name).read_text(encoding="utf-8"))["links"]
    return links


def snapshot(root: Path) -> dict[str, str]:
    """Every file outside the derived cache, hashed."""
    return {
        p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".angelo" not in p.relative_to(root).parts
    }
