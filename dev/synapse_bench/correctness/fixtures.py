"""The correctness fixtures: decision records, gold answers, and the workspace built from them.

Each record is committed as ``docs/adr/<file>`` with a fixed identity and date
(the demo's git replay), then mirrored as a memory decision whose body is the
record and whose pin names that commit, so every sentence is grounded and the
router can only accept or refuse a verbatim quote: what varies is the choice.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field

from synapse_server.demo.gitreplay import Commit, replay

DATA = Path(__file__).resolve().parent / "data"
ROOT_ID = "root-7e55e7a0"
CONFIG = """# Synapse workspace of the correctness benchmark: decision records of a fictional service.
projects: []
code: {name: tessera, path: .}
model: extractive
"""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Record(_Strict):
    id: str = Field(pattern=r"^adr-[0-9a-f]{8}$")
    file: str = Field(pattern=r"^[0-9]{4}-[a-z0-9-]+\.md$")
    status: Literal["active", "superseded"]
    layout: Literal["nygard", "madr"]
    title: str
    body: str

    @property
    def address(self) -> str:
        return f"mem:tree:{self.id}"


class Case(_Strict):
    id: str = Field(pattern=r"^[a-z0-9-]+$")
    about: str
    question: str
    kind: Literal["answerable", "false-premise", "absent"]
    correct: tuple[str, ...] = ()
    partial: tuple[str, ...] = ()


class Fixtures(_Strict):
    records: tuple[Record, ...]
    cases: tuple[Case, ...]


def load_fixtures(data: Path = DATA) -> Fixtures:
    """Read both files; a case whose gold sentence is in no record, or an answerable case without gold, is refused."""
    records = yaml.safe_load((data / "adrs.yaml").read_text(encoding="utf-8"))["records"]
    cases = yaml.safe_load((data / "questions.yaml").read_text(encoding="utf-8"))["cases"]
    fixtures = Fixtures(records=records, cases=cases)
    bodies = " ".join(" ".join(record.body.split()) for record in fixtures.records)
    for case in fixtures.cases:
        if (case.kind == "answerable") != bool(case.correct):
            raise ValueError(f"case {case.id}: an answerable case needs correct sentences, and only it may have them")
        missing = [sentence for sentence in (*case.correct, *case.partial) if sentence not in bodies]
        if missing:
            raise ValueError(f"case {case.id}: gold sentence not in any record: {missing[0]!r}")
    if len({case.id for case in fixtures.cases}) != len(fixtures.cases):
        raise ValueError("case ids must be unique")
    return fixtures


def build_workspace(root: Path, fixtures: Fixtures) -> Path:
    """A git repository holding the records, plus the memory decisions pinned to the commit that added them."""
    files = {f"docs/adr/{record.file}": record.body for record in fixtures.records}
    files[".synapse/config.yaml"] = CONFIG
    root.mkdir(parents=True, exist_ok=False)
    sha = replay(root, [Commit("R", "2025-09-01T09:00:00+00:00", "Add the architecture decision records", files)])["R"]
    tree = root / ".memory" / "tree"
    tree.mkdir(parents=True)
    (tree / f"{ROOT_ID}.md").write_text(
        f"---\nid: {ROOT_ID}\nkind: root\ntitle: Tessera architecture\nstatus: active\n---\n"
        "Architecture decisions of the Tessera document-indexing service.\n",
        encoding="utf-8",
    )
    for record in fixtures.records:
        front = {
            "id": record.id,
            "kind": "decision",
            "title": record.title,
            "status": record.status,
            "parent": ROOT_ID,
            "pins": [f"docs/adr/{record.file}@{sha[:7]}"],
            "tags": ["adr", record.layout],
        }
        text = f"---\n{yaml.safe_dump(front, sort_keys=False)}---\n{record.body}"
        (tree / f"{record.id}.md").write_text(text, encoding="utf-8")
    return root
