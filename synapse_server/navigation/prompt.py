"""The one versioned navigation prompt: question, envelope, advisory focus handles, remaining budgets.

The template lives in ``prompts/navigate_v3.txt`` so it can be read and
reviewed as a document; its worked examples are parsed and routed by tests, so
the prompt can never teach a grammar the parser refuses or an answer the router
would not accept. The section markers are stable:
the offline ``extractive`` navigator reads the question and envelope back
from them.
"""

from __future__ import annotations

import re
from functools import cache
from importlib import resources
from string import Template

PROMPT_VERSION = "navigate_v3"
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
        words_left=tokens_left * 3 // 4,
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


EXAMPLES = ("RESTATEMENT", "CONJUNCTION", "CALCULATION", "ABSTENTION")


def example_artifacts() -> dict[str, str]:
    """The worked examples the prompt teaches, by name (tests parse and route every one)."""
    found = sections(template_text())
    return {name: found[f"EXAMPLE {name}"] + "\n" for name in EXAMPLES}


def example_artifact() -> str:
    """The first worked example (a single restatement)."""
    return example_artifacts()["RESTATEMENT"]


def fixed_instructions() -> str:
    """The part of every prompt that never changes: the instructions and worked examples, cacheable as a system prompt."""
    text = template_text()
    return text[: text.index("=== QUESTION ===")].rstrip() + "\n"


def split_prompt(prompt: str) -> tuple[str | None, str]:
    """The fixed instructions (sent as a cacheable system prompt where the API has one) and the turn's own part."""
    fixed = fixed_instructions()
    if prompt.startswith(fixed):
        return fixed, prompt[len(fixed) :]
    return None, prompt


def renavigation_note(
    response_text: str,
    finding: str,
    problems: tuple[str, ...] = (),
    *,
    abstained: bool = False,
    last: bool = True,
) -> str:
    """What the model reads after a read round or a refused answer: what failed, claim by claim, and what its
    actions returned. ``last`` says whether this is the final call; a model told so when it is not would stop
    reading too early, and one never told would not know to commit."""
    if abstained:
        head = f"You abstained ({finding}) and asked for evidence; your actions ran."
    else:
        head = f"Your previous answer was not accepted ({finding})."
    lines = ["=== PREVIOUS TURN ===", head]
    if problems:
        lines.append("What failed (claim: rule: details):")
        lines.extend(f"- {problem}" for problem in problems)
    lines.extend(("Your actions returned:", response_text.rstrip(), "=== END PREVIOUS TURN ==="))
    if last:
        lines.append(
            "This is your last turn: fix what failed using the evidence above (copy sentences, or keep every word "
            "supported), or abstain with the label that fits."
        )
    elif abstained:
        lines.append("Answer from the evidence above, read more (actions above @abstain), or abstain.")
    else:
        lines.append(
            "Fix what failed using the evidence above (copy sentences, or keep every word supported), or abstain "
            "with the label that fits."
        )
    return "\n".join(lines)


_REPAIR_HINTS = {
    "claim.clause": "a claim's clauses come in the order cites, from, derive",
    "cite.outside_closure": "every claim cited in the prose must be the conclusion or reachable from it through from",
    "conclude.uncited": "the conclusion must rest (directly or through from) on a claim that cites evidence",
    "claim.status": "never write a status: the engine derives it",
    "claim.derive": 'only a [calculation] carries derive "<arithmetic>"',
    "fence.open": "reply with the artifact only, no markdown fences",
    "output.preamble": "the first line must be @memdsl.out/2, with nothing before it",
    "terminal.trailing": "nothing may follow the terminal block",
}


def repair_note(code: str, line: int, message: str) -> str:
    hint = _REPAIR_HINTS.get(code)
    return (
        "=== PARSE ERROR ===\n"
        f"Your previous reply was not a valid @memdsl.out/2 artifact: line {line}: [{code}] {message}\n"
        + (f"Rule: {hint}.\n" if hint else "")
        + "=== END PARSE ERROR ===\n"
        "Reply again with one valid artifact and nothing else."
    )
