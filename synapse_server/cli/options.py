"""Options every workspace command shares, defined once: ``--root`` and how it becomes a workspace root.

Each command used to define ``--root`` itself, with two defaults (the current
folder for some, the nearest workspace above for others), so ``synapse lint``
run in a subfolder linted the subfolder and reported a false all-clear.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from synapse_server.errors import WorkspaceError
from synapse_server.workspace.config import find_workspace
from synapse_server.workspace.source_config import is_workspace_folder

__all__ = ["add_root", "workspace_root"]


def add_root(parser: argparse.ArgumentParser) -> None:
    """The one ``--root`` option: the workspace folder, by default the nearest one at or above here."""
    parser.add_argument("--root", default=None, help="the workspace folder (default: the nearest one above here)")


def workspace_root(args: argparse.Namespace) -> Path:
    """The workspace ``--root`` names, or the nearest one above the current folder; a folder that is neither a
    Synapse workspace nor a git repository is refused (exit 2), never read as an empty workspace."""
    root = Path(args.root) if args.root is not None else find_workspace(Path.cwd())
    if not is_workspace_folder(root):
        raise WorkspaceError(
            f"{root.name or 'this folder'} is not a Synapse workspace or git repository "
            "(run `synapse init` or `synapse init --adopt` first, or pass --root)",
            root=root.name,
        )
    return root
