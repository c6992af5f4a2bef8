"""Grounded per-cell briefs over the claim overlay's highest-value cells (the ``synthesize`` action).

A cell is high-value when a strong claim meets a high-confidence relation, or
when the relation is a contradiction (any confidence: tension is what a
reader most needs to see). Cells are taken in priority order, the claim
overlay's blend of typer confidence and claim strength.

Each brief is one to three sentences: what the practice did, what the canon
claim asserts, and the agreement or tension between them. It cites the memory
entry id and quotes only the claim's retrieved verbatim quotes (a quote its
citation check refuted is never offered). Under ``extractive`` the brief is
assembled deterministically from the memory entry's first sentence, the
claim's best-matching quote and the relation; with a model it is the model's
text. Every brief then goes through the traceability verifier and is flagged,
never rewritten, when something in it does not trace to that material.

A link whose only evidence is a shared file (basis ``shared-file``) was never
judged, so its brief states no relation: it says the two are tied by that file
and nothing more, and its ``verified`` covers only what it quotes
(``verified_for: quotes``), which the CLI and the dashboard print as such.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from adapters.base import Node, TetherKind
from adapters.resolvers import Resolvers
from synapse_server.language.text import normalise_words
from synapse_server.models import Model, ModelBadResponse
from synapse_server.overlay.lens import (
    EXTRACTIVE,
    MAX_PROJECTS,
    LensResult,
    ModelInfo,
    OverlayInfo,
    ProjectScope,
    first_sentence,
    lens_model,
    negative_is_default,
    open_overlay,
    scope_of,
)
from synapse_server.overlay.model import Basis, Link, Overlay, Relation
from synapse_server.overlay.verifier import BLIND_SPOTS, BriefMaterial, TraceFailure, verify_brief
from synapse_server.workspace.config import Workspace
from synapse_server.workspace.stores import Stores

if TYPE_CHECKING:
    from adapters.index.embedder import TextEncoder

__all__ = [
    "HIGH_CONFIDENCE",
    "Brief",
    "CellMaterial",
    "QuoteRef",
    "SynthesizeParams",
    "SynthesizeResult",
    "brief_mark",
    "extractive_brief",
    "high_value_cells",
    "run_synthesize",
    "write_brief",
]

HIGH_CONFIDENCE = 0.6
"""Default typer confidence at which a relation to a strong claim counts as high-value."""
DEFAULT_BRIEFS = 10
BRIEF_MAX_TOKENS = 300

_RELATION_SENTENCE: dict[str, str] = {
    "contradicts": "The practice contradicts this claim: a practice-canon tension.",
    "corroborates": "The practice corroborates this claim.",
    "applies": "The practice applies this claim.",
    "instantiates": "The practice instantiates this claim.",
    "motivated-by": "The practice was motivated by this claim.",
    "related": "The practice is related to this claim; no stronger relation was typed.",
}
_SYSTEM = (
    "You write grounded briefs comparing a project's practice with a canon claim. Use only the material given. "
    "Quote only the listed quotes, verbatim, in double quotes. Never introduce a figure that is not in the material."
)


class SynthesizeParams(BaseModel):
    """What ``synthesize`` takes; ``model`` is a server/CLI setting, never a public tool parameter."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["claim"] = Field("claim", description="briefs read the claim-aligned overlay only")
    projects: ProjectScope = Field(
        None, max_length=MAX_PROJECTS, description="zk projects in scope; None = config scope, [] = memory only"
    )
    min_confidence: float | None = Field(
        None, ge=0.0, le=1.0, description="confidence at which a strong claim's cell is high-value; negative = 0.6"
    )
    limit: int | None = Field(None, ge=1, le=200, description="most briefs to write; negative = 10")
    model: str | None = Field(None, description="model spec for briefs (hidden from the tool)")

    _defaults = field_validator("min_confidence", "limit", mode="before")(negative_is_default)


class QuoteRef(BaseModel):
    """A claim quote as retrieved from the note's citation, with what its citation check found."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    source: str
    locator: str | None
    text: str
    check: Literal["ok", "unverifiable"]


class Brief(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    practice: str
    canon: str
    memory_id: str
    relation: Relation
    confidence: float
    priority: float
    claim_strength: Literal["strong", "moderate", "weak"] | None
    why: Literal["contradiction", "strong-claim"] = Field(description="what made the cell high-value")
    text: str = Field(description="the brief exactly as written (extractive assembly or the model's text)")
    mode: Literal["model", "extractive"]
    quotes: list[QuoteRef] = Field(description="the retrieved quotes the brief was given")
    verified: bool
    basis: Basis = Field("judged", description="what the link rests on: judged, cosine, or shared-file only")
    verified_for: Literal["brief", "quotes"] = Field(
        "brief", description="what verified covers: the whole brief, or only its quotes (a shared-file link)"
    )
    failures: list[TraceFailure] = Field(default_factory=list, description="what did not trace; empty when verified")


class SynthesizeResult(LensResult):
    overlay: OverlayInfo
    projects: list[str]
    model: ModelInfo
    high_value: int = Field(description="high-value cells in scope (briefs cover the first `limit`)")
    briefs: list[Brief]
    blind_spots: list[str] = Field(description="what verified=true does not rule out")


@dataclass(frozen=True)
class CellMaterial:
    """Everything a brief about one cell may draw on, retrieved from the stores."""

    link: Link
    memory_id: str
    memory: Node | None
    claim: Node | None
    quotes: tuple[QuoteRef, ...]

    def verification_material(self) -> BriefMaterial:
        memory_texts = (self.memory.title, self.memory.body) if self.memory else ()
        claim_texts = (self.claim.title, self.claim.body) if self.claim else ()
        quotes = tuple(q.text for q in self.quotes)
        identifiers: tuple[str, ...] = (self.link.practice, self.link.canon, self.link.canon.rsplit(":", 1)[-1])
        identifiers += tuple(q.source for q in self.quotes)
        verbatim = quotes + ((self.memory.body,) if self.memory else ())
        return BriefMaterial(self.memory_id, (*memory_texts, *claim_texts, *quotes), verbatim, identifiers)


def run_synthesize(
    workspace: Workspace,
    stores: Stores,
    embedder: TextEncoder | None,
    params: SynthesizeParams,
    *,
    model: Model | None = None,
) -> SynthesizeResult:
    """Briefs for the claim overlay's high-value cells, each verified; ``embedder`` is unused."""
    projects = scope_of(workspace, params.projects)
    state, info = open_overlay(workspace, stores, "claim")
    chosen = lens_model(workspace, params.model, model)
    model_info = EXTRACTIVE if chosen is None else ModelInfo(provider=chosen.identity.provider, id=chosen.identity.id)
    if state.overlay is None:
        return SynthesizeResult(
            summary=f"no briefs: {info.detail}",
            overlay=info,
            projects=projects,
            model=model_info,
            high_value=0,
            briefs=[],
            blind_spots=list(BLIND_SPOTS),
        )
    threshold = HIGH_CONFIDENCE if params.min_confidence is None else params.min_confidence
    cells = high_value_cells(state.overlay, projects, threshold)
    briefs = [
        write_brief(cell_material(link, stores.nodes, stores.resolvers), chosen)
        for link in cells[: params.limit or DEFAULT_BRIEFS]
    ]
    flagged = sum(not brief.verified for brief in briefs)
    quotes_only = sum(brief.verified and brief.verified_for == "quotes" for brief in briefs)
    drift = "" if info.drift == "fresh" else f"; overlay {info.drift}"
    summary = f"{len(briefs)} brief(s) over {len(cells)} high-value cell(s): {len(briefs) - flagged - quotes_only} "
    summary += f"verified, {quotes_only} with only their quotes verified (shared-file link), {flagged} flagged{drift}"
    return SynthesizeResult(
        summary=summary,
        overlay=info,
        projects=projects,
        model=model_info,
        high_value=len(cells),
        briefs=briefs,
        blind_spots=list(BLIND_SPOTS),
    )


def high_value_cells(overlay: Overlay, projects: Sequence[str] | None, threshold: float) -> list[Link]:
    """Contradictions and strong claims at ``threshold`` confidence or more, by priority (then address)."""
    chosen = [
        link
        for link in overlay.links
        if (projects is None or link.canon.split(":", 2)[1] in projects)
        and (link.relation == "contradicts" or (link.claim_strength == "strong" and link.confidence >= threshold))
    ]
    return sorted(chosen, key=lambda link: (-_priority(link), link.practice, link.canon))


def cell_material(link: Link, nodes: Mapping[str, Node], resolvers: Resolvers) -> CellMaterial:
    """The memory entry, the claim note and the claim's quotes whose citation check did not refute them."""
    memory, claim = nodes.get(link.practice), nodes.get(link.canon)
    memory_id = str(memory.meta.get("id")) if memory and memory.meta.get("id") else link.practice.rsplit(":", 1)[-1]
    quotes: list[QuoteRef] = []
    for tether in claim.tethers if claim else ():
        if tether.kind is not TetherKind.CITATION or not tether.quote:
            continue
        outcome = resolvers.resolve(tether).outcome
        if outcome != "failed":
            quotes.append(QuoteRef(source=tether.target, locator=tether.ref, text=tether.quote, check=outcome))
    return CellMaterial(link, memory_id, memory, claim, tuple(quotes))


def write_brief(material: CellMaterial, model: Model | None) -> Brief:
    """Write (extractive or model) and verify one brief; the text is kept exactly as written."""
    text = extractive_brief(material) if model is None else _model_brief(material, model)
    verdict = verify_brief(text, material.verification_material())
    link = material.link
    return Brief(
        practice=link.practice,
        canon=link.canon,
        memory_id=material.memory_id,
        relation=link.relation,
        confidence=link.confidence,
        priority=_priority(link),
        claim_strength=link.claim_strength,
        why="contradiction" if link.relation == "contradicts" else "strong-claim",
        text=text,
        mode="extractive" if model is None else "model",
        quotes=list(material.quotes),
        verified=verdict.verified,
        basis=link.evidence(),
        verified_for="quotes" if link.evidence() == "shared-file" else "brief",
        failures=verdict.failures,
    )


def brief_mark(brief: Brief) -> str:
    """The label a reader sees: ``verified`` only for a whole brief; a shared-file brief's check covers its quotes."""
    if not brief.verified:
        return "FLAGGED"
    return "verified" if brief.verified_for == "brief" else "quotes verified; link: shared file only"


def extractive_brief(material: CellMaterial) -> str:
    """Three sentences from retrieved material only: the practice's first sentence, the quote, the relation."""
    memory, claim = material.memory, material.claim
    said = (first_sentence(memory.body) or memory.title) if memory else "(the entry is no longer in memory)"
    title = memory.title if memory else material.link.practice
    practice = f"Practice {material.memory_id} ({title}): {_sentence(said)}"
    claim_title = claim.title if claim else material.link.canon
    strength = f"{material.link.claim_strength} " if material.link.claim_strength else ""
    quote = best_quote(material.quotes, f"{title} {said}")
    if quote is None:
        canon = f"The {strength}canon claim {claim_title} has no retrieved verbatim quote to cite."
    else:
        canon = f'The {strength}canon claim {claim_title} asserts: "{quote.text.strip()}"'
    return f"{practice} {canon} {_link_sentence(material.link)}"


def best_quote(quotes: Sequence[QuoteRef], practice: str) -> QuoteRef | None:
    """The quote sharing the most words with the practice text; the first one on a tie."""
    words = set(normalise_words(practice))
    best: QuoteRef | None = None
    best_overlap = -1
    for quote in quotes:
        overlap = len(words & set(normalise_words(quote.text)))
        if overlap > best_overlap:
            best, best_overlap = quote, overlap
    return best


def _model_brief(material: CellMaterial, model: Model) -> str:
    link, memory, claim = material.link, material.memory, material.claim
    lines = [
        f"Write one to three sentences. Cite the memory entry id {material.memory_id} literally.",
        "State what the practice did, what the canon claim asserts, and the agreement or tension between them.",
        f"PRACTICE {material.memory_id}: {memory.title if memory else link.practice}",
        memory.body.strip() if memory else "",
        f"CANON CLAIM {link.canon} ({link.claim_strength or 'unrated'}): {claim.title if claim else link.canon}",
        claim.body.strip() if claim else "",
        "QUOTES (the only text you may quote):",
        *(f'- "{q.text.strip()}" ({q.source}{", " + q.locator if q.locator else ""})' for q in material.quotes),
        (
            f"LINK: both are tied to {', '.join(link.shared_paths) or 'the same file'} and nothing more; how they "
            "relate was not judged, so state no relation between them."
            if link.evidence() == "shared-file"
            else f"RELATION: the practice {link.relation} the claim."
        ),
    ]
    text = model.complete("\n".join(lines), system=_SYSTEM, max_tokens=BRIEF_MAX_TOKENS).text.strip()
    if not text:
        raise ModelBadResponse("the model returned an empty brief", provider=model.identity.provider)
    return text


def _link_sentence(link: Link) -> str:
    if link.evidence() != "shared-file":
        return _RELATION_SENTENCE[link.relation]
    paths = ", ".join(link.shared_paths) or "the same file"
    return f"The two are tied only by a shared file ({paths}); how the practice relates to this claim was not judged."


def _sentence(text: str) -> str:
    text = text.strip()
    return text if text.endswith((".", "!", "?")) else text + "."


def _priority(link: Link) -> float:
    return link.priority if link.priority is not None else link.confidence
