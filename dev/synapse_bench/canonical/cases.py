"""The canonical corpus as data: cases, workspace recipes and oracles, validated once when loaded.

The corpus is committed YAML under ``canonical/data/`` (one file per category
plus ``recipes.yaml``), so a reviewer reads the questions, the scripted replies
and the expected verdicts without reading any Python. Every file is checked
here with ``extra="forbid"`` models: a typo in a field name is a load error,
never a silently ignored expectation.

An oracle is completed from the verdict so every case pins all five public
fields (verdict, status, reasons, halted_reason, disclosure) even when the
YAML spells out only what is interesting: an answer has no reasons and halts
with ``answer``; a labelled abstention halts with ``abstain``; only an answer
can carry a status or a disclosure.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from synapse_server.navigation.epistemics import OUTDATED_DISCLOSURE

CATEGORIES = ("truth", "fabrication", "disclosure", "abstention", "schema", "failure", "replay", "adversarial")
Category = Literal["truth", "fabrication", "disclosure", "abstention", "schema", "failure", "replay", "adversarial"]
ExpectedVerdict = Literal["answer", "abstain", "failure", "rejected"]
"""``rejected``: the request itself is refused by the public validator before any store or model work."""
Status = Literal["grounded", "measured", "inferred"]
STATUS_RANK = {None: -1, "inferred": 0, "measured": 1, "grounded": 2}


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Reply(_Strict):
    """One scripted model reply; ``usage`` makes the token budget read provider counts instead of chars/4."""

    text: str
    input_tokens: int | None = Field(None, ge=0)
    output_tokens: int | None = Field(None, ge=0)


class Budgets(_Strict):
    """The five public budgets; absent ones stay at the request default (-1)."""

    max_nodes: int | None = None
    hops: int | None = None
    token_budget: int | None = None
    render_max_body_chars: int | None = None
    trace_floor: float | None = None

    def as_request(self) -> dict[str, Any]:
        return {k: v for k, v in self.model_dump().items() if v is not None}


class Isolation(_Strict):
    """Run the case through the isolation layer's worker with one of its fault-injection jobs."""

    job: Literal["hang", "sigsegv", "sigkill", "exit", "raise"]
    timeout_s: float = Field(..., gt=0, le=120)


class Expect(_Strict):
    verdict: ExpectedVerdict
    status: Status | None = None
    reasons: tuple[str, ...] = ()
    halted_reason: str | None = None
    outdated: bool = False
    disclosure: str | None = None
    citations: tuple[str, ...] | None = None
    """Exact set of canonical addresses on the answer surface (answers only)."""
    model_calls: int | None = None
    parse_repairs: int | None = None
    renavigations: int | None = None
    parse_error: str | None = None
    """The code of the first refused reply, as the repair prompt reported it (``fence.outside``)."""
    envelope_contains: tuple[str, ...] = ()
    detail_contains: str | None = None

    @model_validator(mode="before")
    @classmethod
    def _complete(cls, raw: Any) -> Any:
        """Fill the fields the verdict implies (halted_reason, the outdated disclosure)."""
        if not isinstance(raw, dict):
            return raw
        values = dict(raw)
        verdict = values.get("verdict")
        if verdict == "answer":
            values.setdefault("halted_reason", "answer")
            if values.get("outdated") and values.get("disclosure") is None:
                values["disclosure"] = OUTDATED_DISCLOSURE
        elif verdict == "abstain" and values.get("reasons"):
            values.setdefault("halted_reason", "abstain")
        elif verdict == "rejected":
            values.setdefault("halted_reason", "validation")
        return values

    @model_validator(mode="after")
    def _consistent(self) -> Expect:
        """Refuse oracles no public result can have."""
        if self.verdict == "answer":
            if self.status is None or self.reasons:
                raise ValueError("an answer oracle needs a status and no reasons")
        elif self.status is not None or self.outdated or self.disclosure or self.citations:
            raise ValueError("only an answer oracle may carry status, outdated, disclosure or citations")
        if self.halted_reason is None:
            raise ValueError(f"a {self.verdict} oracle without reasons needs a halted_reason")
        return self


class Case(_Strict):
    id: str = Field(..., pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    category: Category
    about: str = Field(..., min_length=10, description="what this case pins, in one sentence")
    workspace: str = "demo"
    question: str
    budgets: Budgets = Budgets()
    replies: tuple[Reply, ...] = ()
    isolation: Isolation | None = None
    live: bool = False
    """Live-eligible: a real model may write its own replies and the oracle still holds."""
    expect: Expect

    @field_validator("replies", mode="before")
    @classmethod
    def _plain_replies(cls, value: Any) -> Any:
        if isinstance(value, list):
            return [{"text": item} if isinstance(item, str) else item for item in value]
        return value


class FileEdit(_Strict):
    path: str
    text: str


class Commit(_Strict):
    """A git commit on top of the demo's HEAD (code changes that make pins outdated, say)."""

    message: str
    write: tuple[FileEdit, ...] = ()
    append: tuple[FileEdit, ...] = ()
    delete: tuple[str, ...] = ()


class Recipe(_Strict):
    """A workspace: a base plus edits. Text may use ``{{commit:C4}}`` and ``{{sha256:path}}`` placeholders."""

    name: str
    about: str
    base: Literal["demo"] = "demo"
    write: tuple[FileEdit, ...] = ()
    delete: tuple[str, ...] = ()
    symlink: tuple[FileEdit, ...] = ()
    """``path`` becomes a symbolic link whose target is ``text`` (e.g. a loop that breaks an adapter)."""
    commit: Commit | None = None


class Corpus(_Strict):
    cases: tuple[Case, ...]
    recipes: dict[str, Recipe]

    def by_category(self) -> dict[str, list[Case]]:
        grouped: dict[str, list[Case]] = {c: [] for c in CATEGORIES}
        for case in self.cases:
            grouped[case.category].append(case)
        return grouped


def data_dir() -> Path:
    return Path(str(resources.files("dev.synapse_bench.canonical").joinpath("data")))


def load_corpus(directory: Path | None = None) -> Corpus:
    """Every case file and the recipes; duplicate ids and unknown recipes are load errors."""
    directory = directory or data_dir()
    recipes_raw = _read(directory / "recipes.yaml").get("recipes", [])
    recipes = {"demo": Recipe(name="demo", about="the demo workspace as built by synapse init --demo")}
    for raw in recipes_raw:
        recipe = Recipe.model_validate(raw)
        if recipe.name in recipes:
            raise ValueError(f"recipe {recipe.name!r} is defined twice")
        recipes[recipe.name] = recipe
    cases: list[Case] = []
    for category in CATEGORIES:
        path = directory / f"{category}.yaml"
        if not path.exists():
            continue
        document = _read(path)
        for raw in document.get("cases", []):
            case = Case.model_validate({"category": category, **raw})
            if case.workspace not in recipes:
                raise ValueError(f"{path.name}: case {case.id} names an unknown workspace {case.workspace!r}")
            cases.append(case)
    seen: set[str] = set()
    for case in cases:
        if case.id in seen:
            raise ValueError(f"case id {case.id!r} is used twice")
        seen.add(case.id)
    return Corpus(cases=tuple(cases), recipes=recipes)


def _read(path: Path) -> dict[str, Any]:
    with path.open(encoding="utf-8") as handle:
        document = yaml.safe_load(handle) or {}
    if not isinstance(document, dict) or document.get("version") != 1:
        raise ValueError(f"{path.name}: expected a mapping with version: 1")
    return document
