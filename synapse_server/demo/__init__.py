"""The demo workspace: one momentum-research project told through every store.

``build_demo(dir)`` writes a real git repository (six commits of a small
backtest code base), a memory tree, two zettelkasten projects with cached
source texts, and experiment runs, with a handful of deliberately seeded
defects (a stale pin, an outdated pin, a drifted run output, a refuted quote,
a missing source) so that both ``synapse lint`` and grounded navigation have
something true to find. ``questions.yaml`` lists what the evidence answers and
what it must refuse, with the expected outcome of each.
"""

from __future__ import annotations

from typing import Any

import yaml

from synapse_server.demo.builder import build_demo, content_root, load_history, workspace_name

__all__ = ["build_demo", "content_root", "load_history", "load_questions", "workspace_name"]


def load_questions() -> dict[str, Any]:
    """The parsed ``questions.yaml`` shipped with the demo (see its header for the format)."""
    from importlib import resources

    text = resources.files("synapse_server.demo").joinpath("questions.yaml").read_text(encoding="utf-8")
    data: dict[str, Any] = yaml.safe_load(text)
    return data
