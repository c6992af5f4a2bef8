"""The bounded navigation loop: prompt, model, strict parse, actions, route — within hard budgets.

One model turn, at most one parse repair, at most one re-navigation after a
refutation or low coverage, and up to two read rounds (an abstention that
asks to read: its actions run and the model gets another turn, without using
up the re-navigation an answer may need later). The token estimate (provider
usage when given, else characters / 4) is checked before every model call;
hop and node caps bound every action. ``halted_reason`` is always set.

A model whose reply comes later (the MCP host's own model, see
:mod:`synapse_server.models.host`) raises :class:`ReplyPending` from its
call: the loop then stops with ``halted_reason`` ``pending`` and the prompt
the host must answer, and a later call replays the loop to that point.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from memdsl import Abstention, MemDSLParseError, Output, parse_output, serialize_render, serialize_response
from synapse_server.models.base import Completion, Model
from synapse_server.models.host import ReplyPending
from synapse_server.navigation.budgets import Budgets
from synapse_server.navigation.claims import Decision
from synapse_server.navigation.envelope import render_envelope
from synapse_server.navigation.executor import RefusalKind, execute
from synapse_server.navigation.prompt import build_prompt, renavigation_note, repair_note, split_prompt
from synapse_server.navigation.router import model_abstention, route
from synapse_server.navigation.substrate import Substrate
from synapse_server.navigation.timing import maybe
from synapse_server.navigation.view import View
from synapse_server.navigation.voi import POLICIES

MAX_REPAIRS = 1
MAX_RENAVIGATIONS = 1
MAX_READ_ROUNDS = 2
"""Abstentions that only ask to read (actions above ``@abstain``); expand and join in them still spend hops."""
IN_LOOP_HOPS = 1
"""Model turns that may expand or join; the re-navigation turn may not expand again (it then halts ``hops``)."""
RENAVIGATE_ON = frozenset({"false-premise", "low-coverage"})


@dataclass
class LoopOutcome:
    view: View
    decision: Decision | None
    output: Output | None
    halted_reason: str
    detail: str
    tokens_spent: int = 0
    hops: int = 0
    renavigations: int = 0
    parse_repairs: int = 0
    read_rounds: int = 0
    retries: int = 0
    """Re-navigations after a refused answer (capped by ``MAX_RENAVIGATIONS``); ``renavigations`` also counts
    the read rounds, as every model call after the first that is not a parse repair."""
    loop_break: str = ""
    envelopes: list[str] = field(default_factory=list)
    pending: ReplyPending | None = None
    """Set with ``halted_reason`` ``pending``: the prompt a host model must answer for the turn to go on."""
    hops_left: int = 0


def estimate_tokens(text: str) -> int:
    return (len(text) + 3) // 4


def run_loop(
    question: str,
    view: View,
    substrate: Substrate,
    model: Model,
    budgets: Budgets,
    *,
    voi: str = "minimal",
    hop_rounds: int = IN_LOOP_HOPS,
) -> LoopOutcome:
    """``hop_rounds`` bounds the model turns that may expand or join (each such turn spends one)."""
    outcome = LoopOutcome(view=view, decision=None, output=None, halted_reason="", detail="", hops=view.depth)
    hops_left = hop_rounds
    extra = ""
    renavigating = False  # counted once the re-navigation's model call is made, not when it is planned
    while True:
        timings = substrate.timings
        with maybe(timings, "render"):
            envelope = serialize_render(render_envelope(outcome.view, budgets.render_max_body_chars))
        outcome.envelopes.append(envelope)
        prompt = build_prompt(
            question,
            envelope,
            tokens_left=max(0, budgets.token_budget - outcome.tokens_spent),
            hops_left=hops_left,
            focus=POLICIES[voi](outcome.view),
            extra=extra,
        )
        if outcome.tokens_spent + estimate_tokens(prompt) > budgets.token_budget:
            if outcome.decision is not None:  # a re-navigation we cannot afford: the first verdict stands
                return _finish(outcome, outcome.decision)
            return _halt(outcome, "budget", "the token budget does not cover another model call")
        system, turn = split_prompt(prompt)
        outcome.hops_left = hops_left
        try:
            with maybe(timings, "model"):
                completion = model.complete(turn, system=system)
        except ReplyPending as pending:
            outcome.pending = pending
            return _halt(outcome, "pending", f"step {pending.step} waits for the host model's reply")
        outcome.tokens_spent += _cost(prompt, completion)
        if renavigating:
            outcome.renavigations += 1
            renavigating = False
        try:
            with maybe(timings, "parse"):
                output = parse_output(completion.text)
        except MemDSLParseError as error:
            if outcome.parse_repairs >= MAX_REPAIRS:
                if outcome.decision is not None:
                    return _finish(outcome, outcome.decision)
                return _halt(outcome, "parse-fail", f"the reply is not a valid artifact ({error.code})")
            outcome.parse_repairs += 1
            extra = repair_note(error.code, error.line, error.message)
            continue
        outcome.output = output
        actions = output.ordered_actions()
        execution = execute(
            outcome.view,
            substrate,
            actions,
            loop_cap=budgets.loop_cap,
            hops_left=hops_left,
            max_body_chars=budgets.render_max_body_chars,
        )
        outcome.view = execution.view
        if execution.topologic:
            hops_left -= 1
            outcome.hops += 1
        with maybe(timings, "route"):
            if isinstance(output.terminal, Abstention):
                decision = model_abstention(output.terminal, outcome.view)
            else:
                decision = route(output.terminal, outcome.view, output.version)
        outcome.decision = decision
        abstained = isinstance(output.terminal, Abstention)
        # a read round: the model asked for evidence before answering, and some of it could be read
        reading = abstained and len(actions) > len(execution.refused)
        refused = decision.verdict == "abstain" and bool(set(decision.reasons) & RENAVIGATE_ON) and not abstained
        if reading and outcome.read_rounds < MAX_READ_ROUNDS:
            outcome.read_rounds += 1
        elif refused and outcome.retries < MAX_RENAVIGATIONS and decision.claims:
            outcome.retries += 1
        else:
            reading = refused = False
        if reading or refused:
            renavigating = True
            response = serialize_response(execution.response)
            last = _last_call(outcome)
            extra = renavigation_note(
                response, ", ".join(decision.reasons), decision.problem_lines, abstained=abstained, last=last
            )
            continue
        if decision.verdict == "abstain" and any(r.kind is RefusalKind.HOP_BUDGET for r in execution.refused):
            return _halt(outcome, "hops", "the hop budget ran out before the answer was licensed")
        return _finish(outcome, decision)


def _last_call(outcome: LoopOutcome) -> bool:
    """Whether the coming model call is the last one whatever it says: no repair, read round or
    re-navigation is left after it."""
    return (
        outcome.parse_repairs >= MAX_REPAIRS
        and outcome.read_rounds >= MAX_READ_ROUNDS
        and outcome.retries >= MAX_RENAVIGATIONS
    )


def _finish(outcome: LoopOutcome, decision: Decision) -> LoopOutcome:
    outcome.decision = decision
    outcome.halted_reason = "answer" if decision.verdict == "answer" else "abstain"
    outcome.detail = decision.detail
    return outcome


def _cost(prompt: str, completion: Completion) -> int:
    if completion.usage is not None:
        return completion.usage.input_tokens + completion.usage.output_tokens
    return estimate_tokens(prompt) + estimate_tokens(completion.text)


def _halt(outcome: LoopOutcome, reason: str, detail: str) -> LoopOutcome:
    outcome.halted_reason = reason
    outcome.loop_break = reason
    outcome.detail = detail
    outcome.decision = None
    return outcome
