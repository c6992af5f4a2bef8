"""The three MemDSL parsers under fuzzing: any text gets a value or a MemDSLParseError, nothing else.

Four kinds of input, each for every parser: arbitrary unicode text (lone
surrogates and every line separator included), lines that look like protocol
joined with any newline style, the golden and invalid artifacts of
``tests/memdsl`` mutated by edits at random places, and raw bytes decoded as a
caller might decode junk. A non-``str`` argument is a ``TypeError``. The
bounded run draws a fixed number of examples with ``derandomize=True`` (the
same examples every run); the full run draws many more, randomly.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memdsl import MemDSLParseError, parse_output, parse_render, parse_response
from tests.support.reliability_scale import Scale, twins

PARSERS: dict[str, Callable[[str], object]] = {
    "render": parse_render,
    "response": parse_response,
    "output": parse_output,
}
ARTIFACTS = Path(__file__).resolve().parent.parent / "memdsl"
SEEDS = sorted(
    path.read_text(encoding="utf-8") for folder in ("golden", "invalid") for path in (ARTIFACTS / folder).glob("*.txt")
)
HEADERS = ["@memdsl/1", "@memdsl.resp/1", "@memdsl.out/1", "@memdsl.out/2", "```memdsl", "```"]
PROTOCOL_LINES = [
    *HEADERS,
    "focus n1, n2",
    "node n1 mem:tree:cost-model decision grounded",
    "node n2 data:runs:run-042 dataset measured elided",
    "title A title",
    "prov file:models/costs.py@3f7c2e1",
    "aff expand:n1, ground:n2, join:n1",
    "body",
    "| Transaction costs increased from 5 bps to 8 bps.",
    "|",
    "gap stale mem:tree:x the pin drifted",
    "status ok",
    "status partial",
    "error not-found :: no such node",
    "@answer",
    "@abstain low-coverage :: nothing grounds it",
    "claim c1 [restatement] cites n1 :: Costs rose.",
    'claim c2 [calculation] cites n2 from c1 derive "1.4 - 1.1 = 0.3" :: It fell by 0.3.',
    "prose Costs rose [c1].",
    "cite c1 n1",
    "conclude c1",
    "expand(n1)",
    'ground(n1, verifier=quote, quote="8 bps")',
    "join(n1, n2)",
    "prune(n2)",
    "",
    " ",
    "\t",
]
NEWLINES = ["\n", "\r\n", "\r", "\u2028", "\x85", "\x0b"]
SETTINGS: dict[str, Any] = {
    "deadline": None,
    "database": None,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
}

arbitrary_text = st.text(alphabet=st.characters(codec=None), max_size=400)
protocol_text = st.builds(
    lambda lines, newline: newline.join(lines),
    st.lists(st.one_of(st.sampled_from(PROTOCOL_LINES), st.text(max_size=40)), max_size=30),
    st.sampled_from(NEWLINES),
)


@st.composite
def mutated_artifact(draw: st.DrawFn) -> str:
    """A golden or invalid artifact after one to eight random edits."""
    text = draw(st.sampled_from(SEEDS))
    for _ in range(draw(st.integers(1, 8))):
        at = draw(st.integers(0, len(text)))
        edit = draw(st.sampled_from(["delete", "insert", "replace", "truncate", "line", "newline", "header"]))
        if edit == "delete":
            text = text[:at] + text[at + draw(st.integers(1, 40)) :]
        elif edit == "insert":
            text = text[:at] + draw(st.one_of(st.text(max_size=20), st.sampled_from(PROTOCOL_LINES))) + text[at:]
        elif edit == "replace":
            text = text[:at] + draw(st.characters(codec=None)) + text[at + 1 :]
        elif edit == "truncate":
            text = text[:at]
        elif edit == "line":
            lines = text.split("\n")
            i, j = draw(st.integers(0, len(lines) - 1)), draw(st.integers(0, len(lines) - 1))
            action = draw(st.sampled_from(["swap", "duplicate", "drop"]))
            if action == "swap":
                lines[i], lines[j] = lines[j], lines[i]
            elif action == "duplicate":
                lines.insert(j, lines[i])
            else:
                del lines[i]
            text = "\n".join(lines)
        elif edit == "newline":
            text = text.replace("\n", draw(st.sampled_from(NEWLINES)))
        else:
            first, _, rest = text.partition("\n")
            text = draw(st.sampled_from(HEADERS)) + "\n" + rest if first.startswith("@") else first + "\n" + rest
    return text


@st.composite
def byte_junk(draw: st.DrawFn) -> str:
    """Raw bytes (or an artifact's bytes with flipped bytes) decoded the ways a caller might decode junk."""
    if draw(st.booleans()):
        raw = bytearray(draw(st.sampled_from(SEEDS)).encode("utf-8"))
        for _ in range(draw(st.integers(1, 16))):
            if raw:
                raw[draw(st.integers(0, len(raw) - 1))] = draw(st.integers(0, 255))
        data = bytes(raw)
    else:
        data = draw(st.binary(max_size=600))
    errors = draw(st.sampled_from(["surrogateescape", "replace", "ignore", "latin-1"]))
    return data.decode("latin-1") if errors == "latin-1" else data.decode("utf-8", errors)


STRATEGIES = {
    "arbitrary-text": arbitrary_text,
    "protocol-lines": protocol_text,
    "mutated-artifact": mutated_artifact(),
    "byte-junk": byte_junk(),
}


def parses_or_refuses(parser: Callable[[str], object], text: str) -> None:
    try:
        parser(text)
    except MemDSLParseError as exc:
        assert exc.line >= 1 and exc.column >= 1 and exc.code


def test_the_fuzz_corpus_has_artifacts_of_every_direction() -> None:
    heads = {seed.partition("\n")[0] for seed in SEEDS}
    assert {"@memdsl/1", "@memdsl.resp/1", "@memdsl.out/2"} <= heads and len(SEEDS) >= 40


@pytest.mark.parametrize("scale", twins(bounded=250, full=10_000))
@pytest.mark.parametrize("kind", sorted(STRATEGIES))
@pytest.mark.parametrize("direction", sorted(PARSERS))
def test_every_parser_returns_a_value_or_a_memdsl_parse_error_for_any_text(
    direction: str, kind: str, scale: Scale
) -> None:
    parser = PARSERS[direction]

    @settings(max_examples=scale.n, derandomize=not scale.full, **SETTINGS)
    @given(text=STRATEGIES[kind])
    def fuzz(text: str) -> None:
        parses_or_refuses(parser, text)

    fuzz()


@pytest.mark.parametrize("direction", sorted(PARSERS))
def test_every_parser_refuses_a_non_string_with_a_type_error(direction: str) -> None:
    parser: Callable[[Any], object] = PARSERS[direction]

    @settings(max_examples=40, derandomize=True, **SETTINGS)
    @given(value=st.one_of(st.binary(), st.integers(), st.none(), st.lists(st.text()), st.floats(), st.booleans()))
    def refuse(value: Any) -> None:
        with pytest.raises(TypeError):
            parser(value)

    refuse()
