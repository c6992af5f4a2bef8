"""The overlay's on-disk shape: ``.synapse/links/links.json`` and ``claim_links.json``.

One file per overlay kind, written only by ``build``. Each carries a schema
version, the identity of the typer that made its edges, and a signature over
the contents of both stores (and the typer), so every reader can tell when
memory or the zettelkasten has drifted since the build. Links are kept in a
deterministic order so a rebuild of unchanged stores is byte-identical.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = 1
OverlayKind = Literal["generic", "claim"]
Relation = Literal["applies", "corroborates", "contradicts", "motivated-by", "instantiates", "related"]
RELATIONS: tuple[Relation, ...] = ("applies", "corroborates", "contradicts", "motivated-by", "instantiates", "related")
Channel = Literal["semantic", "provenance"]
Basis = Literal["judged", "cosine", "shared-file"]
"""What an edge's relation rests on: ``judged`` (a model read both texts), ``cosine`` (semantic neighbours only)
or ``shared-file`` (the only evidence is that both are tied to the same code path; nobody judged the relation)."""
BASES: tuple[Basis, ...] = ("judged", "cosine", "shared-file")
FILE_OF_KIND: dict[str, str] = {"generic": "links.json", "claim": "claim_links.json"}
KINDS: tuple[OverlayKind, ...] = ("generic", "claim")
ClaimStrength = Literal["strong", "moderate", "weak"]
Drift = Literal["fresh", "drifted", "missing", "invalid"]
"""What a reader finds: ``fresh`` (signature matches the stores now), ``drifted`` (a store, the scope's
contents or the embedding model changed since the build), ``missing`` (never built), ``invalid`` (unreadable)."""


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Link(_Frozen):
    """One typed practice -> canon edge (memory entry -> zettelkasten note)."""

    practice: str = Field(description="mem:tree:<id> address of the memory entry")
    canon: str = Field(description="zk:<project>:<id> address of the note")
    relation: Relation
    confidence: float = Field(ge=0.0, le=1.0)
    rationale: str = Field(max_length=400)
    typer: str = Field(description="which typer made this edge, e.g. 'extractive-v1' or 'openai:gpt-4o'")
    channels: list[Channel]
    similarity: float | None = None
    shared_paths: list[str] = Field(default_factory=list)
    claim_strength: ClaimStrength | None = None
    priority: float | None = None
    cross: bool | None = Field(default=None, description="claim overlay: the canon is a multi-source _cross claim")
    basis: Basis | None = Field(
        default=None, description="what the relation rests on; None in files written before the field (see evidence)"
    )

    def key(self) -> tuple[str, str]:
        return (self.practice, self.canon)

    def evidence(self) -> Basis:
        """``basis``, or for an older file what its typer's rule implies (the offline typer's ``applies`` was a
        shared path, its ``related`` a cosine; any other typer read both texts)."""
        if self.basis is not None:
            return self.basis
        if not self.typer.startswith("extractive"):
            return "judged"
        return "shared-file" if self.relation == "applies" and self.shared_paths else "cosine"


class Overlay(_Frozen):
    schema_version: Literal[1] = 1
    kind: OverlayKind
    signature: str = Field(description="sha256 over both stores' contents, the scope and the typer identity")
    typer: str
    projects: list[str]
    embedding: str | None = Field(default=None, description="the embedding model the similarities came from")
    min_confidence: float = Field(ge=0.0, le=1.0)
    links: list[Link]
