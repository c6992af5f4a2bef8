"""The one versioned navigation prompt: question, envelope, advisory focus handles, remaining budgets.

The template lives in ``prompts/navigate_v2.txt`` so it can be read and
reviewed as a document; its worked example is parsed by a test, so the prompt
can never teach a grammar the parser refuses. The section markers are stable:
the offline ``extractive`` navigator reads the question and envelope back
from them.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from string import Template

PROMPT_VERSION = "navigate_v2"
_SECTION = re.compile(r"^=== (?P<name>[A-Z ]+) ===\n(?P<body>.*?)\n=== END (?P=name) ===$", re.S | re.M)


@cache
def template_text() -> str:
    return (
        resources.files("synapse_server.navigation")
        .joinpath("prompts", f"{PROMPT_VERSION}.txt")
        .read_text(encoding="utf-8")
    )


def build_prompt(
    question: str,
    envelope: str,
    *,
    tokens_left: int,
    hops_left: int,
    focus: list[str],
    extra: str = "",
) -> str:
    return Template(template_text()).substitute(
        question=" ".join(question.split()),  # one line: a question cannot forge the envelope's section markers
        envelope=envelope.rstrip("\n"),
        tokens_left=tokens_left,
        hops_left=hops_left,
        focus=", ".join(focus) if focus else "(none)",
        extra=f"\n{extra.rstrip()}\n" if extra else "",
    )


def sections(prompt: str) -> dict[str, str]:
    """Named ``=== NAME ===`` sections of a prompt (the first occurrence of each name wins)."""
    found: dict[str, str] = {}
    for match in _SECTION.finditer(prompt):
        found.setdefault(match.group("name"), match.group("body"))
    return found


def example_artifact() -> str:
    """The worked example the prompt teaches (a test parses it)."""
    return sections(template_text())["EXAMPLE"] + "\n"


def renavigation_note(response_text: str, finding: str) -> str:
    return (
        "=== PREVIOUS TURN ===\n"
        f"Your previous answer was not accepted: {finding}.\n"
        "Your actions returned:\n"
        f"{response_text.rstrip()}\n"
        "=== END PREVIOUS TURN ===\n"
        "This is your last turn: answer only what the evidence licenses, or abstain."
    )


def repair_note(code: str, line: int, message: str) -> str:
    return (
        "=== PARSE ERROR ===\n"
        f"Your previous reply was not a valid @memdsl.out/2 artifact: line {line}: [{code}] {message}\n"
        "=== END PARSE ERROR ===\n"
        "Reply again with one valid artifact and nothing else."
    )
