"""build: (re)build a typed practice <-> canon overlay, the only Synapse write (``.synapse/links/`` alone).

The dispatcher refuses it on a write-free server before this module runs
(``writes=True`` on the spec); ``build_overlay`` checks again before it opens
anything, so even a direct call writes nothing. It runs with the server's open
index and loaded stores and reports progress to the client while it types the
candidate pairs. Readers (connections, matrix, synthesize, debate, search's
expansion) open the overlay file on every call, so they see the new links at once.
"""

from __future__ import annotations

from pydantic import Field

from synapse_server.actions.base import ActionSpec
from synapse_server.actions.deps import Deps
from synapse_server.actions.overlay_params import Kind, ScopedParams
from synapse_server.context.progress import Update, run_with_progress
from synapse_server.overlay.build import MIN_CONFIDENCE, BuildReport, build_overlay, typer_model


class BuildParams(ScopedParams):
    kind: Kind = Field("generic", description='which overlay to build: generic, or claim ("build the claim links")')
    min_confidence: float | None = Field(
        None,
        ge=0.0,
        le=1.0,
        description=f"keep edges whose typer confidence is at least this (0-1; default {MIN_CONFIDENCE})",
    )


class BuildOutput(BuildReport):
    """The build report plus the tool's ``summary``."""

    summary: str


def build(deps: Deps, params: BuildParams, update: Update) -> BuildOutput:
    """Build under the store lock; ``update`` only queues progress, so holding the lock while reporting is safe."""

    def progress(done: int, total: int, message: str) -> None:
        # build_overlay reports (0, 0) while it opens the index, then (k, n) over n pairs; MCP wants progress to
        # rise with every notification, so opening the index counts as step 1 of n + 1.
        if total == 0:
            update(0, None, message)
        else:
            update(done + 1, total + 1, message)

    with deps.index_lock, deps.lock:  # index_lock first, as Deps.index() requires
        workspace = deps.workspace()
        report = build_overlay(
            workspace,
            deps.stores(),
            deps.embedder,
            kind=params.kind,
            model=typer_model(workspace, deps.settings.model),
            min_confidence=MIN_CONFIDENCE if params.min_confidence is None else params.min_confidence,
            projects=params.projects,
            write_free=deps.write_free(),
            index=deps.index(),
            progress=progress,
        )
    return BuildOutput(summary=_summary(report), **report.model_dump())


async def handle(params: BuildParams, deps: Deps) -> BuildOutput:
    return await run_with_progress(lambda update: build(deps, params, update))


def _summary(report: BuildReport) -> str:
    relations = ", ".join(f"{n} {r}" for r, n in report.relations.items()) or "no relations"
    if report.bases:
        relations += " (" + ", ".join(f"{n} {b}" for b, n in report.bases.items()) + ")"
    return (
        f"{report.kind} overlay: {report.kept} links kept of {report.typed} typed ({report.candidates} candidates, "
        f"{report.skipped} skipped) by {report.typer}: {relations}; written to {report.path}"
    )


SPEC = ActionSpec(
    params=BuildParams,
    handler=handle,
    does="(Re)build the typed practice <-> canon overlay: candidate memory/zettelkasten pairs from nearest "
    "neighbours and shared code paths, each typed with a relation and a confidence. The only write, and only to "
    '.synapse/links/; refused on a write-free server. kind="claim" builds the claim-aligned overlay that synthesize '
    'and debate read (when the user says "build the claim links", "align practice to claims"). Reports progress.',
    say=(
        "synthesize",
        "connect practice to canon",
        "build the synapse links",
        "cross-link memory and the zettelkasten",
    ),
    writes=True,
)
