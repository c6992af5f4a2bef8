"""The five public navigation budgets and their seed semantics.

Negative means "use the default" (the workspace config). ``max_nodes`` has
three regimes: -1 default cap, 0 no caller count cap but a deterministic
token-derived pre-assembly ceiling, > 0 an explicit hard cap. The public
domains are checked here, before any store or model work.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from pydantic import BaseModel, ConfigDict, Field, field_validator

MAX_NODES_LIMIT = 10_000
MAX_HOPS = 8
MAX_TOKEN_BUDGET = 2_000_000
MIN_TOKEN_BUDGET = 256
MAX_BODY_CHARS = 1_000_000
TOKENS_PER_NODE_ESTIMATE = 300
"""Used to derive the ``max_nodes=0`` ceiling from the token budget."""


class BudgetRequest(BaseModel):
    """The caller's budgets as received; each field validated to its safe domain."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    max_nodes: int = Field(
        -1, ge=-1, le=MAX_NODES_LIMIT, description="-1 default, 0 token-derived ceiling, >0 hard cap"
    )
    hops: int = Field(-1, ge=-1, le=MAX_HOPS, description="pre-loop breadth-first depth; -1 default")
    token_budget: int = Field(-1, ge=-1, le=MAX_TOKEN_BUDGET, description="hard per-run token guardrail; -1 default")
    render_max_body_chars: int = Field(
        -1, ge=-1, le=MAX_BODY_CHARS, description="body chars per node; 0 disables elision"
    )
    trace_floor: float = Field(-1.0, ge=-1.0, le=1.0, description="compatibility dial; the shipped gate is binary")

    @field_validator("token_budget")
    @classmethod
    def _token_budget_is_default_or_usable(cls, value: int) -> int:
        if 0 <= value < MIN_TOKEN_BUDGET:
            raise ValueError(f"token_budget must be -1 (default) or at least {MIN_TOKEN_BUDGET}")
        return value


@dataclass(frozen=True, slots=True)
class Budgets:
    """Effective budgets for one turn, every default resolved."""

    assembly_cap: int  # nodes admitted before the loop
    loop_cap: int | None  # nodes in view during the loop; None = no count cap (max_nodes=0)
    hops: int
    token_budget: int
    render_max_body_chars: int
    trace_floor: float


class BudgetDefaults(Protocol):
    """The workspace's defaults as the engine reads them (the config's ``navigate:`` block is one); loading the
    config is the I/O edge's work, so the engine names only the values it needs."""

    @property
    def max_nodes(self) -> int: ...
    @property
    def hops(self) -> int: ...
    @property
    def token_budget(self) -> int: ...
    @property
    def render_max_body_chars(self) -> int: ...


def resolve_budgets(request: BudgetRequest, defaults: BudgetDefaults) -> Budgets:
    token_budget = request.token_budget if request.token_budget >= 0 else defaults.token_budget
    loop_cap: int | None
    if request.max_nodes > 0:
        assembly_cap = loop_cap = request.max_nodes
    elif request.max_nodes == 0:
        assembly_cap = max(1, min(MAX_NODES_LIMIT, token_budget // TOKENS_PER_NODE_ESTIMATE))
        loop_cap = None
    else:
        assembly_cap = loop_cap = defaults.max_nodes
    return Budgets(
        assembly_cap=assembly_cap,
        loop_cap=loop_cap,
        hops=request.hops if request.hops >= 0 else defaults.hops,
        token_budget=token_budget,
        render_max_body_chars=(
            request.render_max_body_chars if request.render_max_body_chars >= 0 else defaults.render_max_body_chars
        ),
        trace_floor=request.trace_floor if request.trace_floor >= 0 else 0.0,
    )
