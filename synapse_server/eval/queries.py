"""Labelled query sets: a query and the addresses a good retrieval should surface for it.

Format (YAML, version 1)::

    version: 1
    queries:
      - query: Why did we switch from a flat cost to spread plus impact?
        relevant: [mem:tree:deci-d4e5f607, zk:execution:20260525-0900-square-root-impact]

A set that cannot be read is an :class:`InvalidInput` naming the file and the
entry, never a silently smaller set. The demo workspace's set ships with the
package (``demo_queries.yaml``).
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from synapse_server.errors import InvalidInput

__all__ = ["DEMO_QUERIES", "LabelledQuery", "QuerySet", "load_queries", "parse_queries"]

DEMO_QUERIES = "demo_queries.yaml"


class LabelledQuery(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    query: str = Field(min_length=1)
    relevant: list[str] = Field(min_length=1, description="canonical addresses (mem:… and zk:…)")


class QuerySet(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    version: int = 1
    queries: list[LabelledQuery] = Field(min_length=1)


def load_queries(path: Path | None) -> tuple[QuerySet, str]:
    """The set at ``path``, or the shipped demo set; returns it with the name to report."""
    if path is None:
        text = resources.files("synapse_server.eval").joinpath(DEMO_QUERIES).read_text(encoding="utf-8")
        return parse_queries(text, DEMO_QUERIES), f"{DEMO_QUERIES} (shipped demo set)"
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"queries file {path}: cannot be read ({type(exc).__name__})", parameter="queries") from None
    return parse_queries(text, str(path)), str(path)


def parse_queries(text: str, name: str) -> QuerySet:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", exc)
        raise InvalidInput(f"queries file {name}: invalid YAML ({problem})", parameter="queries") from None
    try:
        return QuerySet.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise InvalidInput(f"queries file {name}: {where}: {first['msg']}", parameter="queries") from None
