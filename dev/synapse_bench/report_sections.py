"""Sections of REPORT.md that a harness of its own writes between two markers, and the perf report keeps.

``python -m dev.synapse_bench perf`` rewrites REPORT.md from its own figures; a harness that measures
something else (PostgreSQL, host steps, correctness on foreign material) owns a marked section instead,
rewritten only by that harness's ``--write-report`` and carried over whole by every perf run. Every such
section is listed in :data:`SECTIONS`.
"""

from __future__ import annotations

from pathlib import Path

SECTIONS: tuple[tuple[str, str], ...] = (
    ("<!-- postgres-section -->", "<!-- /postgres-section -->"),
    ("<!-- host-bench -->", "<!-- /host-bench -->"),
    ("<!-- correctness-foreign -->", "<!-- /correctness-foreign -->"),
    ("<!-- quality-section -->", "<!-- /quality-section -->"),
    ("<!-- reload-section -->", "<!-- /reload-section -->"),
)


def keep_sections(previous: str, fresh: str) -> str:
    """``fresh`` with every marked section of ``previous`` that ``fresh`` lacks carried over, in order."""
    for begin, end in SECTIONS:
        if begin in previous and end in previous and begin not in fresh:
            kept = previous[previous.index(begin) : previous.index(end) + len(end)]
            fresh = fresh.rstrip("\n") + "\n\n" + kept + "\n"
    return fresh


def write_section(report: Path, section: str, begin: str, end: str) -> None:
    """Replace the section between ``begin`` and ``end`` in ``report`` (append it when absent)."""
    text = report.read_text(encoding="utf-8") if report.exists() else ""
    if begin in text and end in text:
        text = text[: text.index(begin)] + section.rstrip("\n") + text[text.index(end) + len(end) :]
    else:
        text = text.rstrip("\n") + "\n\n" + section
    report.write_text(text, encoding="utf-8")
