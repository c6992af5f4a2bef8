"""The canonical navigation truth benchmark: a committed, deterministic corpus and its oracle.

``data/`` holds the cases (one YAML file per category) and the workspace
recipes; ``cases`` validates them, ``workspaces`` builds each recipe once,
``scripted`` replays the hand-written model replies, ``runner`` runs one case
as the product runs a turn, ``oracle`` judges it, ``suite`` summarises a run,
``baseline`` locks and checks the figures, and ``cli`` is the
``python -m dev.synapse_bench canonical`` command. See docs/benchmark.md.
"""
