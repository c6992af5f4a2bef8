"""search shows each document once: a note and its own source record, or one text under two addresses, are one hit."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from adapters.base import Edge, Node
from adapters.index import Embedder
from synapse_server.navigation.twins import fold_twins
from tests.support.servers import ServerFactory
from tests.support.tool_calls import call, payload

pytestmark = pytest.mark.anyio

NOTE = "zk:lab:20260101-0900-kyle-lambda"
SOURCE = "zk:lab:kyle-1985"
NEIGHBOUR = "zk:lab:20260101-1000-impact-estimates"
COPY_A = "zk:lab:20260102-0900-square-root-law"
COPY_B = "zk:lab:20260102-0930-square-root-law-copy"
TWO_SOURCES = "zk:lab:20260103-0900-impact-survey"


def _note(root: Path, ident: str, title: str, body: str, sources: tuple[str, ...] = ()) -> None:
    meta: dict[str, Any] = {"id": ident, "type": "claim", "title": title}
    if sources:
        meta["citations"] = [{"source": s} for s in sources]
    path = root / ".zettelkasten" / "lab" / "notes" / f"{ident}.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"---\n{yaml.safe_dump(meta, sort_keys=False)}---\n\n{body}\n", encoding="utf-8")


def _source(root: Path, ident: str, title: str) -> None:
    path = root / ".zettelkasten" / "lab" / "sources" / f"{ident}.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {"id": ident, "title": title, "year": 1985, "authors": ["Albert Kyle"]}
    path.write_text(yaml.safe_dump(record, sort_keys=False), encoding="utf-8")


@pytest.fixture
def lab(tmp_path: Path) -> Path:
    """A note citing only its source, a hostile neighbour sharing its words, a copied note, a two-source note."""
    root = tmp_path / "lab"
    (root / ".synapse").mkdir(parents=True)
    config = {"projects": ["lab"], "memory": ".memory", "zettelkasten": ".zettelkasten", "cache": ".angelo"}
    (root / ".synapse" / "config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    _source(root, "kyle-1985", "Kyle lambda: continuous auctions and insider trading price impact")
    _source(root, "almgren-2005", "Direct estimation of equity market impact")
    _note(
        root,
        "20260101-0900-kyle-lambda",
        "Kyle lambda measures price impact",
        "Kyle's lambda is the price impact of order flow in continuous auctions with an insider.",
        ("kyle-1985",),
    )
    _note(
        root,
        "20260101-1000-impact-estimates",
        "Kyle lambda price impact estimates vary",
        "Estimates of Kyle lambda price impact vary with the auction and the insider's order flow.",
    )
    copied = "Market impact grows with the square root of the traded volume over daily volume."
    _note(root, "20260102-0900-square-root-law", "Square root law of market impact", copied)
    _note(root, "20260102-0930-square-root-law-copy", "Square root law of market impact", copied)
    _note(
        root,
        "20260103-0900-impact-survey",
        "Kyle lambda and direct market impact estimation",
        "A survey of Kyle lambda price impact and direct estimation of equity market impact.",
        ("kyle-1985", "almgren-2005"),
    )
    return root


async def _hits(make_server: ServerFactory, root: Path, embedder: Embedder, query: str) -> list[dict[str, Any]]:
    body = payload(await call(make_server(root, embedder=embedder), action="search", query=query, limit=10))
    hits: list[dict[str, Any]] = body["hits"]
    return hits


def _every_address(hits: list[dict[str, Any]]) -> list[str]:
    return [a for h in hits for a in (h["address"], *h["also"])]


async def test_a_note_and_the_one_source_it_cites_are_one_hit_carrying_both_addresses(
    make_server: ServerFactory, lab: Path, embedder: Embedder
) -> None:
    hits = await _hits(make_server, lab, embedder, "Kyle lambda price impact continuous auctions insider")
    merged = [h for h in hits if {h["address"], *h["also"]} == {NOTE, SOURCE}]
    assert len(merged) == 1, hits
    assert _every_address(hits).count(NOTE) == 1 and _every_address(hits).count(SOURCE) == 1
    assert [h["rank"] for h in hits] == list(range(1, len(hits) + 1))


async def test_a_note_sharing_words_with_another_stays_its_own_hit(
    make_server: ServerFactory, lab: Path, embedder: Embedder
) -> None:
    hits = await _hits(make_server, lab, embedder, "Kyle lambda price impact estimates order flow")
    by_address = {h["address"]: h for h in hits}
    assert NEIGHBOUR in by_address and NEIGHBOUR not in {a for h in hits for a in h["also"]}
    assert by_address[NEIGHBOUR]["also"] == []
    assert NOTE in by_address or NOTE in {a for h in hits for a in h["also"]}


async def test_a_note_citing_two_sources_is_not_folded_with_either(
    make_server: ServerFactory, lab: Path, embedder: Embedder
) -> None:
    hits = await _hits(make_server, lab, embedder, "Kyle lambda direct estimation of equity market impact survey")
    survey = next(h for h in hits if h["address"] == TWO_SOURCES)
    assert survey["also"] == []
    assert "zk:lab:almgren-2005" in [h["address"] for h in hits] + [a for h in hits for a in h["also"]]
    assert all(TWO_SOURCES not in h["also"] for h in hits)


async def test_the_same_title_and_text_under_two_addresses_is_one_hit(
    make_server: ServerFactory, lab: Path, embedder: Embedder
) -> None:
    hits = await _hits(make_server, lab, embedder, "square root law of market impact")
    copies = [h for h in hits if {h["address"], *h["also"]} == {COPY_A, COPY_B}]
    assert len(copies) == 1, hits
    assert sum(h["address"] in (COPY_A, COPY_B) for h in hits) == 1


def test_the_cli_prints_the_folded_address_under_its_hit(lab: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from synapse_server.cli.main import main

    assert main(["search", "square root law of market impact", "--root", str(lab), "--limit", "3"]) == 0
    lines = capsys.readouterr().out.splitlines()
    first = next(i for i, line in enumerate(lines[1:], 1) if COPY_A in line or COPY_B in line)  # 0 is the summary
    other = COPY_B if COPY_A in lines[first] else COPY_A
    assert lines[first + 2].strip() == f"also: {other}"


def _node(address: str, body: str, *, type_: str = "claim", cites: tuple[str, ...] = ()) -> Node:
    edges = tuple(Edge(address, dst, "cites") for dst in cites)
    return Node(address=address, type=type_, title=address.rsplit(":", 1)[1], body=body, family="zk", edges=edges)


FOLD_NODES = {
    n.address: n
    for n in (
        _node("zk:p:src", "# A paper", type_="source"),
        _node("zk:p:a", "First note.", cites=("zk:p:src",)),
        _node("zk:p:b", "Second note.", cites=("zk:p:src",)),
        _node("zk:p:both", "Cites two.", cites=("zk:p:src", "zk:p:other-src")),
        _node("zk:p:other-src", "# Another paper", type_="source"),
    )
}


def test_a_source_ranked_first_takes_its_first_citing_note_and_a_second_citing_note_stays_apart() -> None:
    groups = fold_twins(["zk:p:src", "zk:p:b", "zk:p:a"], FOLD_NODES)
    assert groups == [["zk:p:src", "zk:p:b"], ["zk:p:a"]]


def test_a_note_citing_two_sources_and_an_unknown_address_fold_with_nothing() -> None:
    order = ["zk:p:both", "zk:p:src", "zk:p:other-src", "zk:p:gone"]
    assert fold_twins(order, FOLD_NODES) == [[a] for a in order]


def test_every_identical_copy_folds_into_the_first_even_after_it_took_its_source() -> None:
    nodes = dict(FOLD_NODES)
    nodes["zk:p:a-copy"] = replace(FOLD_NODES["zk:p:a"], address="zk:p:a-copy")
    nodes["zk:p:a-again"] = replace(FOLD_NODES["zk:p:a"], address="zk:p:a-again")
    groups = fold_twins(["zk:p:a", "zk:p:src", "zk:p:a-copy", "zk:p:b", "zk:p:a-again"], nodes)
    assert groups == [["zk:p:a", "zk:p:src", "zk:p:a-copy", "zk:p:a-again"], ["zk:p:b"]]
