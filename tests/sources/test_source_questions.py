"""Each adopted kind answers its own question through a real navigate turn over a real git repository.

The offline navigator is being improved elsewhere, so these tests pin what
must hold whatever it picks: the evidence it reads is the adopted node (never
a ``repo:`` copy of the file), an answer cites that node with the status its
tether earns, and anything else is a labelled abstention.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.index import Embedder
from synapse_server.isolation.turn import navigate_turn
from synapse_server.navigation.request import NavigateRequest
from synapse_server.workspace.adopt import adopt
from tests.support.source_fixtures import adr_repo, commit_all, mem_files, mlflow_runs, vault_files

pytestmark = pytest.mark.both_backends

pytest.importorskip("mlflow", reason="the mlflow dev dependency writes the mlruns fixture")


@pytest.fixture(scope="module")
def adopted(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = adr_repo(tmp_path_factory.mktemp("questions") / "repo")
    vault_files(root / "notes")
    (root / "notes" / ".obsidian").mkdir(exist_ok=True)
    mem_files(root / "memory")
    ids = mlflow_runs(root)
    commit_all(root, "notes, memory and runs")
    kinds = [f.source.kind for f in adopt(root).findings]
    assert kinds == ["adr", "notes", "mlflow", "mem"]
    return root, ids


@pytest.mark.parametrize(
    ("question", "address", "status"),
    [
        ("How long does replaying one year of ledger events take?", "zk:notes:event-sourcing", "grounded"),
        ("What is the rule about card numbers in logs?", "mem:mem:privacy.no_card_numbers_in_logs", "grounded"),
        ("How long did HTML rendering make the billing run?", "data:runs:{hashed}", "measured"),
    ],
)
def test_an_adopted_source_answers_its_own_question_or_abstains_with_a_reason(
    adopted: tuple[Path, dict[str, str]], embedder: Embedder, question: str, address: str, status: str
) -> None:
    root, ids = adopted
    address = address.format(**ids)
    result = navigate_turn(root, NavigateRequest(question=question), embedder=embedder)
    assert address in result.envelope
    for folder in ("doc/adr/", "notes/", "memory/", "mlruns/"):
        assert f"repo:repo:{folder}" not in result.envelope  # an adopted file is never also a code node
    assert result.verdict in ("answer", "abstain")
    if result.verdict == "answer":
        assert result.answer_surface is not None
        cited = [c.address for c in result.answer_surface.citations]
        assert cited == [address] and result.status == status
    else:
        assert result.reasons
