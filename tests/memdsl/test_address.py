from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from memdsl import Address, Locator, MemDSLParseError, format_address, parse_address

SEGMENT = st.text(
    alphabet=st.characters(blacklist_characters=":{},", blacklist_categories=("Zs", "Zl", "Zp", "Cc", "Cs")),
    min_size=1,
    max_size=20,
)
STAMP = st.text(
    alphabet=st.characters(blacklist_characters="{},#@", blacklist_categories=("Zs", "Zl", "Zp", "Cc", "Cs")),
    min_size=1,
    max_size=20,
)


@st.composite
def locators(draw: st.DrawFn) -> Locator | None:
    kind = draw(st.sampled_from(["none", "span", "stamp", "both"]))
    if kind == "none":
        return None
    start = draw(st.integers(0, 10_000))
    end = start + draw(st.integers(1, 10_000))
    stamp = draw(STAMP)
    if kind == "span":
        return Locator(start, end)
    if kind == "stamp":
        return Locator(as_of=stamp)
    return Locator(start, end, stamp)


@given(SEGMENT, SEGMENT, SEGMENT, locators())
def test_format_then_parse_is_identity(store: str, source: str, id_: str, locator: Locator | None) -> None:
    address = Address(store, source, id_, locator)
    assert parse_address(format_address(address)) == address


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("mem:tree:deci-e17103e8", Address("mem", "tree", "deci-e17103e8")),
        ("repo:angelo:zettelkasten.synapse.navigate", Address("repo", "angelo", "zettelkasten.synapse.navigate")),
        ("repo:demo:models/costs.py", Address("repo", "demo", "models/costs.py")),
        ("doc:prospectus2026:p12{#1024-1280}", Address("doc", "prospectus2026", "p12", Locator(1024, 1280))),
        (
            "series:spx:close{@2026-07-23T00:00:00Z}",
            Address("series", "spx", "close", Locator(as_of="2026-07-23T00:00:00Z")),
        ),
        ("doc:filing:s3{#0-40@2026-01-01}", Address("doc", "filing", "s3", Locator(0, 40, "2026-01-01"))),
        ("zk:lab.research:20260706-1832-claim", Address("zk", "lab.research", "20260706-1832-claim")),
    ],
    ids=["memory", "dotted-symbol", "slashed-path", "span", "stamp", "span-and-stamp", "federated"],
)
def test_seed_addresses_parse(text: str, expected: Address) -> None:
    assert parse_address(text) == expected
    assert format_address(expected) == text


def test_reserved_session_and_work_stores_are_accepted_by_the_parser() -> None:
    assert parse_address("session:s1:scratch").reserved
    assert parse_address("work:w1:item").reserved
    assert not parse_address("mem:tree:x").reserved


@pytest.mark.parametrize(
    ("text", "code", "column"),
    [
        ("", "address.empty", 1),
        ("mem:tree", "address.arity", 1),
        ("mem:tree:a:b", "address.arity", 1),
        ("mem::x", "address.segment", 5),
        ("mem:tr ee:x", "address.separator", 7),
        ("mem:tree:a,b", "address.separator", 11),
        ("mem:tree:x{#5-5}", "address.span", 11),
        ("mem:tree:x{#9-3}", "address.span", 11),
        ("mem:tree:x{#01-3}", "address.span", 11),
        ("mem:tree:x{}", "address.locator", 11),
        ("mem:tree:x{@}", "address.stamp", 11),
        ("mem:tree:x{#1-3", "address.locator", 11),
        ("mem:tree:x}", "address.locator", 11),
        ("mem:tree:x{#1-3}y", "address.locator", 11),
        ("mem:tree:x{junk}", "address.locator", 11),
    ],
    ids=[
        "empty",
        "two-segments",
        "four-segments",
        "empty-segment",
        "whitespace",
        "comma",
        "empty-span",
        "reversed-span",
        "leading-zero",
        "empty-locator",
        "empty-stamp",
        "unclosed-locator",
        "stray-brace",
        "text-after-locator",
        "unknown-locator",
    ],
)
def test_malformed_addresses_fail_with_code_and_column(text: str, code: str, column: int) -> None:
    with pytest.raises(MemDSLParseError) as info:
        parse_address(text)
    assert info.value.code == code
    assert info.value.column == column


def test_constructing_an_address_with_a_separator_is_refused() -> None:
    with pytest.raises(MemDSLParseError) as info:
        Address("mem", "tree", "a:b")
    assert info.value.code == "address.separator"


@given(st.text(max_size=60))
def test_arbitrary_text_raises_only_parse_errors(text: str) -> None:
    try:
        address = parse_address(text)
    except MemDSLParseError:
        return
    assert format_address(address) == text
