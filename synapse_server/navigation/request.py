"""What one navigate turn is asked: validated before any store or model work."""

from __future__ import annotations

from pydantic import ConfigDict, Field, field_validator

from synapse_server.names import check_project_names
from synapse_server.navigation.budgets import BudgetRequest

MAX_QUESTION_CHARS = 4000


class NavigateRequest(BudgetRequest):
    """The question, the project scope, the five budgets and an optional model override."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    question: str = Field(..., min_length=1, max_length=MAX_QUESTION_CHARS, description="the question to answer")
    projects: list[str] | None = Field(None, description="zk projects; omitted = config scope, [] = memory only")
    model: str | None = Field(None, description="model spec override (extractive, script:PATH, command:CMD, ...)")

    @field_validator("question")
    @classmethod
    def _question_has_words(cls, value: str) -> str:
        if "\x00" in value:
            raise ValueError("question contains a NUL character")
        if not value.strip():
            raise ValueError("question is blank")
        return value

    @field_validator("projects")
    @classmethod
    def _projects_are_names(cls, value: list[str] | None) -> list[str] | None:
        return check_project_names(value)

    def budgets(self) -> BudgetRequest:
        return BudgetRequest(
            max_nodes=self.max_nodes,
            hops=self.hops,
            token_budget=self.token_budget,
            render_max_body_chars=self.render_max_body_chars,
            trace_floor=self.trace_floor,
        )
