"""Create workspaces: an empty valid one (``synapse init``) or the complete demo (``synapse init --demo``).

An empty workspace is every store folder plus a commented config whose values
are the defaults, so a user sees each knob without reading the docs. The code
store is the workspace's git repository: a folder that is not yet inside one is
``git init``-ed (nothing is committed on the user's behalf), and the derived
cache ``.angelo/`` is git-ignored.
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from synapse_server.demo import build_demo
from synapse_server.errors import WorkspaceError
from synapse_server.workspace.config import CONFIG_RELPATH

__all__ = ["DEFAULT_CONFIG", "WORKSPACE_MARKERS", "init_workspace", "make_demo"]

WORKSPACE_MARKERS = (".synapse", ".memory", ".zettelkasten")
"""Folders whose presence means a directory already holds a Synapse workspace."""

CACHE_IGNORE = ".angelo/"

DEFAULT_CONFIG = """\
# Synapse workspace configuration. Every key is optional: a missing key takes the value shown.
# Paths are relative to the workspace root (the folder that holds .synapse/).

# Zettelkasten projects searched by default. Leave it out to use every project
# under .zettelkasten/; [] means memory only.
# projects: [research]

memory: .memory                # memory tree: .memory/tree/<id>.md -> mem:tree:<id>
zettelkasten: .zettelkasten    # notes: .zettelkasten/<project>/notes/<id>.md -> zk:<project>:<id>
federation: {}                 # other zettelkasten roots, e.g. {lab: ../lab/.zettelkasten} -> zk:lab.<project>:<id>
code:
  path: .                      # the git repository whose HEAD is the code store
  # name: myproject            # repo:<name>:<path> addresses; default: the workspace folder name
  # exclude: ["assets/**"]     # tracked files that are not evidence (binary files never are)
runs: runs                     # runs/<run-id>/run.yaml -> data:runs:<run-id>
# Existing knowledge read in place (see docs/sources.md); `synapse init --adopt` writes these for you.
# sources:
#   - {kind: adr, path: doc/adr}          # ADRs -> mem:adr:<file name>
#   - {kind: notes, path: vault}          # markdown / Obsidian vault -> zk:vault:<note>
#   - {kind: mlflow, path: mlruns}        # MLflow runs -> data:runs:<run id>
#   - {kind: mem, path: memory}           # memdsl .mem files -> mem:mem:<declaration id>
# cache: .angelo               # derived, disposable indexes; default .angelo when git-ignored, else the user cache
# navigate's model. Unset: the MCP host's own model under `synapse serve` (host), the offline
# extractive navigator on the CLI and the dashboard. Or: extractive | script:PATH | command:CMD |
# openai:MODEL | anthropic:MODEL (see docs/models.md).
# model: host
write_free: false              # true refuses `build` (for read-only agents)
navigate:
  timeout_s: 120
  max_nodes: 40
  hops: 1
  token_budget: 24000
  render_max_body_chars: 1200
"""


def init_workspace(directory: Path) -> Path:
    """Make ``directory`` an empty, valid workspace and return its resolved path.

    Refuses (:class:`WorkspaceError`) a path that is a file or that already
    holds a workspace; any other existing folder (an existing code project) is
    initialised in place without touching its files, apart from ``.gitignore``.
    """
    directory = Path(directory)
    _refuse_existing(directory)
    directory.mkdir(parents=True, exist_ok=True)
    root = directory.resolve()
    config = root / CONFIG_RELPATH
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(DEFAULT_CONFIG, encoding="utf-8", newline="\n")
    for store in (".memory/tree", ".zettelkasten", "runs"):
        (root / store).mkdir(parents=True, exist_ok=True)
    _ignore_cache(root)
    if not _inside_git_work_tree(root):
        _git(root, "init", "-q")
    return root


def make_demo(directory: Path) -> Path:
    """Write the complete demo workspace into ``directory`` (absent or empty) and return its resolved path."""
    directory = Path(directory)
    if directory.exists() and (not directory.is_dir() or any(directory.iterdir())):
        raise WorkspaceError(
            f"{_shown(directory)} is not empty; the demo needs a new or empty directory", root=_shown(directory)
        )
    return build_demo(directory)


def _refuse_existing(directory: Path) -> None:
    if directory.exists() and not directory.is_dir():
        raise WorkspaceError(f"{_shown(directory)} exists and is not a directory", root=_shown(directory))
    present = [marker for marker in WORKSPACE_MARKERS if (directory / marker).exists()]
    if present:
        raise WorkspaceError(
            f"{_shown(directory)} already holds a Synapse workspace ({', '.join(present)}); refusing to overwrite it",
            root=_shown(directory),
        )


def _ignore_cache(root: Path) -> None:
    """Add ``.angelo/`` to ``.gitignore`` unless an equivalent line is already there."""
    path = root / ".gitignore"
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if any(line.strip().strip("/") == CACHE_IGNORE.strip("/") for line in text.splitlines()):
        return
    if text and not text.endswith("\n"):
        text += "\n"
    path.write_text(text + CACHE_IGNORE + "\n", encoding="utf-8", newline="\n")


def _inside_git_work_tree(root: Path) -> bool:
    if shutil.which("git") is None:
        return True  # nothing to initialise with; the code store stays empty until the user adds git
    done = subprocess.run(
        ["git", "rev-parse", "--is-inside-work-tree"], cwd=root, capture_output=True, text=True, check=False
    )
    return done.returncode == 0 and done.stdout.strip() == "true"


def _git(root: Path, *args: str) -> None:
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise WorkspaceError(f"git {args[0]} failed in {_shown(root)}: {done.stderr.strip()}", root=_shown(root))


def _shown(path: Path) -> str:
    """A name for messages that never prints an absolute machine path."""
    return path.name or str(path)
