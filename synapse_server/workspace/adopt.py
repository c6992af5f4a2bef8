"""``synapse init --adopt [DIR]``: find the knowledge a repository already keeps and read it in place.

Detection asks every registered source kind (``SOURCE_KINDS``: ADR folders,
Obsidian vaults, MLflow tracking folders, memdsl ``.mem`` files) what it finds
in one shared walk of the tree, then writes ``.synapse/config.yaml``
with one ``sources:`` entry per find. Nothing else in the repository changes:
no store folders, no ``git init``; the index cache goes to the user cache
folder unless ``--gitignore`` adds ``.angelo/`` to ``.gitignore`` (the one
other file adopt may touch, and only when asked).

A kind may also give *hints*: folders it did not adopt but could (a folder of
plain markdown notes), each a line saying what to add to ``sources:``. After
writing the config, :func:`adoption_report` reads each adopted source once,
so the user learns what will be skipped, and why, before a search comes back
short.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import yaml

from adapters.base import Family
from synapse_server.errors import WorkspaceError
from synapse_server.workspace.config import CONFIG_RELPATH, load_workspace
from synapse_server.workspace.loading import load_each
from synapse_server.workspace.source_config import CACHE_NAME, SourceConfig
from synapse_server.workspace.source_kinds import SOURCE_KINDS
from synapse_server.workspace.source_report import SourceReport, source_reports

_SKIP_DIRS = frozenset({"node_modules", "venv", "__pycache__", "build", "dist", "site-packages", "target"})
_MAX_DEPTH = 4
_SOURCE_FAMILIES: tuple[Family, ...] = ("memory", "zk", "data")
"""Every family a source kind joins: all stores but the code store."""


@dataclass(frozen=True, slots=True)
class Finding:
    """One source adopt found: its config entry and how many files it holds."""

    source: SourceConfig
    files: int

    def describe(self) -> str:
        unit = SOURCE_KINDS[self.source.kind].unit
        return f"{self.source.kind:6} {self.source.path}  ({self.files} {unit}{'' if self.files == 1 else 's'})"


@dataclass(frozen=True, slots=True)
class Adoption:
    root: Path
    findings: tuple[Finding, ...]
    config_path: Path
    cache_dir: Path
    gitignore_changed: bool
    hints: tuple[str, ...] = ()
    """Folders the kinds could read but did not adopt, each with what to add to ``sources:``."""


def detect(root: Path) -> list[Finding]:
    """Every source kind found under ``root``, in a stable order (the registry's, then each kind's own)."""
    root = root.resolve()
    return _detect(root, _walk(root))


def _detect(root: Path, folders: list[Path]) -> list[Finding]:
    return [
        Finding(SourceConfig(kind=kind.name, path=found.path, name=found.name), found.files)
        for kind in SOURCE_KINDS.values()
        for found in kind.detect(root, folders)
    ]


def hints(root: Path, folders: list[Path]) -> list[str]:
    """Every kind's hints for ``root`` (:meth:`SourceKind.hints`), in registry order."""
    return [line for kind in SOURCE_KINDS.values() for line in kind.hints(root, folders)]


def adoption_report(root: Path) -> list[SourceReport]:
    """Each adopted source read once: files read, files that will be skipped and why.

    Run right after :func:`adopt`, it is the account ``synapse lint`` gives, so a
    note that is not UTF-8 or a decision with broken front matter is named while
    the user is still looking, not discovered as a missing answer. The code store
    is left to lint: it parses every tracked Python file, which in a repository
    that commits a virtualenv takes minutes (80 s for 13,000 files), while the
    sources take a second or two.
    """
    return source_reports(load_each(load_workspace(Path(root).resolve()), _SOURCE_FAMILIES))


def adopt(directory: Path, *, gitignore: bool = False) -> Adoption:
    """Write the config for what :func:`detect` finds; refuses a folder that already has a Synapse config."""
    root = Path(directory).resolve()
    if not root.is_dir():
        raise WorkspaceError(f"{root.name or 'the folder'} is not a directory", root=root.name)
    config_path = root / CONFIG_RELPATH
    if config_path.exists():
        raise WorkspaceError(
            f"{root.name} already has {CONFIG_RELPATH.as_posix()}; edit its sources: instead of adopting again",
            root=root.name,
        )
    folders = _walk(root)
    findings = tuple(_detect(root, folders))
    changed = _ignore_cache(root) if gitignore else False
    config_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = config_path.with_suffix(".tmp")
    tmp.write_text(render_config(findings), encoding="utf-8", newline="\n")
    os.replace(tmp, config_path)
    workspace = load_workspace(root)
    return Adoption(root, findings, config_path, workspace.cache_dir, changed, tuple(hints(root, folders)))


def render_config(findings: tuple[Finding, ...]) -> str:
    entries = [f.source.model_dump(exclude_none=True) for f in findings]
    listing = yaml.safe_dump({"sources": entries}, sort_keys=False, default_flow_style=None).rstrip()
    if not entries:
        listing = "sources: []"
    return (
        "# Written by `synapse init --adopt`: the knowledge this repository already keeps, read in place.\n"
        "# Nothing is converted or copied; see docs/sources.md for what each kind reads.\n"
        f"{listing}\n"
        "code:\n"
        "  path: .\n"
        "  exclude: []                  # glob patterns of tracked files that are not evidence\n"
        "# model: host                   # unset: the MCP host's own model under synapse serve, extractive on the CLI\n"
    )


def _walk(root: Path) -> list[Path]:
    """Folders under ``root`` (itself included) to ``_MAX_DEPTH``; hidden and build folders skipped."""
    pruned = frozenset[str]().union(*(kind.prunes for kind in SOURCE_KINDS.values()))
    out: list[Path] = []
    for dirpath, dirnames, _ in os.walk(root):
        depth = len(Path(dirpath).relative_to(root).parts)
        dirnames[:] = sorted(
            d for d in dirnames if not d.startswith(".") and d not in _SKIP_DIRS and depth < _MAX_DEPTH
        )
        out.append(Path(dirpath))
        if Path(dirpath).name in pruned:
            dirnames[:] = []
    return out


def _ignore_cache(root: Path) -> bool:
    """Add ``.angelo/`` to ``.gitignore`` unless it is already ignored; True when the file changed."""
    path = root / ".gitignore"
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if any(line.strip().strip("/") == CACHE_NAME for line in text.splitlines()):
        return False
    if text and not text.endswith("\n"):
        text += "\n"
    path.write_text(text + CACHE_NAME + "/\n", encoding="utf-8", newline="\n")
    return True
