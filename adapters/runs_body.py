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

The verification line says, at load time, what the run's status rests on:
the recorded digests that can be checked against bytes (``measured``), or,
for a run with none, its files as committed to git (``grounded``: what the run
says is what the pinned files say) or nothing (``inferred``). A run that is not
measured says what measured needs, and an inferred one what grounded needs too,
where the envelope, ``get`` and the dashboard show it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from adapters.base import Tether, TetherKind

__all__ = [
    "GROUNDED_NEEDS",
    "MEASURED_NEEDS",
    "METRICS_HEADING",
    "PARAMS_HEADING",
    "TAGS_HEADING",
    "MetricHistory",
    "figure_sections",
    "flat",
    "run_tethers",
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
"""What makes a run ``measured``, said in one sentence wherever a run is shown as not measured."""

GROUNDED_NEEDS = "Grounded needs the files the run is read from committed to git, unchanged since"
"""What makes a run without verifiable digests ``grounded``, said wherever such a run is shown as ``inferred``."""


def verification_line(tethers: Sequence[Tether], how: str | None = None, *, committed: bool = False) -> str:
    """What the run's status rests on, said where a person reads the run.

    A content-hash tether without a full sha256 (MLflow's short dataset
    digests hash a sample or a description, not bytes Synapse can read) can
    never verify, and neither can a run that recorded no digest, so such a run
    is never ``measured``: it is ``grounded`` when every file it is read from
    is committed (``committed``, the store pinned them), else ``inferred``. The
    line then says, in sentences of their own, what ``measured`` needs
    (``how``: the store's way of recording a digest) and, for an inferred run,
    what ``grounded`` needs, so ``get`` and the envelope show how to get there.
    """
    hashes = [t for t in tethers if t.kind is TetherKind.CONTENT_HASH]
    cannot = [t.target for t in hashes if not _is_sha256(t.ref)]
    if hashes and not cannot:
        named = ", ".join(t.target for t in hashes)
        return f"- verification: measured only while every recorded sha256 verifies ({named})"
    why = (
        f"{', '.join(cannot)} cannot be checked against bytes"
        if cannot
        else "the run recorded no hash that can be verified"
    )
    needs = f". {MEASURED_NEEDS}{f' ({how})' if how else ''}."
    if committed:
        return f"- verification: grounded in its files as committed to git; not measured: {why}{needs}"
    return f"- verification: inferred; {why}{needs} {GROUNDED_NEEDS}."


def run_tethers(run_id: str, hashes: Sequence[Tether], pins: Sequence[Tether] | None) -> tuple[Tether, ...]:
    """A run's tethers: its file pins (``None``: not every file it is read from is committed unchanged), the
    content hashes of its recorded digests and its run tether, which every digest must verify for ``measured``.

    A pinned run whose digests cannot all be checked (none recorded, or MLflow's
    short ones) is grounded by its pins alone: what it says is what the
    committed files say, and it is never measured. Any other run keeps its
    digests and run tether, so a pinned run whose digests verify is measured
    (the weakest of its tethers), one whose digests do not is stale, and a run
    without pins is measured or inferred exactly as its digests are; its run
    tether's check then says what measured needs.
    """
    checkable = bool(hashes) and all(_is_sha256(t.ref) for t in hashes)
    if pins and not checkable:
        return tuple(pins)
    return (*(pins or ()), *hashes, Tether(TetherKind.RUN, run_id))


def _is_sha256(ref: str | None) -> bool:
    return ref is not None and len(ref) == 64 and all(c in "0123456789abcdef" for c in ref)
