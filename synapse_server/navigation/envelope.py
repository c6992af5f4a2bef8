"""Render the view as a ``@memdsl/1`` envelope (and node blocks for ACTION-RESPONSE).

The model sees local refs, engine-owned status, framed bodies and a gap for
everything absent: tainted tethers, outdated pins, elided bodies, relations
that do not resolve. Affordances are offered only where the action can do
something: ``expand`` when unadmitted neighbours exist, ``join`` when
unadmitted nodes bridge it to another admitted node, ``ground`` when its body is
elided (a fully rendered node gains nothing from a ground: a verifier can only
weaken it).

A body that several admitted nodes share (a file and the module it defines,
say) is shown once. Its *carrier* is the strongest-status node of the group,
the earliest in order among equals; every other member is an *alias*: its own
header, title, provenance and affordances, and a one-line body naming the
carrier (``= n4 (same text as n4; cite either ref)``). Every admitted node
stays citable by its own ref: the router reads bodies from the graph, never
from the envelope, so citing an alias is citing its real body. The carrier is
shown in full when any member was grounded, and only the carrier offers
``ground`` and carries the ``elided`` gap.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from adapters.base import Node
from memdsl import Affordance, Gap, Render, RenderNode, parse_address
from synapse_server.language.safe_text import line_breaks_escaped
from synapse_server.navigation.epistemics import OUTDATED_DISCLOSURE
from synapse_server.navigation.view import MAX_JOIN_PATH, View

ELIDED_DETAIL = "body truncated; ground to fetch the full record"
_GAP_OF_STATE = {"stale": "stale", "unresolved": "unresolved", "failed": "unresolved"}
_SAFE_TYPE = "text"


_STRENGTH = {"grounded": 2, "measured": 2, "inferred": 0}


def render_envelope(view: View, max_body_chars: int) -> Render:
    carriers = body_carriers(view) if view.alias_duplicates else {}
    nodes = tuple(
        alias_node(view, a, carriers[a]) if a in carriers else render_node(view, a, max_body_chars, carriers)
        for a in view.order
    )
    return Render(
        focus=tuple(view.ref_of(a) for a in view.focus if view.admitted(a)),
        nodes=nodes,
        gaps=tuple(gaps_for(view, view.order, max_body_chars, carriers)),
    )


def body_carriers(view: View) -> dict[str, str]:
    """Alias address -> the address of the admitted node that shows the same body (carriers are absent)."""
    groups: dict[str, list[str]] = {}
    for address in view.order:
        text = _normalised(view.graph.nodes[address].body).strip()
        if text:
            groups.setdefault(text, []).append(address)
    aliases: dict[str, str] = {}
    for members in groups.values():
        if len(members) < 2:
            continue
        carrier = max(members, key=lambda a: (_STRENGTH[view.epistemics[a].status], -members.index(a)))
        aliases.update({a: carrier for a in members if a != carrier})
    return aliases


def alias_text(carrier_ref: str) -> str:
    """The one-line body of an alias: where its text is shown, and that either ref may be cited."""
    return f"= {carrier_ref} (same text as {carrier_ref}; cite either ref)"


def alias_node(view: View, address: str, carrier: str) -> RenderNode:
    node = view.graph.nodes[address]
    return RenderNode(
        ref=view.ref_of(address),
        address=parse_address(address),
        type=_node_type(node.type),
        status=view.epistemics[address].status,
        title=_one_line(node.title),
        prov=tuple(p for p in (_one_line(p) for p in node.provenance) if p),
        aff=affordances(view, node, elided=False),
        body=alias_text(view.ref_of(carrier)),
    )


def render_node(view: View, address: str, max_body_chars: int, carriers: Mapping[str, str] | None = None) -> RenderNode:
    node = view.graph.nodes[address]
    facts = view.epistemics[address]
    body, elided = shown_body(node, max_body_chars, _unelided(view, address, carriers))
    return RenderNode(
        ref=view.ref_of(address),
        address=parse_address(address),
        type=_node_type(node.type),
        status=facts.status,
        elided=elided,
        title=_one_line(node.title),
        prov=tuple(p for p in (_one_line(p) for p in node.provenance) if p),
        aff=affordances(view, node, elided),
        body=body,
    )


def shown_body(node: Node, max_body_chars: int, unelided: bool) -> tuple[str | None, bool]:
    """The body as shown, and whether it was cut (``0`` disables elision).

    Cut first, then every line break but ``\\n`` is shown as an escape, so the
    framed lines are the same under ``str.splitlines`` as under the parser.
    """
    body = _normalised(node.body)
    if not body.strip():
        return None, False
    if unelided or max_body_chars == 0 or len(body) <= max_body_chars:
        return line_breaks_escaped(body), False
    return line_breaks_escaped(body[:max_body_chars]), True


def affordances(view: View, node: Node, elided: bool) -> tuple[Affordance, ...]:
    ref = view.ref_of(node.address)
    verbs: list[str] = []
    if any(not view.admitted(a) for a in view.graph.neighbours(node.address)):
        verbs.append("expand")
    if _joinable(view, node.address):
        verbs.append("join")
    if elided:
        verbs.append("ground")
    return tuple(Affordance(v, ref) for v in verbs)


def _joinable(view: View, address: str) -> bool:
    """Whether ``join`` with some other admitted node would admit the unadmitted nodes bridging them."""
    paths = view.graph.paths_from(address, MAX_JOIN_PATH)
    return any(
        other != address and view.admitted(other) and any(not view.admitted(hop) for hop in path[1:-1])
        for other, path in paths.items()
    )


def _normalised(body: str) -> str:
    return body.replace("\r\n", "\n").replace("\r", "\n")


def _unelided(view: View, address: str, carriers: Mapping[str, str] | None) -> bool:
    """A carrier is shown in full when it or any of its aliases was grounded."""
    if address in view.unelided:
        return True
    return carriers is not None and any(c == address and a in view.unelided for a, c in carriers.items())


def gaps_for(
    view: View, addresses: Iterable[str], max_body_chars: int, carriers: Mapping[str, str] | None = None
) -> list[Gap]:
    """Every gap of ``addresses``; an alias (a key of ``carriers``) leaves the ``elided`` gap to its carrier."""
    gaps: list[Gap] = []
    seen: set[tuple[str, str, str]] = set()

    def add(token: str, address: str, detail: str) -> None:
        key = (token, address, detail)
        if key not in seen:
            seen.add(key)
            gaps.append(Gap(token, parse_address(address), _one_line(detail) or token))

    for address in addresses:
        node = view.graph.nodes[address]
        facts = view.epistemics[address]
        for check in facts.checks:
            token = _GAP_OF_STATE.get(check.state)
            if token is not None:
                add(token, address, check.detail)
        if facts.outdated:
            add("outdated", address, OUTDATED_DISCLOSURE)
        if (carriers is None or address not in carriers) and shown_body(
            node, max_body_chars, _unelided(view, address, carriers)
        )[1]:
            add("elided", address, ELIDED_DETAIL)
        for edge in view.graph.dangling(address):
            target = edge.dst if _is_address(edge.dst) else address
            add("missing", target, f"{edge.rel} from {address} does not resolve")
    for missing in view.missing:
        add("missing", missing.address, missing.detail)
    return gaps


def _is_address(text: str) -> bool:
    try:
        parse_address(text)
    except ValueError:
        return False
    return True


def _node_type(kind: str) -> str:
    cleaned = "".join(c if c.isascii() and (c.isalnum() or c in "_.-") else "-" for c in kind)
    return cleaned if cleaned[:1].isalpha() else _SAFE_TYPE


def _one_line(text: str | None) -> str | None:
    if text is None:
        return None
    flat = " ".join(text.split())
    return flat or None
