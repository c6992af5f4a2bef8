"""The five public navigation budgets: safe domains, defaults, and the three max_nodes regimes."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from synapse_server.navigation.budgets import (
    MAX_NODES_LIMIT,
    MIN_TOKEN_BUDGET,
    TOKENS_PER_NODE_ESTIMATE,
    BudgetRequest,
    resolve_budgets,
)
from synapse_server.workspace.config import NavigateConfig

DEFAULTS = NavigateConfig(max_nodes=40, hops=1, token_budget=24_000, render_max_body_chars=1200)


def test_negative_means_the_workspace_default_for_every_budget() -> None:
    budgets = resolve_budgets(BudgetRequest(), DEFAULTS)
    assert (budgets.assembly_cap, budgets.loop_cap, budgets.hops) == (40, 40, 1)
    assert (budgets.token_budget, budgets.render_max_body_chars, budgets.trace_floor) == (24_000, 1200, 0.0)


def test_a_positive_max_nodes_is_a_hard_cap_for_assembly_and_loop() -> None:
    budgets = resolve_budgets(BudgetRequest(max_nodes=7), DEFAULTS)
    assert (budgets.assembly_cap, budgets.loop_cap) == (7, 7)


@pytest.mark.parametrize(
    ("token_budget", "assembly_cap"),
    [
        pytest.param(24_000, 24_000 // TOKENS_PER_NODE_ESTIMATE, id="default-budget"),
        pytest.param(3_000, 10, id="small-budget"),
        pytest.param(MIN_TOKEN_BUDGET, 1, id="never-below-one"),
        pytest.param(2_000_000, min(MAX_NODES_LIMIT, 2_000_000 // TOKENS_PER_NODE_ESTIMATE), id="bounded-above"),
    ],
)
def test_max_nodes_zero_derives_the_assembly_cap_from_the_token_budget_and_uncaps_the_loop(
    token_budget: int, assembly_cap: int
) -> None:
    budgets = resolve_budgets(BudgetRequest(max_nodes=0, token_budget=token_budget), DEFAULTS)
    assert (budgets.assembly_cap, budgets.loop_cap, budgets.token_budget) == (assembly_cap, None, token_budget)


@pytest.mark.parametrize(
    ("field", "value"),
    [("hops", 0), ("render_max_body_chars", 0), ("token_budget", MIN_TOKEN_BUDGET), ("trace_floor", 0.0)],
)
def test_zero_and_the_smallest_usable_value_are_kept_not_defaulted(field: str, value: object) -> None:
    budgets = resolve_budgets(BudgetRequest.model_validate({field: value}), DEFAULTS)
    assert getattr(budgets, field) == value


@pytest.mark.parametrize(
    ("field", "value"),
    [
        pytest.param("max_nodes", -2, id="max-nodes-below-minus-one"),
        pytest.param("max_nodes", MAX_NODES_LIMIT + 1, id="max-nodes-too-large"),
        pytest.param("hops", 9, id="hops-too-deep"),
        pytest.param("hops", -5, id="hops-negative"),
        pytest.param("token_budget", 0, id="token-budget-zero"),
        pytest.param("token_budget", MIN_TOKEN_BUDGET - 1, id="token-budget-unusable"),
        pytest.param("token_budget", 2_000_001, id="token-budget-too-large"),
        pytest.param("render_max_body_chars", -2, id="body-chars-below-minus-one"),
        pytest.param("trace_floor", 1.5, id="trace-floor-above-one"),
        pytest.param("trace_floor", -1.5, id="trace-floor-below-minus-one"),
        pytest.param("max_nodes", True, id="bool-is-not-an-int"),
        pytest.param("hops", "2", id="string-is-not-an-int"),
        pytest.param("max_nodes", 2.0, id="float-is-not-an-int"),
    ],
)
def test_out_of_domain_budgets_are_refused_naming_the_parameter(field: str, value: object) -> None:
    with pytest.raises(ValidationError) as raised:
        BudgetRequest.model_validate({field: value})
    assert raised.value.errors()[0]["loc"] == (field,)


def test_unknown_budget_fields_are_refused() -> None:
    with pytest.raises(ValidationError):
        BudgetRequest.model_validate({"max_tokens": 5})
