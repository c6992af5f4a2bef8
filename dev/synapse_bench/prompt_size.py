"""How much a navigate turn sends the model: prompt bytes per model call and nodes per envelope.

Every model call of every question is recorded (a repair or re-navigation is a
call of its own), counting the UTF-8 bytes of the system part and the prompt
together, since both go over the wire. The same questions run twice in one
process: with the lean envelope (relevance order and floor, bodies shown once)
and with the earlier assembly (``lean=False``: every seed round-robin, every
duplicate body repeated), so the ratio is measured, not remembered. The
verdicts of both runs are compared; a lean envelope that changed an outcome
is reported.
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from synapse_server.models.base import Completion, Model, Prompt
from synapse_server.navigation.extractive import ExtractiveModel

if TYPE_CHECKING:
    from adapters.index import TextEncoder
    from synapse_server.workspace.stores import Stores


class RecordingExtractive(Model):
    """The offline navigator, recording the size of everything it is sent."""

    def __init__(self) -> None:
        self._inner = ExtractiveModel()
        self.identity = self._inner.identity
        self.sent: list[int] = []

    def execute(self, prompt: Prompt) -> Completion:
        self.sent.append(len(prompt.text.encode("utf-8")) + len((prompt.system or "").encode("utf-8")))
        return self._inner.execute(prompt)


def spread(samples: Sequence[int]) -> dict[str, float]:
    """Median, p90 (nearest rank), min and max."""
    if not samples:
        return {"median": float("nan"), "p90": float("nan"), "min": float("nan"), "max": float("nan"), "n": 0}
    ordered = sorted(samples)
    p90 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.9))]
    return {"median": statistics.median(ordered), "p90": p90, "min": ordered[0], "max": ordered[-1], "n": len(ordered)}


def measure(
    root: Path, questions: Sequence[str], embedder: TextEncoder, stores: Stores, *, lean: bool
) -> dict[str, Any]:
    """Prompt bytes per model call, nodes and envelope bytes per turn, and each turn's outcome."""
    from synapse_server.isolation.turn import navigate_turn
    from synapse_server.navigation.request import NavigateRequest

    sent: list[int] = []
    nodes: list[int] = []
    envelope_bytes: list[int] = []
    outcomes: list[tuple[str, str | None, tuple[str, ...], bool]] = []
    for question in questions:
        model = RecordingExtractive()
        result = navigate_turn(
            root, NavigateRequest(question=question), embedder=embedder, stores=stores, model=model, lean=lean
        )
        sent.extend(model.sent)
        nodes.append(sum(1 for line in result.envelope.splitlines() if line.startswith("node ")))
        envelope_bytes.append(len(result.envelope.encode("utf-8")))
        outcomes.append((result.verdict, result.status, tuple(result.reasons), result.outdated))
    return {
        "prompt_bytes": spread(sent),
        "envelope_bytes": spread(envelope_bytes),
        "nodes": spread(nodes),
        "outcomes": outcomes,
    }


def compare(root: Path, questions: Sequence[str], embedder: TextEncoder, stores: Stores) -> dict[str, Any]:
    """Both envelopes on the same questions; ``reduction`` is 1 - lean/legacy at the median prompt size."""
    legacy = measure(root, questions, embedder, stores, lean=False)
    lean = measure(root, questions, embedder, stores, lean=True)
    changed = [q for q, a, b in zip(questions, legacy.pop("outcomes"), lean.pop("outcomes"), strict=True) if a != b]
    reduction = 1 - lean["prompt_bytes"]["median"] / legacy["prompt_bytes"]["median"]
    return {"legacy": legacy, "lean": lean, "median_reduction": reduction, "changed_outcomes": changed}


def format_table(result: dict[str, Any]) -> str:
    """A Markdown table: prompt bytes per call and nodes per envelope, earlier versus lean."""
    rows = [
        "| per turn | envelope | median | p90 | min | max |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for metric, label in (("prompt_bytes", "prompt bytes"), ("envelope_bytes", "envelope bytes"), ("nodes", "nodes")):
        for name, shown in (("legacy", "earlier"), ("lean", "lean")):
            f = result[name][metric]
            rows.append(f"| {label} | {shown} | {f['median']:.0f} | {f['p90']:.0f} | {f['min']:.0f} | {f['max']:.0f} |")
    rows.append("")
    rows.append(
        f"median prompt {result['median_reduction']:.0%} smaller; outcomes changed: {result['changed_outcomes'] or 'none'}"
    )
    return "\n".join(rows)
