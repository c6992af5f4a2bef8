"""``synapse navigate``'s default output: a card a person can read, built from the public result only.

The card shows the verdict and status, the answer text or the abstention's
canonical reasons, the outdated disclosure, one line per cited record that is
not current (``Superseded: <address> is superseded by <address> (status: …)``),
citations (title, store, status,
address and, for a verbatim restatement, the sentence quoted) and the model
that reasoned; ``trace=True`` adds the redacted claim tree from
``trace_surface``. Colour is used only when the caller says the stream is a
terminal, and every string from a model or the evidence passes through
:func:`terminal_safe` first.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator

from synapse_server.language.safe_text import terminal_safe
from synapse_server.navigation.surfaces import AnswerCitation, NavigateResult, TraceSurface
from synapse_server.present.trace_tree import ClaimNode, claim_tree

_CODES = {"bold": "1", "dim": "2", "green": "32", "yellow": "33", "red": "31", "cyan": "36"}
_VERDICT_COLOUR = {"answer": "green", "abstain": "yellow", "failure": "red"}


class _Paint:
    def __init__(self, colour: bool) -> None:
        self.colour = colour

    def __call__(self, text: str, *styles: str) -> str:
        if not self.colour or not styles:
            return text
        codes = ";".join(_CODES[s] for s in styles)
        return f"\x1b[{codes}m{text}\x1b[0m"


def _s(text: str | None) -> str:
    return terminal_safe(text or "")


def headline(result: NavigateResult) -> str:
    """``ANSWER · measured``, ``ABSTAINED · stale, low-coverage``, ``STOPPED · budget`` or ``FAILED · timeout``."""
    if result.verdict == "answer":
        surface = result.answer_surface
        superseded = surface is not None and surface.superseded
        return (
            f"ANSWER · {result.status}"
            + (" · outdated" if result.outdated else "")
            + (" · superseded" if superseded else "")
        )
    if result.verdict == "abstain":
        return f"ABSTAINED · {', '.join(result.reasons)}" if result.reasons else f"STOPPED · {result.halted_reason}"
    return f"FAILED · {result.halted_reason}"


def render_card(result: NavigateResult, *, trace: bool = False, colour: bool = False, width: int = 88) -> str:
    """The whole card as text, ending in a newline."""
    paint = _Paint(colour)
    wrap = max(40, width) - 4
    lines = [paint(headline(result), "bold", _VERDICT_COLOUR[result.verdict])]
    surface = result.answer_surface
    if result.verdict == "answer" and surface is not None:
        lines += _wrapped(_s(surface.text), wrap)
        if surface.disclosure:
            lines += ["", *_wrapped(paint("Disclosure: ", "yellow") + _s(surface.disclosure), wrap)]
        if surface.superseded_disclosures:
            lines.append("")
            for line in surface.superseded_disclosures:
                lines += _wrapped(paint("Superseded: ", "yellow") + _s(line), wrap)
        if surface.citations:
            lines += ["", paint("Citations", "bold")]
            for n, cite in enumerate(surface.citations, 1):
                lines += _citation_lines(n, cite, paint, wrap)
    else:
        lines += _wrapped(_s(result.detail), wrap)
        abstention = result.trace_surface.abstention if result.trace_surface else None
        if abstention is not None and abstention.detail and abstention.detail != result.detail:
            rest = abstention.detail.removeprefix(f"{result.detail}; ")  # the headline is already shown
            lines += _wrapped(paint(_s(rest), "dim"), wrap)
    lines += ["", f"{paint('Model', 'bold')}  {_s(result.model.provider)} · {_s(result.model.id)}"]
    telemetry = f"{result.hops} hop(s), {result.renavigations} re-navigation(s), {result.tokens_spent} tokens"
    lines.append(f"{paint('Turn', 'bold')}   {_s(result.halted_reason)} · {telemetry}")
    if trace and result.trace_surface is not None:
        lines += ["", paint("Reasoning", "bold"), *trace_lines(result.trace_surface, paint)]
    elif trace:
        lines += ["", paint("Reasoning: none recorded (the turn failed before any claim)", "dim")]
    elif result.trace_surface is not None and result.trace_surface.claims:
        lines.append(paint("(--trace shows the reasoning)", "dim"))
    return "\n".join(lines) + "\n"


def _citation_lines(n: int, cite: AnswerCitation, paint: _Paint, wrap: int) -> list[str]:
    """``[1] title  store · status; supports c2``, then the address ``get`` opens, then each verbatim quote."""
    note = f"{cite.store} · " if cite.store else ""
    note += f"{cite.status}{', outdated' if cite.outdated else ''}"
    if cite.supersession is not None:
        note += f", {cite.supersession}" + (f" by {', '.join(cite.superseded_by)}" if cite.superseded_by else "")
    note += f"; supports {', '.join(cite.claim_ids)}"
    if not cite.title:
        return [f"  [{n}] {paint(_s(cite.address), 'cyan')}  {paint(_s(note), 'dim')}"]
    lines = [f"  [{n}] {paint(_s(cite.title), 'bold')}  {paint(_s(note), 'dim')}"]
    lines.append(f"      {paint(_s(cite.address), 'cyan')}")
    for quote in cite.quotes:
        lines += ["      " + line for line in textwrap.wrap(f"“{_s(quote)}”", wrap - 4, break_on_hyphens=False)]
    return lines


def trace_lines(trace: TraceSurface, paint: _Paint | None = None) -> list[str]:
    """The claim DAG as an indented tree from the conclusion, then assertions, disclosures and telemetry."""
    paint = paint or _Paint(False)
    lines: list[str] = []
    for root in claim_tree(trace):
        lines += list(_claim_lines(root, 1, paint))
    if trace.assertions:
        lines += ["", paint("  Assertions", "bold")]
        lines += [f"    {_s(a.claim_id)} ← “{_s(a.text)}”" for a in trace.assertions]
    if trace.disclosures:
        lines += ["", paint("  Disclosures", "bold"), *(f"    {_s(d)}" for d in trace.disclosures)]
    if trace.abstention is not None:
        lines += ["", paint("  Abstention", "bold"), f"    {', '.join(map(_s, trace.abstention.reasons))}"]
        lines.append(f"    {_s(trace.abstention.detail)}")
    t = trace.telemetry
    lines += [
        "",
        paint(
            f"  Telemetry  hops {t.hops} · re-navigations {t.renavigations} · parse repairs {t.parse_repairs} · "
            f"tokens {t.tokens_spent}" + (f" · loop break {_s(t.loop_break)}" if t.loop_break else ""),
            "dim",
        ),
    ]
    return lines


def _marker(flags: list[str], paint: _Paint) -> str:
    return paint(f" [{', '.join(flags)}]", "yellow") if flags else ""


def _claim_lines(node: ClaimNode, depth: int, paint: _Paint) -> Iterator[str]:
    pad = "  " * depth
    if node.claim is None or node.repeat:
        yield f"{pad}{_s(node.id)} ({'shown above' if node.repeat else 'not in the trace'})"
        return
    claim = node.claim
    yield f"{pad}{paint(_s(claim.id), 'bold')} {_s(claim.inference_form)} · {claim.status}{_marker(node.flags, paint)}"
    yield f"{pad}  “{_s(claim.text)}”"
    for cite in node.cites:
        yield f"{pad}  cites {paint(_s(cite.address), 'cyan')}{_marker(cite.flags, paint)}"
    for premise in node.premises:
        yield from _claim_lines(premise, depth + 1, paint)


def _wrapped(text: str, width: int) -> list[str]:
    return ["  " + line for line in textwrap.wrap(text, width, break_on_hyphens=False)] or ["  "]
