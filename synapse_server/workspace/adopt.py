"""``synapse init --adopt [DIR]``: find the knowledge a repository already keeps and read it in place.

Detection looks for ADR folders (``doc/adr``, ``docs/adr``, ``docs/decisions``,
…), Obsidian vaults (a folder holding ``.obsidian/``), MLflow tracking folders
(``mlruns/``) and memdsl ``.mem`` files, then writes ``.synapse/config.yaml``
with one ``sources:`` entry per find. Nothing else in the repository changes:
no store folders, no ``git init``; the index cache goes to the user cache
folder unless ``--gitignore`` adds ``.angelo/`` to ``.gitignore`` (the one
other file adopt may touch, and only when asked).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import yaml

from synapse_server.errors import WorkspaceError
from synapse_server.workspace.config import CONFIG_RELPATH, load_workspace
from synapse_server.workspace.source_config import CACHE_NAME, SourceConfig, plain_name

ADR_FOLDERS = ("doc/adr", "docs/adr", "doc/decisions", "docs/decisions", "docs/architecture/decisions", "adr", "adrs")
_SKIP_DIRS = frozenset({"node_modules", "venv", "__pycache__", "build", "dist", "site-packages", "target"})
_MAX_DEPTH = 4


@dataclass(frozen=True, slots=True)
class Finding:
    """One source adopt found: its config entry and how many files it holds."""

    source: SourceConfig
    files: int

    def describe(self) -> str:
        unit = {"adr": "decision record", "notes": "note", "mlflow": "run", "mem": ".mem file"}[self.source.kind]
        return f"{self.source.kind:6} {self.source.path}  ({self.files} {unit}{'' if self.files == 1 else 's'})"


@dataclass(frozen=True, slots=True)
class Adoption:
    root: Path
    findings: tuple[Finding, ...]
    config_path: Path
    cache_dir: Path
    gitignore_changed: bool


def detect(root: Path) -> list[Finding]:
    """Every source kind found under ``root``, in a stable order (adr, notes, mlflow, mem)."""
    root = root.resolve()
    found: list[Finding] = []
    for rel in ADR_FOLDERS:
        folder = root / rel
        if folder.is_dir() and not folder.is_symlink():
            records = [p for p in folder.iterdir() if p.suffix == ".md" and p.name[:1].isdigit()]
            if records:  # a second ADR folder gets its own address segment, so ids cannot collide
                name = None if not found else plain_name(rel.replace("/", "-"))
                found.append(Finding(SourceConfig(kind="adr", path=rel, name=name), len(records)))
    dirs = list(_walk(root))
    for folder in dirs:
        if (folder / ".obsidian").is_dir():
            rel = _rel(folder, root)
            count = sum(1 for _ in _markdown(folder))
            name = None if rel != "." else "vault"
            found.append(Finding(SourceConfig(kind="notes", path=rel, name=name), count))
    for folder in dirs:
        if folder.name == "mlruns":
            runs = sum(
                1 for exp in folder.iterdir() if exp.is_dir() for run in exp.iterdir() if (run / "meta.yaml").is_file()
            )
            found.append(Finding(SourceConfig(kind="mlflow", path=_rel(folder, root)), runs))
    mem_dirs = sorted({path.parent for folder in dirs for path in folder.glob("*.mem") if path.is_file()})
    tops = [d for d in mem_dirs if not any(other in d.parents for other in mem_dirs)]
    for index, folder in enumerate(tops):
        count = sum(1 for d in mem_dirs if d == folder or folder in d.parents for _ in d.glob("*.mem"))
        name = None if len(tops) == 1 else f"mem{index + 1}"
        found.append(Finding(SourceConfig(kind="mem", path=_rel(folder, root), name=name), count))
    return found


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
    findings = tuple(detect(root))
    changed = _ignore_cache(root) if gitignore else False
    config_path.parent.mkdir(parents=True, exist_ok=True)
    tmp = config_path.with_suffix(".tmp")
    tmp.write_text(render_config(findings), encoding="utf-8", newline="\n")
    os.replace(tmp, config_path)
    workspace = load_workspace(root)
    return Adoption(root, findings, config_path, workspace.cache_dir, changed)


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
    out: list[Path] = []
    for dirpath, dirnames, _ in os.walk(root):
        depth = len(Path(dirpath).relative_to(root).parts)
        dirnames[:] = sorted(
            d for d in dirnames if not d.startswith(".") and d not in _SKIP_DIRS and depth < _MAX_DEPTH
        )
        out.append(Path(dirpath))
        if Path(dirpath).name == "mlruns":
            dirnames[:] = []
    return out


def _markdown(folder: Path) -> list[Path]:
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        found.extend(Path(dirpath) / f for f in filenames if f.endswith(".md"))
    return found


def _rel(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if path != root else "."


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
