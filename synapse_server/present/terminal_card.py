"""``synapse navigate``'s default output: a card a person can read, built from the public result only.

The card shows the verdict and status, the answer text or the abstention's
canonical reasons, the outdated disclosure, citations by address and the model
that reasoned; ``trace=True`` adds the redacted claim tree from
``trace_surface``. Colour is used only when the caller says the stream is a
terminal, and every string from a model or the evidence passes through
:func:`terminal_safe` first.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator

from synapse_server.navigation.surfaces import NavigateResult, TraceClaim, TraceSurface
from synapse_server.present.safe_text import terminal_safe

_CODES = {"bold": "1", "dim": "2", "green": "32", "yellow": "33", "red": "31", "cyan": "36"}
_VERDICT_COLOUR = {"answer": "green", "abstain": "yellow", "failure": "red"}
FLAG_NAMES = ("stale", "unresolved", "extrapolation", "contested", "outdated")


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
        return f"ANSWER · {result.status}" + (" · outdated" if result.outdated else "")
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
        if surface.citations:
            lines += ["", paint("Citations", "bold")]
            for n, cite in enumerate(surface.citations, 1):
                note = f"{cite.status}{', outdated' if cite.outdated else ''}; supports {', '.join(cite.claim_ids)}"
                lines.append(f"  [{n}] {paint(_s(cite.address), 'cyan')}  {paint(_s(note), 'dim')}")
    else:
        lines += _wrapped(_s(result.detail), wrap)
        abstention = result.trace_surface.abstention if result.trace_surface else None
        if abstention is not None and abstention.detail and abstention.detail != result.detail:
            lines += _wrapped(paint(_s(abstention.detail), "dim"), wrap)
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


def trace_lines(trace: TraceSurface, paint: _Paint | None = None) -> list[str]:
    """The claim DAG as an indented tree from the conclusion, then assertions, disclosures and telemetry."""
    paint = paint or _Paint(False)
    claims = {claim.id: claim for claim in trace.claims}
    cited = {c.address: [n for n in FLAG_NAMES if getattr(c.flags, n)] for c in trace.citations}
    roots = [trace.conclusion_claim_id] if trace.conclusion_claim_id in claims else []
    roots += [
        c.id for c in trace.claims if c.id not in roots and not any(c.id in o.premise_claim_ids for o in trace.claims)
    ]
    lines: list[str] = []
    seen: set[str] = set()
    for root in roots:
        lines += list(_claim_tree(claims, cited, root, 1, seen, paint))
    for claim in trace.claims:  # a claim only reachable through a cycle still gets shown
        if claim.id not in seen:
            lines += list(_claim_tree(claims, cited, claim.id, 1, seen, paint))
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


def claim_flags(claim: TraceClaim) -> list[str]:
    """The names of the flags set on a claim, in a fixed order."""
    return [name for name in FLAG_NAMES if getattr(claim.flags, name)]


def _cited(address: str, flags: list[str], paint: _Paint) -> str:
    marker = paint(f" [{', '.join(flags)}]", "yellow") if flags else ""
    return f"cites {paint(_s(address), 'cyan')}{marker}"


def _claim_tree(
    claims: dict[str, TraceClaim],
    cited: dict[str, list[str]],
    claim_id: str,
    depth: int,
    seen: set[str],
    paint: _Paint,
) -> Iterator[str]:
    pad = "  " * depth
    claim = claims.get(claim_id)
    if claim is None:
        yield f"{pad}{_s(claim_id)} (not in the trace)"
        return
    if claim_id in seen:
        yield f"{pad}{_s(claim_id)} (shown above)"
        return
    seen.add(claim_id)
    flags = claim_flags(claim)
    marker = paint(f" [{', '.join(flags)}]", "yellow") if flags else ""
    yield f"{pad}{paint(_s(claim.id), 'bold')} {_s(claim.inference_form)} · {claim.status}{marker}"
    yield f"{pad}  “{_s(claim.text)}”"
    for address in claim.citation_addresses:
        yield f"{pad}  {_cited(address, cited.get(address, []), paint)}"
    for premise in claim.premise_claim_ids:
        yield from _claim_tree(claims, cited, premise, depth + 1, seen, paint)


def _wrapped(text: str, width: int) -> list[str]:
    return ["  " + line for line in textwrap.wrap(text, width, break_on_hyphens=False)] or ["  "]
