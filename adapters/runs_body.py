"""How a run's figures read in its node body: one citable line per metric and parameter, under a labelled section.

Both run stores (``runs/<id>/run.yaml`` and an adopted MLflow ``mlruns/``
folder) render through here, so a run question meets the same units whatever
store wrote the run. The shape is chosen for the atomic-unit splitter and the
licensing alignment:

- each figure is its own list item, ``mae: 0.666``, so a copy of the line or a
  restatement ("The run's mae is 0.666.") aligns with exactly one value;
- the kind of figure and the word *run* live in the section heading
  (``## Metrics of the run``), which is the unit's frame: a claim may add
  "metric" or "the run's" to a metric line, but "metric" is not in the frame of
  a parameter line, so a parameter cited as a metric is refused, and a value of
  another metric or another run is a changed figure;
- a metric logged more than once gives its last value, the way MLflow shows a
  run's metric, and says how many values and which step in a sentence of its
  own, so the history never stands between the name and the value.

The verification line says, at load time, which recorded digests can be
checked against bytes; a run with none stays ``inferred`` and its body says so
where the envelope, ``get`` and the dashboard show it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from adapters.base import Tether, TetherKind

__all__ = [
    "MEASURED_NEEDS",
    "METRICS_HEADING",
    "PARAMS_HEADING",
    "TAGS_HEADING",
    "MetricHistory",
    "figure_sections",
    "flat",
    "verification_line",
]

METRICS_HEADING = "Metrics of the run"
PARAMS_HEADING = "Parameters of the run"
TAGS_HEADING = "Tags of the run"


@dataclass(frozen=True, slots=True)
class MetricHistory:
    """A metric's last value as written, how many values were logged and the step of the last one (if known)."""

    written: str
    count: int = 1
    step: str | None = None


def flat(value: object) -> str:
    """A value on one line: a multi-line parameter must not break out of its list item."""
    return " ".join(str(value).split())


def metric_line(name: str, history: MetricHistory) -> str:
    """``- mae: 0.666``; a metric with a history adds its own sentence (``Last of 12 logged values, at step 11.``)."""
    line = f"- {flat(name)}: {flat(history.written)}"
    if history.count <= 1:
        return line
    at = f", at step {history.step}" if history.step is not None else ""
    return f"{line}. Last of {history.count} logged values{at}."


def figure_sections(
    metrics: Mapping[str, MetricHistory],
    params: Mapping[str, str],
    tags: Mapping[str, str] | None = None,
) -> list[str]:
    """The body lines of the metrics, parameters and tags sections, in that order, each sorted by name as given."""
    lines: list[str] = []
    if metrics:
        lines += ["", f"## {METRICS_HEADING}", ""]
        lines += [metric_line(name, history) for name, history in metrics.items()]
    if params:
        lines += ["", f"## {PARAMS_HEADING}", ""]
        lines += [f"- {flat(name)}: {flat(value)}" for name, value in params.items()]
    if tags:
        lines += ["", f"## {TAGS_HEADING}", ""]
        lines += [f"- {flat(name)}: {flat(value)}" for name, value in tags.items()]
    return lines


MEASURED_NEEDS = (
    "Measured needs a sha256 of every input and output of the run, recorded with it, that matches the bytes"
)
"""What makes a run ``measured``, said in one sentence wherever a run is shown as ``inferred``."""


def verification_line(tethers: Sequence[Tether], how: str | None = None) -> str:
    """Which recorded digests the resolvers can check, said where a person reads the run.

    A content-hash tether without a full sha256 (MLflow's short dataset
    digests hash a sample or a description, not bytes Synapse can read) can
    never verify, so it keeps the run ``inferred`` however the others verify;
    so does recording no digest at all. An inferred run's line then says, in a
    sentence of its own, what ``measured`` needs (``how``: the store's way of
    recording a digest), so ``get`` and the envelope show how to get there.
    """
    hashes = [t for t in tethers if t.kind is TetherKind.CONTENT_HASH]
    cannot = [t.target for t in hashes if not _is_sha256(t.ref)]
    needs = f". {MEASURED_NEEDS}{f' ({how})' if how else ''}."
    if cannot:
        return f"- verification: inferred; {', '.join(cannot)} cannot be checked against bytes{needs}"
    if not hashes:
        return f"- verification: inferred; the run recorded no hash that can be verified{needs}"
    named = ", ".join(t.target for t in hashes)
    return f"- verification: measured only while every recorded sha256 verifies ({named})"


def _is_sha256(ref: str | None) -> bool:
    return ref is not None and len(ref) == 64 and all(c in "0123456789abcdef" for c in ref)
