"""Helpers shared by the test suite: builders, fakes, process census, tool-call readers and helper scripts.

Tests import them as ``tests.support.<module>``; pytest puts the repository
root on ``sys.path`` (``pythonpath`` in pyproject.toml), so no test edits the
path. The scripts here (``*_model.py``, ``extractive_bridge.py``) run as child
processes and are found through :data:`SUPPORT`.
"""

from pathlib import Path

SUPPORT = Path(__file__).resolve().parent
"""This folder: where the helper scripts a test starts as a process live."""
REPOSITORY = SUPPORT.parents[1]
"""The checkout under test: where a child process that must import this code (or ``tests``) starts."""
