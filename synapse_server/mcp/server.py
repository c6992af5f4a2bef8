"""MCP wiring only: one tool, ``synapse(action=...)``, over stdio.

The tool is registered as a :class:`Tool` whose ``run`` hands the *raw*
arguments to the dispatcher. Letting the SDK validate them against a typed
signature would turn a wrong type into unstructured pydantic text and silently
drop unknown parameters; the dispatcher instead answers every bad input with a
structured error naming the parameter. The published input schema is generated
from the dispatch table, so it still lists every action and parameter, typed
and described.

Every result carries the same JSON twice: as ``structuredContent`` (the only
part Claude Code shows the model, hence the ``summary`` field) and as text.
Start-up imports neither torch nor sentence-transformers; the embedding model
loads on the first search, and navigate's worker template warms up in its own process.
``synapse serve`` runs on :mod:`synapse_server.mcp.wire`, which answers malformed
JSON-RPC lines with JSON-RPC errors and ends the server when the client leaves.
"""

from __future__ import annotations

import logging
import os
import sys
import threading
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Annotated, Any

import anyio
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.tools import Tool
from mcp.types import CallToolResult, ContentBlock, ResourceLink, TextContent, ToolAnnotations
from pydantic import BaseModel, ConfigDict, Field

from synapse_server import __version__
from synapse_server.actions.deps import _INJECTED, Deps, ServerSettings
from synapse_server.actions.envelopes import URI_TEMPLATE
from synapse_server.context.caller import calling_client, client_name
from synapse_server.context.progress import reporting
from synapse_server.errors import SynapseError
from synapse_server.mcp import apps as answer_card
from synapse_server.mcp.dispatch import Dispatcher, Outcome
from synapse_server.mcp.wire import serve_stdio
from synapse_server.models import model_spec_from
from synapse_server.models.spec import runs_offline

if TYPE_CHECKING:
    from adapters.index.embedder import TextEncoder

log = logging.getLogger(__name__)

TOOL_NAME = "synapse"
INSTRUCTIONS = (
    "Synapse answers questions from this project's own evidence - the memory tree of decisions and experiments "
    "(practice), the zettelkasten of cited notes (canon), pinned code and hashed experiment runs - and abstains "
    "when that evidence does not license an answer. Use its one tool, synapse(action=...)."
)


class ToolResult(BaseModel):
    """The published output schema: every result has ``action`` and ``summary``; the rest depends on the action."""

    model_config = ConfigDict(extra="allow")

    action: str | None = Field(..., description="the action that ran (null when the action itself was invalid)")
    summary: str = Field(..., description="one line for a human reader")


class SynapseTool(Tool):
    """The SDK tool whose ``run`` passes raw arguments to the dispatcher (see the module docstring)."""

    async def run(self, arguments: dict[str, Any], context: Any, convert_result: bool = False) -> Any:
        # build reports progress through the reporter; a host-navigated turn names the client's model
        with reporting(getattr(context, "report_progress", None)), calling_client(client_name(context)):
            outcome: Outcome = await self.fn(arguments)
        content: list[ContentBlock] = [TextContent(type="text", text=outcome.text())]
        link = outcome.payload.get("envelope_resource")
        if isinstance(link, str):
            content.append(
                ResourceLink(
                    uri=link,
                    name="navigate-envelope",
                    title="The evidence this navigate turn read",
                    mime_type="text/plain",
                )
            )
        return CallToolResult(content=content, structured_content=outcome.payload, is_error=outcome.is_error)


def build_server(
    settings: ServerSettings, *, embedder: TextEncoder | None = None, embedder_spec: object = _INJECTED
) -> MCPServer[Any]:
    """The server for one workspace; ``embedder`` lets tests share one loaded model, and ``synapse serve``
    hand over the one it started loading (with the ``embedding_model`` it was built for, see :class:`Deps`)."""
    deps = Deps(settings, embedder=embedder, embedder_spec=embedder_spec)
    dispatcher = Dispatcher(deps)

    async def synapse(arguments: dict[str, Any]) -> Annotated[CallToolResult, ToolResult]:
        return await dispatcher.call(arguments)  # type: ignore[return-value]  # SynapseTool.run wraps the Outcome

    tool = SynapseTool.from_function(
        synapse,
        name=TOOL_NAME,
        title="Synapse: grounded answers from project evidence",
        description=tool_description(dispatcher),
        annotations=_annotations(dispatcher),
    )
    tool.parameters = input_schema(dispatcher)
    answer_card.declare(tool)  # optional MCP Apps layer: hosts that render apps draw navigate's card

    server_lifespan = _lifespan(deps)
    server = MCPServer(
        "synapse",
        instructions=INSTRUCTIONS,
        version=__version__,
        tools=[tool],
        lifespan=server_lifespan,
        log_level="WARNING",
        extensions=[answer_card.extension()],
    )
    _serve_envelopes(server, deps)
    return server


def _serve_envelopes(server: MCPServer[Any], deps: Deps) -> None:
    """``synapse://turns/<id>/envelope``: the evidence a recent navigate turn read, while this server runs."""

    def envelope(turn_id: str) -> str:
        text = deps.envelopes.get(turn_id)
        if text is None:
            raise ValueError(f"no envelope for turn {turn_id[:40]!r}: it is older than this server or unknown")
        return text

    server.resource(
        URI_TEMPLATE,
        name="navigate-envelope",
        title="Navigate envelope",
        description="The rendered evidence a navigate turn read (kept for the server's newest turns).",
        mime_type="text/plain",
    )(envelope)


def _lifespan(deps: Deps) -> Any:
    @asynccontextmanager
    async def lifespan(_server: MCPServer[Any]) -> AsyncIterator[dict[str, Any]]:
        try:
            await deps.runner.start()
        except OSError:
            log.exception("could not start the navigate template; the first turn will start it")
        try:
            yield {}
        finally:
            await deps.runner.aclose()
            deps.close()

    return lifespan


def serve(settings: ServerSettings, *, embedder: TextEncoder | None = None, embedder_spec: object = _INJECTED) -> None:
    """Run the stdio server until the client disconnects, then end the process even if a call is stuck.

    The lifespan has killed every navigate worker and command by then. A call
    abandoned at exit (a thread blocked in native code) would keep the
    interpreter alive forever at its exit-time join, so after a short grace the
    process leaves without waiting for it.
    """
    anyio.run(serve_stdio, build_server(settings, embedder=embedder, embedder_spec=embedder_spec))
    _leave_without_stuck_threads()


EXIT_GRACE_S = 2.0


def _leave_without_stuck_threads() -> None:
    deadline = time.monotonic() + EXIT_GRACE_S
    for thread in threading.enumerate():
        if thread is not threading.current_thread() and not thread.daemon:
            thread.join(max(0.0, deadline - time.monotonic()))
    stuck = [
        t.name for t in threading.enumerate() if t.is_alive() and not t.daemon and t is not threading.current_thread()
    ]
    if stuck:
        log.warning("leaving %d abandoned call thread(s) behind at exit", len(stuck))
        logging.shutdown()
        sys.stderr.flush()
        os._exit(0)


DESCRIPTION_BUDGET = 2048
"""Claude Code cuts a tool description at 2048 characters (anthropics/claude-code#41593, #87650), so everything an
agent needs to pick an action comes first and within it; the per-action details after it are for hosts that show
the whole text."""


def tool_description(dispatcher: Dispatcher) -> str:
    """What the calling agent reads: which action each user phrasing triggers (the seed's table), then details."""
    lines = [
        "Answers from this project's own evidence, abstaining when it does not license an answer, and compares "
        "practice (the memory tree) with canon (the zettelkasten of cited notes). Pass action=<name> and its "
        "parameters.",
        "",
        "When the user says ... use (required parameters):",
    ]
    for action, spec in dispatcher.table.items():
        said = ", ".join(f'"{s}"' for s in spec.say)
        required = spec.signature or ", ".join(
            n for n in spec.public_fields() if spec.params.model_fields[n].is_required()
        )
        lines.append(f"- {action} ({required}): {said}" if required else f"- {action}: {said}")
    lines += [
        *_overlay_guide(dispatcher),
        "",
        "Search to find, get to read in full before quoting, navigate for a cited answer. An abstention is a result: "
        "report its reason, never answer from your own knowledge. Results are JSON with a 'summary'; errors are "
        "{'error': {kind, message, parameter}}. projects: omit = configured scope, [] = memory only.",
        HOST_NAVIGATION,
        "",
        "Details:",
        *(f"- {action}: {spec.does}" for action, spec in dispatcher.table.items()),
    ]
    return "\n".join(lines)


HOST_NAVIGATION = (
    'navigate may return verdict "pending": you are then its navigator. Read its prompt, write the '
    "@memdsl.out/2 artifact it asks for, call navigate with turn=<turn> reply=<artifact>; repeat until a "
    "verdict (code checks every claim)."
)
"""What a host model must know to navigate itself (``model: host``); inside the 2,048 characters hosts show."""


def _overlay_guide(dispatcher: Dispatcher) -> list[str]:
    """How the overlay actions fit together, said only when the table serves them."""
    served = {action.value for action in dispatcher.table}
    if not {"build", "connections", "matrix"} <= served:
        return []
    return [
        '"build the claim links", "align practice to claims": build kind="claim". A bare "synthesize" means build; '
        '"synthesize the cells" means synthesize. Run build before connections, matrix and search expand=true, and '
        'build kind="claim" before synthesize and debate; rebuild when a result says the overlay drifted. Only build '
        "writes (.synapse/links/); write-free servers refuse it.",
    ]


def input_schema(dispatcher: Dispatcher) -> dict[str, Any]:
    """One JSON schema over every served action's public parameters, each saying which actions take it.

    A parameter several actions share (limit, kind, projects) keeps the first action's type and bounds; when the
    actions describe it differently each description is kept, prefixed by its actions, and a default they do not
    share is dropped, so the schema never states one action's meaning or default for another.
    """
    properties: dict[str, Any] = {
        "action": {
            "type": "string",
            "enum": [a.value for a in dispatcher.table],
            "description": "Which operation to run: " + ", ".join(a.value for a in dispatcher.table) + ".",
        }
    }
    users: dict[str, list[str]] = {}
    meanings: dict[str, dict[str, str]] = {}
    defaults: dict[str, list[Any]] = {}
    for action, spec in dispatcher.table.items():
        schema = spec.params.model_json_schema()
        fields = spec.public_fields()
        fields.sort(key=lambda n: not spec.params.model_fields[n].is_required())
        for name in fields:
            required = spec.params.model_fields[name].is_required()
            users.setdefault(name, []).append(f"{action.value} (required)" if required else action.value)
            prop = {k: v for k, v in schema["properties"][name].items() if k != "title"}
            meanings.setdefault(name, {})[action.value] = prop.get("description", "").rstrip(".")
            defaults.setdefault(name, []).append(prop.get("default"))
            properties.setdefault(name, prop)
    for name, used_by in users.items():
        said: dict[str, list[str]] = {}
        for who, text in meanings[name].items():
            said.setdefault(text, []).append(who)
        base = next(iter(said)) if len(said) == 1 else "; ".join(f"{', '.join(a)}: {t}" for t, a in said.items())
        properties[name]["description"] = f"{base}. Used by: {', '.join(used_by)}."
        if len({repr(d) for d in defaults[name]}) > 1:
            properties[name].pop("default", None)
    return {"type": "object", "properties": properties, "required": ["action"], "additionalProperties": False}


def _annotations(dispatcher: Dispatcher) -> ToolAnnotations:
    writes = any(spec.writes for spec in dispatcher.table.values()) and not dispatcher.deps.settings.write_free
    return ToolAnnotations(
        title="Synapse",
        read_only_hint=not writes,
        destructive_hint=False,
        idempotent_hint=True,
        open_world_hint=_open_world(dispatcher.deps),
    )


def _open_world(deps: Deps) -> bool:
    """True when navigate's model is reached over a network or an external command (the provider registry says)."""
    try:
        config_model = deps.workspace().config.model
        spec = model_spec_from(config_model, os.environ, deps.settings.model)
    except SynapseError:  # an invalid config, or a workspace model the user has not trusted (it will not run)
        return False
    return not runs_offline(spec)
