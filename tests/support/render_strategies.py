"""Hypothesis strategies for RENDER and ACTION-RESPONSE values, shared by both test modules.

Free text is deliberately hostile: bodies, titles, provenance and gap details
are drawn from lines that look like protocol (headers, frames, node and gap
lines, terminals), blank and space-led lines, and arbitrary unicode, so the
round-trip properties prove the framing keeps all of it inert.
"""

from __future__ import annotations

from hypothesis import strategies as st

from memdsl.address import Address, Locator
from memdsl.render import AFFORDANCE_VERBS, GAP_TOKENS, STATUSES, Affordance, Gap, Render, RenderNode
from memdsl.response import RESPONSE_STATUSES, Response

PROTOCOL_LOOKING = [
    "@answer",
    "@abstain low-coverage :: nothing grounds it",
    "@memdsl/1",
    "@memdsl.resp/1",
    "@memdsl.out/2",
    "| x",
    "|",
    "| ",
    "|x",
    "node n1 mem:tree:cost-model decision grounded",
    "node n2 data:runs:run-042 dataset measured elided",
    "gap stale mem:tree:x the pin drifted",
    "focus n1, n2",
    "status ok",
    "title A title",
    "prov file:a.py@abc1234",
    "aff expand:n1, join:n2",
    "body",
    "claim c1 [restatement] cites n1 :: Costs rose.",
    "conclude c1",
    "```memdsl",
    "",
    " ",
    "   leading spaces",
    "trailing spaces   ",
    "\t tab-led",
    "unicode ✓ über 漢字 ﷽",
    "separators \u2028 \u2029 \x85 \x0b \x0c inside",
]

_SEGMENT = st.text(
    alphabet=st.characters(blacklist_characters=":{},", blacklist_categories=("Zs", "Zl", "Zp", "Cc", "Cs")),
    min_size=1,
    max_size=12,
)
_STAMP = st.text(
    alphabet=st.characters(blacklist_characters="{},#@", blacklist_categories=("Zs", "Zl", "Zp", "Cc", "Cs")),
    min_size=1,
    max_size=12,
)
_LINE_TEXT = st.text(alphabet=st.characters(exclude_characters="\n\r", codec="utf-8"), max_size=30)

single_line = st.one_of(st.sampled_from([t for t in PROTOCOL_LOOKING if t]), _LINE_TEXT.filter(bool))
"""Non-empty text without a line break: titles, provenance handles, gap details."""

bodies = st.lists(st.one_of(st.sampled_from(PROTOCOL_LOOKING), _LINE_TEXT), min_size=1, max_size=6).map("\n".join)
"""Bodies full of protocol-looking lines, blank lines and unicode (never '\\r')."""

node_types = st.one_of(
    st.sampled_from(["decision", "claim", "dataset", "anti-pattern", "function"]),
    st.from_regex(r"[A-Za-z][A-Za-z0-9_.-]{0,10}", fullmatch=True),
)


@st.composite
def locators(draw: st.DrawFn) -> Locator | None:
    kind = draw(st.sampled_from(["none", "span", "stamp", "both"]))
    if kind == "none":
        return None
    start = draw(st.integers(0, 10_000))
    end = start + draw(st.integers(1, 10_000))
    if kind == "span":
        return Locator(start, end)
    if kind == "stamp":
        return Locator(as_of=draw(_STAMP))
    return Locator(start, end, draw(_STAMP))


@st.composite
def addresses(draw: st.DrawFn) -> Address:
    return Address(draw(_SEGMENT), draw(_SEGMENT), draw(_SEGMENT), draw(locators()))


gaps = st.builds(Gap, st.sampled_from(GAP_TOKENS), addresses(), single_line)


@st.composite
def ref_sets(draw: st.DrawFn) -> list[str]:
    """Unique local refs, in no particular order (an envelope need not number them densely)."""
    return [f"n{i}" for i in draw(st.lists(st.integers(1, 10**6), unique=True, max_size=4))]


@st.composite
def render_nodes(draw: st.DrawFn, ref: str, refs: list[str]) -> RenderNode:
    aff = draw(st.lists(st.builds(Affordance, st.sampled_from(AFFORDANCE_VERBS), st.sampled_from(refs)), unique=True))
    return RenderNode(
        ref=ref,
        address=draw(addresses()),
        type=draw(node_types),
        status=draw(st.sampled_from(STATUSES)),
        elided=draw(st.booleans()),
        title=draw(st.none() | single_line),
        prov=tuple(draw(st.lists(single_line, max_size=3))),
        aff=tuple(aff[:4]),
        body=draw(st.none() | bodies),
    )


@st.composite
def node_lists(draw: st.DrawFn) -> tuple[RenderNode, ...]:
    refs = draw(ref_sets())
    return tuple(draw(render_nodes(ref, refs)) for ref in refs)


@st.composite
def renders(draw: st.DrawFn) -> Render:
    nodes = draw(node_lists())
    refs = [node.ref for node in nodes]
    focus = draw(st.lists(st.sampled_from(refs), unique=True)) if refs else []
    return Render(tuple(focus), nodes, tuple(draw(st.lists(gaps, max_size=3))))


@st.composite
def responses(draw: st.DrawFn) -> Response:
    status = draw(st.sampled_from(RESPONSE_STATUSES))
    return Response(status, draw(node_lists()), tuple(draw(st.lists(gaps, max_size=3))))


@st.composite
def mutated(draw: st.DrawFn, text: str) -> str:
    """``text`` after a few line deletions, duplications, swaps or character insertions.

    The header line is left alone (other tests cover it) so mutations reach the blocks.
    """
    lines = text.split("\n")
    for _ in range(draw(st.integers(1, 3))):
        op = draw(st.sampled_from(["delete", "duplicate", "swap", "insert"]))
        first = 1 if len(lines) > 1 else 0
        i = draw(st.integers(first, len(lines) - 1))
        j = draw(st.integers(first, len(lines) - 1))
        if op == "delete" and len(lines) > 1:
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "swap":
            lines[i], lines[j] = lines[j], lines[i]
        else:
            at = draw(st.integers(0, len(lines[i])))
            char = draw(st.sampled_from([" ", "\n", "\r", "\t", "|", ":", ",", "{", "@", "x", "é"]) | st.characters())
            lines[i] = lines[i][:at] + char + lines[i][at:]
    return "\n".join(lines)
