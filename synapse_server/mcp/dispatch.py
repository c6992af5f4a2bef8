"""The dispatcher: public arguments -> validated parameters -> one action, and every error -> public JSON.

This is the single place where typed :class:`SynapseError` subclasses become
the public error shape ``{"error": {"kind", "message", "parameter"}}`` and the
only place with a broad ``except`` (logged with its traceback to stderr; the
caller gets no traceback and no path). Validation is complete before any store
or model work: the action name, unknown or misplaced parameters, then the
action's own pydantic model with its domains.

Nothing here blocks the event loop: reading the workspace config (for
write-free) takes the shared store lock, which a long search or build on a
worker thread may hold, so it runs on a worker thread too; a ping or a second
call is answered meanwhile. Each call runs in its own process scope, so a
``command:`` model it started dies with the call - also when the call is
cancelled or the client leaves (see :mod:`synapse_server.processes.children`).

Adding an action is one line in :data:`ACTIONS` (plus its module): the tool's
input schema and description are generated from the table.
"""

from __future__ import annotations

import json
import logging
import types
import typing
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import anyio
from pydantic import BaseModel, ValidationError

from synapse_server.actions import build, connections, debate, frame, get, matrix, navigate, search, synthesize
from synapse_server.actions.base import ActionSpec
from synapse_server.actions.deps import Deps
from synapse_server.errors import InvalidInput, SynapseError, WriteRefused, typed
from synapse_server.processes.children import process_scope

log = logging.getLogger(__name__)


class Action(StrEnum):
    """Every public action name; only those in the table are served."""

    NAVIGATE = "navigate"
    SEARCH = "search"
    FRAME = "frame"
    GET = "get"
    CONNECTIONS = "connections"
    MATRIX = "matrix"
    SYNTHESIZE = "synthesize"
    DEBATE = "debate"
    BUILD = "build"


ACTIONS: Mapping[Action, ActionSpec] = {
    Action.NAVIGATE: navigate.SPEC,
    Action.SEARCH: search.SPEC,
    Action.FRAME: frame.SPEC,
    Action.GET: get.SPEC,
    Action.CONNECTIONS: connections.SPEC,
    Action.MATRIX: matrix.SPEC,
    Action.SYNTHESIZE: synthesize.SPEC,
    Action.DEBATE: debate.SPEC,
    Action.BUILD: build.SPEC,
}
"""The served actions, in the order the tool describes them."""


@dataclass(frozen=True)
class Outcome:
    """The public JSON of one call and whether it reports an error (the tool's ``isError``)."""

    payload: dict[str, Any]
    is_error: bool

    def text(self) -> str:
        return json.dumps(self.payload, ensure_ascii=False)


class Dispatcher:
    """Validates and runs one tool call against a table of actions."""

    def __init__(self, deps: Deps, table: Mapping[Action, ActionSpec] = ACTIONS) -> None:
        self.deps = deps
        self.table = dict(table)
        self._public = {name for spec in self.table.values() for name in spec.public_fields()}

    async def call(self, arguments: Mapping[str, Any] | None) -> Outcome:
        action: str | None = None
        try:
            args = dict(arguments or {})
            action, spec = self._action(args.pop("action", None))
            params = self._validate(action, spec, args)
            with process_scope():
                if spec.writes and await anyio.to_thread.run_sync(self.deps.write_free, abandon_on_cancel=True):
                    raise WriteRefused(f"{action} writes and this server runs write-free", parameter="action")
                out = await spec.handler(params, self.deps)
        except SynapseError as exc:
            return Outcome(error_payload(exc, action), is_error=True)
        except Exception as exc:
            if (known := typed(exc)) is not None:  # an adapter's typed failure (the shared index went away)
                return Outcome(error_payload(known, action), is_error=True)
            log.exception("action %s failed unexpectedly", action)
            return Outcome(internal_error_payload(action), is_error=True)
        return Outcome(result_payload(action, out), is_error=bool(getattr(out, "is_error", False)))

    def _action(self, raw: Any) -> tuple[str, ActionSpec]:
        served = ", ".join(self.table)
        if raw is None:
            raise InvalidInput(f"action is required; one of: {served}", parameter="action")
        if not isinstance(raw, str):
            raise InvalidInput(f"action must be a string, one of: {served}", parameter="action")
        try:
            action = Action(raw)
        except ValueError:
            raise InvalidInput(f"unknown action {raw[:80]!r}; expected one of: {served}", parameter="action") from None
        spec = self.table.get(action)
        if spec is None:
            raise InvalidInput(
                f"action {action.value!r} is not available in this version; use one of: {served}", parameter="action"
            )
        return action.value, spec

    def _validate(self, action: str, spec: ActionSpec, args: dict[str, Any]) -> BaseModel:
        own = set(spec.public_fields())
        values: dict[str, Any] = {}
        for name, value in args.items():
            if name not in self._public:
                raise InvalidInput(f"unknown parameter {name[:80]!r}", parameter=name[:80])
            if name not in own:
                if value is None:
                    continue  # some hosts send every schema property, null when unset
                raise InvalidInput(f"parameter {name!r} does not apply to action {action!r}", parameter=name)
            if value is not None:
                values[name] = _json_list(spec.params, name, value)
        try:
            return spec.params.model_validate(values)
        except ValidationError as exc:
            raise invalid_input(exc) from None


def result_payload(action: str, out: BaseModel) -> dict[str, Any]:
    """The public JSON of a result: ``action`` and ``summary`` first, then the action's own fields."""
    payload = out.model_dump(mode="json")
    summary = payload.pop("summary", "")
    return {"action": action, "summary": summary, **payload}


def validated(model: type[BaseModel], values: Mapping[str, Any]) -> Any:
    """``model`` built from ``values``, a validation failure raised as InvalidInput (for the CLI)."""
    try:
        return model.model_validate(dict(values))
    except ValidationError as exc:
        raise invalid_input(exc) from None


def invalid_input(exc: ValidationError) -> InvalidInput:
    """The first pydantic error as InvalidInput naming its parameter (never echoing the rejected value)."""
    error = exc.errors(include_url=False, include_input=False, include_context=False)[0]
    loc = [str(part) for part in error["loc"]]
    parameter = loc[0] if loc else None
    where = parameter or "arguments"
    if len(loc) > 1:
        where += "".join(f"[{part}]" for part in loc[1:])
    message = "is required" if error["type"] == "missing" else str(error["msg"]).removeprefix("Value error, ")
    return InvalidInput(f"{where}: {message}", parameter=parameter)


def error_payload(exc: SynapseError, action: str | None) -> dict[str, Any]:
    parameter = exc.detail.get("parameter")
    return {
        "action": action,
        "summary": f"{exc.kind}: {exc.message}",
        "error": {
            "kind": exc.kind,
            "message": exc.message,
            "parameter": parameter if isinstance(parameter, str) else None,
        },
    }


def internal_error_payload(action: str | None) -> dict[str, Any]:
    message = "internal error; the server log has the details"
    return {
        "action": action,
        "summary": message,
        "error": {"kind": "internal_error", "message": message, "parameter": None},
    }


def _json_list(model: type[BaseModel], name: str, value: Any) -> Any:
    """Some hosts send a list parameter as a JSON string ('["a"]'); decode it, leave anything else to validation."""
    if not (isinstance(value, str) and value.lstrip().startswith("[")):
        return value
    annotation = model.model_fields[name].annotation
    options = typing.get_args(annotation) if isinstance(annotation, types.UnionType) else (annotation,)
    if not any(typing.get_origin(option) is list for option in options):
        return value
    try:
        decoded = json.loads(value)
    except json.JSONDecodeError:
        return value
    return decoded if isinstance(decoded, list) else value
