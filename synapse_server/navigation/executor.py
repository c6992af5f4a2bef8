"""Execute the model's navigation actions against the live substrate, in the fixed order.

Topologic actions (expand, join) first, then parametric (ground), then prune.
Every action is bounded by the node cap and the hop budget; an action that
cannot run is reported as a gap in the ACTION-RESPONSE, never an exception.
An expand or join that admits nothing says why in a gap, so the model's next
move is informed: the node has no relation that reaches a node (or no path of
at most ``MAX_JOIN_PATH`` edges joins the pair), everything it reaches is
already shown, or the target has no relations at all and cannot be expanded.
A verifier can only weaken a node (a refuted quote), never strengthen it: a
quote verifier call without a quote is ``unverifiable``.
"""

from __future__ import annotations

import enum
import itertools
from collections.abc import Sequence
from dataclasses import dataclass, replace

from adapters.base import Tether, TetherCheck, TetherKind
from memdsl import ActionCall, Gap, RenderNode, Response, parse_address
from synapse_server.navigation.envelope import gaps_for, render_node
from synapse_server.navigation.substrate import Substrate, admit
from synapse_server.navigation.view import MAX_JOIN_PATH, View

PHASE = {"expand": 0, "join": 0, "ground": 1, "prune": 2}


@dataclass(frozen=True, slots=True)
class VerifierResult:
    address: str
    verifier: str
    outcome: str  # ok | failed | unverifiable
    detail: str


class RefusalKind(enum.Enum):
    """Why an action did not run (or ran in part); the loop decides on these, never on a refusal's words."""

    UNKNOWN_REF = "unknown-ref"
    HOP_BUDGET = "hop-budget"
    NODE_CAP = "node-cap"


@dataclass(frozen=True, slots=True)
class Refusal:
    """One refused action: its kind, its verb and the words a person reads (``str()`` gives ``verb: detail``)."""

    kind: RefusalKind
    verb: str
    detail: str

    def __str__(self) -> str:
        return f"{self.verb}: {self.detail}"


@dataclass(frozen=True, slots=True)
class Execution:
    view: View
    response: Response
    topologic: bool
    refused: tuple[Refusal, ...]
    verifications: tuple[VerifierResult, ...]


def ordered(actions: Sequence[ActionCall]) -> list[ActionCall]:
    """The fixed execution order, stable within a phase."""
    return sorted(actions, key=lambda a: PHASE.get(a.verb, 3))


def execute(
    view: View,
    substrate: Substrate,
    actions: Sequence[ActionCall],
    *,
    loop_cap: int | None,
    hops_left: int,
    max_body_chars: int,
) -> Execution:
    before = set(view.order)
    touched: list[str] = []
    problems: list[Gap] = []
    refused: list[Refusal] = []
    verifications: list[VerifierResult] = []
    topologic = False
    for action in ordered(actions):
        targets = [_resolve_ref(view, ref) for ref in action.args]
        if any(t is None for t in targets):
            refused.append(Refusal(RefusalKind.UNKNOWN_REF, action.verb, f"unknown ref {', '.join(action.args)}"))
            problems.extend(_unknown_ref_gaps(view, action.verb, action.args))
            continue
        addresses = [t for t in targets if t is not None]
        if action.verb in ("expand", "join"):
            call = f"{action.verb}({', '.join(view.ref_of(a) for a in addresses)})"
            if hops_left <= 0:
                refused.append(Refusal(RefusalKind.HOP_BUDGET, action.verb, "hop budget exhausted"))
                problems.append(_gap(addresses[0], f"{call} not run: no expand/join round is left"))
                continue
            topologic = True
            if action.verb == "expand":
                new = _expand(view, addresses)
                problems.extend(() if new else (_why_expand_adds_nothing(view, addresses[0]),))
            else:
                new = _join(view, addresses)
                problems.extend(_why_join_adds_little(view, addresses, added=bool(new)))
            room = None if loop_cap is None else max(0, loop_cap - len(view.order))
            if room is not None and len(new) > room:
                detail = f"node cap reached, {len(new) - room} node(s) not admitted"
                refused.append(Refusal(RefusalKind.NODE_CAP, action.verb, detail))
                problems.append(_gap(addresses[0], f"{call}: the node cap admitted {room} of {len(new)} new node(s)"))
                new = new[:room]
            view = admit(view, substrate, new)
        elif action.verb == "ground":
            address = addresses[0]
            view = replace(view, unelided=view.unelided | {address})
            touched.append(address)
            kwargs = dict(action.kwargs)
            if "verifier" in kwargs:
                result = _verify(substrate, address, kwargs["verifier"], kwargs.get("quote"))
                verifications.append(result)
                if result.outcome == "failed":
                    facts = substrate.add_check(address, _refutation(address, result))
                    view = replace(view, epistemics={**view.epistemics, address: facts})
        elif action.verb == "prune":
            view = view.prune(addresses[0])
    if topologic:
        view = replace(view, depth=view.depth + 1)
    shown = [a for a in view.order if a not in before] + [a for a in dict.fromkeys(touched) if view.admitted(a)]
    shown = list(dict.fromkeys(shown))
    nodes = tuple(render_node(view, a, max_body_chars) for a in shown)
    gaps = tuple(problems) + tuple(gaps_for(view, shown, max_body_chars))
    status = "partial" if refused or problems else "ok"
    response = Response(status=status, nodes=_self_contained(nodes), gaps=gaps)
    return Execution(view, response, topologic, tuple(refused), tuple(verifications))


def _resolve_ref(view: View, ref: str) -> str | None:
    if ref in view.order:
        return ref
    return view.address_of(ref)


def _expand(view: View, addresses: Sequence[str]) -> list[str]:
    new: list[str] = []
    for address in addresses:
        for neighbour in view.graph.neighbours(address):
            if not view.admitted(neighbour) and neighbour not in new:
                new.append(neighbour)
    return new


def _join(view: View, addresses: Sequence[str]) -> list[str]:
    """Nodes on the shortest path (at most ``MAX_JOIN_PATH`` edges) between each consecutive pair."""
    new: list[str] = []
    for a, b in itertools.pairwise(addresses):
        for hop in _path(view, a, b)[1:-1]:
            if not view.admitted(hop) and hop not in new:
                new.append(hop)
    return new


def _path(view: View, start: str, goal: str) -> tuple[str, ...]:
    return view.graph.paths_from(start, MAX_JOIN_PATH).get(goal, ())


def _why_expand_adds_nothing(view: View, address: str) -> Gap:
    """Why ``expand`` admitted nothing: a node with no relations, relations that reach no node, or all shown."""
    ref = view.ref_of(address)
    neighbours = view.graph.neighbours(address)
    if neighbours:
        return _gap(
            address, f"expand({ref}) added nothing: every neighbour is already shown ({_refs(view, neighbours)})"
        )
    relations = _relations(view, address)
    if relations:
        return _gap(address, f"expand({ref}) added nothing: none of its {relations} relation(s) reaches a node")
    kind = view.graph.nodes[address].type
    return _gap(address, f"expand({ref}) added nothing: this {kind} node has no relations and cannot be expanded")


def _why_join_adds_little(view: View, addresses: Sequence[str], *, added: bool) -> list[Gap]:
    """A gap for each pair no path joins; when the whole join admitted nothing, also for each pair already joined."""
    gaps: list[Gap] = []
    for a, b in itertools.pairwise(addresses):
        call = f"join({view.ref_of(a)}, {view.ref_of(b)})"
        path = _path(view, a, b)
        if path and not added:
            between = path[1:-1]
            how = (
                f"every node between them is already shown ({_refs(view, between)})"
                if between
                else "they are directly related"
            )
            gaps.append(_gap(a, f"{call} added nothing: {how}"))
        elif not path:
            isolated = next((x for x in (a, b) if not _relations(view, x)), None)
            if isolated is not None:
                kind = view.graph.nodes[isolated].type
                gaps.append(
                    _gap(
                        isolated,
                        f"{call}: {view.ref_of(isolated)} is a {kind} node with no relations, so no path reaches it",
                    )
                )
            else:
                gaps.append(_gap(a, f"{call}: no path of at most {MAX_JOIN_PATH} relations links them"))
    return gaps


def _unknown_ref_gaps(view: View, verb: str, refs: Sequence[str]) -> list[Gap]:
    """A ref the envelope does not show: a pruned ref, a node not shown yet, or an address that is no node."""
    gaps: list[Gap] = []
    for ref in refs:
        if _resolve_ref(view, ref) is not None:
            continue
        pruned = next((address for address, known in view.refs.items() if known == ref), None)
        if pruned is not None:
            gaps.append(_gap(pruned, f"{verb}({ref}) not run: {ref} was pruned from the envelope"))
        elif ref in view.graph.nodes:
            gaps.append(
                _gap(
                    ref, f"{verb}({ref}) not run: the node is not shown; expand or join a shown node that relates to it"
                )
            )
        elif _is_address(ref):
            gaps.append(_gap(ref, f"{verb}({ref}) not run: no node has this address", token="unresolved"))
    return gaps


def _relations(view: View, address: str) -> int:
    return len(view.graph.out_edges.get(address, ())) + len(view.graph.in_edges.get(address, ()))


def _refs(view: View, addresses: Sequence[str], limit: int = 6) -> str:
    shown = [view.ref_of(a) for a in addresses[:limit]]
    return ", ".join(shown) + (f" and {len(addresses) - limit} more" if len(addresses) > limit else "")


def _gap(address: str, detail: str, *, token: str = "missing") -> Gap:
    return Gap(token, parse_address(address), detail)


def _is_address(text: str) -> bool:
    try:
        parse_address(text)
    except ValueError:
        return False
    return True


def _verify(substrate: Substrate, address: str, verifier: str, quote: str | None) -> VerifierResult:
    if verifier != "quote":
        return VerifierResult(address, verifier, "unverifiable", f"no verifier named {verifier!r}")
    if not quote:
        return VerifierResult(address, verifier, "unverifiable", "quote verifier called without a quote")
    node = substrate.graph.nodes[address]
    if _normalise_space(quote) in _normalise_space(node.body):
        return VerifierResult(address, verifier, "ok", "quote found verbatim in the node body")
    for tether in node.tethers:
        if tether.kind is TetherKind.CITATION:
            probe = Tether(TetherKind.CITATION, tether.target, tether.ref, quote, tether.project)
            check = substrate.resolvers.resolve(probe)
            if check.state == "ok":
                return VerifierResult(address, verifier, "ok", "quote found verbatim in a cited source")
    return VerifierResult(address, verifier, "failed", "quote not found in the node or its cited sources")


def _refutation(address: str, result: VerifierResult) -> TetherCheck:
    return TetherCheck(Tether(TetherKind.CITATION, address), "failed", result.detail)


def _normalise_space(text: str) -> str:
    return " ".join(text.split())


def _self_contained(nodes: tuple[RenderNode, ...]) -> tuple[RenderNode, ...]:
    """A response must only offer actions on nodes it contains; drop affordances on absent refs."""
    refs = {n.ref for n in nodes}
    return tuple(replace(n, aff=tuple(a for a in n.aff if a.ref in refs)) for n in nodes)
