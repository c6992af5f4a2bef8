"""What every read-only lens over the overlay shares: opening it, naming stores, choosing a model.

The lenses (matrix, synthesize, debate, frame) each report the overlay's
drift next to their result, tag every address by store and tier, and use the
configured model only when it is a real one: under ``extractive`` each lens
falls back to an honest deterministic assembly instead of asking the offline
navigator for prose it cannot write.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Annotated, Any, Literal, TypeVar, overload

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from synapse_server.errors import InvalidInput
from synapse_server.language.atoms import sentence_units
from synapse_server.models import Model, model_spec_from, parse_model_spec, resolve_model
from synapse_server.models.spec import NO_MODEL_OUTSIDE_NAVIGATE
from synapse_server.names import check_project_names
from synapse_server.overlay.model import Drift, OverlayKind
from synapse_server.overlay.store import OverlayState, read_overlay
from synapse_server.workspace.config import Workspace
from synapse_server.workspace.stores import Stores

__all__ = [
    "EXTRACTIVE",
    "LensResult",
    "ModelInfo",
    "OverlayInfo",
    "ProjectScope",
    "first_sentence",
    "lens_model",
    "negative_is_default",
    "open_overlay",
    "params_from",
    "scope_of",
    "store_of",
    "tier_of",
]


P = TypeVar("P", bound=BaseModel)

ProjectScope = Annotated[list[str] | None, AfterValidator(check_project_names)]
"""A call's zk project list: None = the config scope, [] = memory only; each name a plain address segment."""
MAX_PROJECTS = 64


class LensResult(BaseModel):
    """Base of every lens's own result: a one-line ``summary`` first, frozen, unknown fields refused.

    The lenses sit below the action layer and must not know it; the actions
    return these as they are, and the CLI and the dashboard render them.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    summary: str = Field(..., description="one line for a human reader")


class ModelInfo(BaseModel):
    """Who wrote a lens's prose, reported honestly (``extractive`` when no model did)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    provider: str
    id: str


EXTRACTIVE = ModelInfo(provider="extractive", id="extractive (assembled from retrieved material; no model)")


class OverlayInfo(BaseModel):
    """The overlay a lens read and whether it still describes the stores."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: OverlayKind
    drift: Drift
    detail: str
    path: str
    typer: str | None = None
    links: int = Field(0, description="edges in the file (before any project filter)")


def open_overlay(workspace: Workspace, stores: Stores, kind: OverlayKind) -> tuple[OverlayState, OverlayInfo]:
    """Read one overlay against the loaded stores; a missing or invalid one is reported, never raised."""
    state = read_overlay(workspace, kind, stores=stores)
    overlay = state.overlay
    info = OverlayInfo(
        kind=kind,
        drift=state.drift,
        detail=state.detail,
        path=state.path,
        typer=overlay.typer if overlay else None,
        links=len(overlay.links) if overlay else 0,
    )
    return state, info


def lens_model(
    workspace: Workspace, spec: str | None, model: Model | None, env: Mapping[str, str] | None = None
) -> Model | None:
    """The model a lens should ask, or None under ``extractive`` (the lens then assembles deterministically).

    ``model`` (an injected provider, e.g. a test fake) wins; otherwise CLI/server
    ``spec`` over env ``SYNAPSE_MODEL`` over config ``model:``. A bad spec raises.
    """
    if model is not None:
        return model
    text = model_spec_from(workspace.config.model, os.environ if env is None else env, spec)
    parsed = parse_model_spec(text)
    if parsed.provider in NO_MODEL_OUTSIDE_NAVIGATE:
        return None
    return resolve_model(parsed, cwd=workspace.root, env=env)


def scope_of(workspace: Workspace, projects: list[str] | None) -> list[str]:
    """The zk projects in scope: the call's list, else the config's; ``[]`` = memory only."""
    return workspace.scoped_projects(projects)


def store_of(address: str) -> Literal["memory", "zk"]:
    return "memory" if address.startswith("mem:") else "zk"


Tier = Literal["practice", "canon"]
_TIERS: dict[str, Tier] = {"memory": "practice", "zk": "canon"}


@overload
def tier_of(family: Literal["memory", "zk"]) -> Tier: ...
@overload
def tier_of(family: str) -> Tier | None: ...
def tier_of(family: str) -> Tier | None:
    """Practice (the memory tree) vs canon (the zettelkasten); code and data have no tier."""
    return _TIERS.get(family)


def first_sentence(body: str) -> str:
    """The first sentence (or list item) of a Markdown body, formatting removed; '' for an empty body."""
    units = sentence_units(body)
    return units[0].text.strip() if units else ""


def negative_is_default(value: Any) -> Any:
    """Public numeric knobs follow the tool's convention: a negative value means "use the default"."""
    if isinstance(value, int | float) and not isinstance(value, bool) and value < 0:
        return None
    return value


def params_from(model: type[P], values: Mapping[str, Any]) -> P:
    """Validate public parameters once; the first error becomes :class:`InvalidInput` naming the parameter."""
    try:
        return model.model_validate(dict(values))
    except ValidationError as error:
        first = error.errors()[0]
        parameter = ".".join(str(p) for p in first["loc"]) or "(parameters)"
        raise InvalidInput(f"{parameter}: {first['msg']}", parameter=parameter) from None
