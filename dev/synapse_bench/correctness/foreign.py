"""Foreign fixtures: small verbatim subsets of public repositories nobody here wrote, with gold read from them.

Each fixture is a folder ``data/foreign/<name>/`` holding ``repo/`` (the files as
they are upstream, at the same paths), ``LICENSE`` (the upstream licence) and
``questions.yaml`` (where the files came from, and the questions). At run time a
fixture becomes a real git repository (fixed identity and date) that
``synapse init --adopt`` reads as a new user's repository would: no memory
mirror, no hand-written config, so what is measured is what a user gets.

Gold is a list of key phrases written from reading the files. A phrase must
occur in the case's ``evidence`` file (its path words then its text, so
``params/alpha`` holding ``0.1`` reads ``alpha 0.1``): a loader check, so no
gold can drift away from the material it claims to come from.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from synapse_server.demo.gitreplay import Commit, replay
from synapse_server.language.text import normalise_words
from synapse_server.workspace.adopt import adopt

FOREIGN = Path(__file__).resolve().parent / "data" / "foreign"
Kind = Literal["answerable", "false-premise", "unanswerable"]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Source(_Strict):
    repository: str = Field(description="the upstream repository's URL, or the package the files came from")
    commit: str = Field(description="the upstream commit (or release) the files were copied from")
    licence: str
    style: str = Field(description="what kind of material this is, in words (ADR layout, vault, tracking folder)")


class ForeignCase(_Strict):
    id: str = Field(pattern=r"^[a-z0-9-]+$")
    question: str
    kind: Kind
    gold: tuple[str, ...] = Field(default=(), description="key phrases; an answer holding one of them is correct")
    excludes: tuple[str, ...] = Field(default=(), description="phrases of a wrong answer that also holds the gold")
    match: Literal["words", "verbatim"] = Field(
        default="words", description="words: normalised words in order; verbatim: characters, whitespace collapsed"
    )
    evidence: str | None = Field(default=None, description="the repo-relative file the gold was read from")
    about: str = ""


class Fixture(_Strict):
    name: str
    source: Source
    cases: tuple[ForeignCase, ...]

    @property
    def repo(self) -> Path:
        return FOREIGN / self.name / "repo"


def load_foreign(root: Path = FOREIGN) -> tuple[Fixture, ...]:
    """Every fixture under ``root``, checked: gold only on answerable cases, each phrase in its evidence file."""
    fixtures = []
    for folder in sorted(p for p in root.iterdir() if (p / "questions.yaml").is_file()):
        raw = yaml.safe_load((folder / "questions.yaml").read_text(encoding="utf-8"))
        fixture = Fixture(name=folder.name, source=raw["source"], cases=raw["cases"])
        if not (folder / "LICENSE").is_file():
            raise ValueError(f"fixture {folder.name}: no LICENSE beside its files")
        for case in fixture.cases:
            _check_case(folder / "repo", fixture.name, case)
        fixtures.append(fixture)
    ids = [f"{fixture.name}/{case.id}" for fixture in fixtures for case in fixture.cases]
    if len(set(ids)) != len(ids):
        raise ValueError("case ids must be unique within a fixture")
    return tuple(fixtures)


def _check_case(repo: Path, name: str, case: ForeignCase) -> None:
    if (case.kind == "answerable") != bool(case.gold):
        raise ValueError(f"{name}/{case.id}: an answerable case needs gold, and only it may have gold")
    if not case.gold:
        return
    if case.evidence is None or not (repo / case.evidence).is_file():
        raise ValueError(f"{name}/{case.id}: evidence {case.evidence!r} is not a file of the fixture")
    text = (repo / case.evidence).read_text(encoding="utf-8")
    for phrase in case.gold:
        if not holds(f"{Path(case.evidence).as_posix().replace('/', ' ')} {text}", phrase, case.match):
            raise ValueError(f"{name}/{case.id}: gold phrase {phrase!r} is not in {case.evidence}")


def holds(text: str, phrase: str, match: str = "words") -> bool:
    """Whether ``phrase`` occurs in ``text``: as normalised words in order, or verbatim up to whitespace."""
    if match == "verbatim":
        return " ".join(phrase.split()) in " ".join(text.split())
    words, wanted = normalise_words(text), normalise_words(phrase)
    size = len(wanted)
    return size > 0 and any(words[at : at + size] == wanted for at in range(len(words) - size + 1))


def _files(repo: Path) -> Iterator[tuple[str, str]]:
    for path in sorted(p for p in repo.rglob("*") if p.is_file()):
        yield path.relative_to(repo).as_posix(), path.read_bytes().decode("utf-8")  # line endings as upstream


def build_fixture(fixture: Fixture, root: Path) -> Path:
    """The fixture's files committed as a fresh git repository at ``root``, then adopted as a user would.

    ``--gitignore`` keeps the index cache inside ``root`` (the temp folder), not in the user's cache.
    """
    root.mkdir(parents=True, exist_ok=False)
    files = dict(_files(fixture.repo))
    replay(root, [Commit("R", "2025-09-01T09:00:00+00:00", f"Import {fixture.name}", files)])
    adopt(root, gitignore=True)
    return root
