"""Real engine values for the navigation unit tests: nodes, a resolver table, a substrate, a view.

Every node gets one tether whose ``target`` is its own address, so a test says
what the resolvers find for a node by naming the node (``states={ADDR:
"stale"}``). Citation tethers are checked against a small table of cached
source texts, the way the real citation resolver checks quotes. Nothing here
mocks engine code: the substrate, the view and the router are the real ones.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace

from adapters.base import Edge, Family, Node, Tether, TetherCheck, TetherKind
from adapters.resolvers import Resolvers
from memdsl import parse_output
from synapse_server.navigation.budgets import Budgets
from synapse_server.navigation.claims import Decision
from synapse_server.navigation.router import route
from synapse_server.navigation.substrate import Substrate, admit
from synapse_server.navigation.view import View

_KIND_OF_STATUS = {"grounded": TetherKind.GIT_PIN, "measured": TetherKind.CONTENT_HASH}


@dataclass(frozen=True)
class StateResolver:
    """Answers every tether from a table keyed by the tether's target; unlisted targets are ``ok``."""

    states: Mapping[str, str] = field(default_factory=dict)

    def check(self, tether: Tether) -> TetherCheck:
        state = self.states.get(tether.target, "ok")
        return TetherCheck(tether, state, f"{tether.kind.value} {state}")  # type: ignore[arg-type]


@dataclass(frozen=True)
class SourceResolver:
    """A citation resolver over cached source texts: no record -> unresolved; a quote must occur verbatim."""

    texts: Mapping[str, str] = field(default_factory=dict)

    def check(self, tether: Tether) -> TetherCheck:
        text = self.texts.get(tether.target)
        if text is None:
            return TetherCheck(tether, "unresolved", f"no source record {tether.target}")
        if tether.quote is not None and " ".join(tether.quote.split()) not in " ".join(text.split()):
            return TetherCheck(tether, "failed", "quote not found in the cached source text")
        return TetherCheck(tether, "ok", "source resolves")


def resolvers(states: Mapping[str, str] | None = None, sources: Mapping[str, str] | None = None) -> Resolvers:
    """A full resolver table: pins, hashes and runs from ``states``; citations from ``sources``."""
    table = StateResolver(dict(states or {}))
    return Resolvers(
        {
            TetherKind.GIT_PIN: table,
            TetherKind.CONTENT_HASH: table,
            TetherKind.RUN: table,
            TetherKind.CITATION: SourceResolver(dict(sources or {})),
        }
    )


def node(
    address: str,
    body: str,
    *,
    status: str = "grounded",
    type: str = "decision",
    family: Family | None = None,
    title: str = "",
    links: Iterable[str] = (),
    rel: str = "related",
    contested: bool = False,
    tethers: Sequence[Tether] | None = None,
    provenance: tuple[str, ...] = (),
    path: str | None = None,
) -> Node:
    """One node whose tether (unless given) can support ``status``; ``links`` become outgoing edges."""
    if tethers is None:
        kind = _KIND_OF_STATUS.get(status)
        tethers = () if kind is None else (Tether(kind, address, "0" * 40),)
    store = address.split(":", 1)[0]
    fam: Family = family or {"mem": "memory", "zk": "zk", "repo": "code", "data": "data"}.get(store, "memory")  # type: ignore[assignment]
    return Node(
        address=address,
        type=type,
        title=title or address.rsplit(":", 1)[-1],
        body=body,
        family=fam,
        provenance=provenance,
        tethers=tuple(tethers),
        edges=tuple(Edge(address, dst, rel) for dst in links),
        meta={"contested": True} if contested else {},
        path=path,
    )


def cited(address: str, body: str, source: str, quote: str | None = None, **kwargs: object) -> Node:
    """A zettelkasten-style node backed by a citation tether (grounded when the source resolves)."""
    tether = Tether(TetherKind.CITATION, source, None, quote, "research")
    return node(address, body, tethers=(tether,), type="claim", **kwargs)  # type: ignore[arg-type]


def substrate(
    nodes: Iterable[Node],
    states: Mapping[str, str] | None = None,
    sources: Mapping[str, str] | None = None,
) -> Substrate:
    return Substrate.build({n.address: n for n in nodes}, resolvers(states, sources))


def view_of(sub: Substrate, addresses: Sequence[str] | None = None) -> View:
    """Admit ``addresses`` (default: every node, in insertion order) as n1, n2, ..."""
    empty = View(graph=sub.graph, epistemics={}, refs={}, order=())
    return admit(empty, sub, list(sub.graph.nodes) if addresses is None else list(addresses))


def world(
    *nodes: Node,
    states: Mapping[str, str] | None = None,
    sources: Mapping[str, str] | None = None,
) -> View:
    """Every node admitted in the order given."""
    return view_of(substrate(nodes, states, sources))


def artifact(*lines: str, version: int = 2) -> str:
    """An OUTPUT text from its lines (header added)."""
    return "\n".join((f"@memdsl.out/{version}", *lines)) + "\n"


def answer(*claims: str, prose: str | None = None, cites: Sequence[tuple[str, str]] = (), conclude: str = "c1") -> str:
    """A v2 answer artifact. Without ``prose``, the conclusion's text is the prose, cited whole."""
    parsed_claims = list(claims)
    if prose is None:
        last = next(line for line in parsed_claims if line.split(" ", 2)[1] == conclude)
        prose = last.split(" :: ", 1)[1]
        cites = [(conclude, prose)]
    cite_lines = [f"cite {cid} :: {span}" for cid, span in cites]
    return artifact("@answer", *parsed_claims, f"prose :: {prose}", *cite_lines, f"conclude {conclude}")


def decide(text: str, view: View) -> Decision:
    """Parse an OUTPUT text strictly and route its answer against ``view``."""
    output = parse_output(text)
    assert output.answer is not None, "decide() routes answers; use model_abstention for @abstain"
    return route(output.answer, view, output.version)


def budgets(**overrides: object) -> Budgets:
    base = Budgets(
        assembly_cap=40, loop_cap=40, hops=1, token_budget=24_000, render_max_body_chars=1200, trace_floor=0.0
    )
    return replace(base, **overrides)  # type: ignore[arg-type]
