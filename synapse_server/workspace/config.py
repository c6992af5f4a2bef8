"""The workspace and its ``.synapse/config.yaml``.

A missing config means the defaults below; an invalid one is a
:class:`ConfigError` naming the key and the file, never a silent default.
Every configured path resolves inside the workspace, except federated
zettelkasten roots, which resolve exactly where configured.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from adapters.frontmatter import StoreFileError, load_yaml
from adapters.paths import read_regular_bytes
from synapse_server.errors import ConfigError, WorkspaceError
from synapse_server.names import ProjectName, check_federation_alias
from synapse_server.workspace.placement import CONFIG_RELPATH as CONFIG_RELPATH  # its one home; re-exported
from synapse_server.workspace.placement import check_placement
from synapse_server.workspace.source_config import SourceConfig, default_cache_dir, notes_projects

_MARKERS = (".synapse", ".memory", ".zettelkasten")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)


class CodeConfig(_Strict):
    name: str | None = Field(
        None, description="Repository name used in repo: addresses (default: the workspace folder name)."
    )
    path: str = Field(".", description="The git repository, relative to the workspace.")
    exclude: list[str] = Field(
        default_factory=list, description="Glob patterns of tracked paths that are not code nodes (e.g. 'assets/**')."
    )


class NavigateConfig(_Strict):
    timeout_s: float = Field(120.0, gt=0, le=3600)
    max_nodes: int = Field(40, ge=1, le=10_000)
    hops: int = Field(1, ge=0, le=8)
    token_budget: int = Field(24_000, ge=256, le=2_000_000)
    render_max_body_chars: int = Field(1200, ge=0, le=1_000_000)
    max_concurrent: int = Field(2, ge=1, le=64, description="Navigate turns run at once; more calls wait in a queue.")
    turn_ttl_s: int = Field(
        1800, ge=30, le=86_400, description="How long a pending host turn waits for its reply before it expires."
    )

    @field_validator("timeout_s", mode="before")
    @classmethod
    def _int_is_a_float(cls, value: Any) -> Any:
        return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


class IndexConfig(_Strict):
    backend: Literal["sqlite", "postgres"] = Field(
        "sqlite", description="Where the derived index lives: the embedded SQLite file, or a shared PostgreSQL."
    )
    dsn: str | None = Field(
        None, description="PostgreSQL connection string (env SYNAPSE_INDEX_DSN wins); never echoed."
    )
    workspace: str | None = Field(
        None,
        pattern=r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$",
        description="Label of this workspace's rows; the key adds a digest of the workspace folder.",
    )
    timeout_s: float = Field(
        10.0, gt=0, le=600, description="Seconds a call waits for an unresponsive database before index_unavailable."
    )

    @field_validator("timeout_s", mode="before")
    @classmethod
    def _int_is_a_float(cls, value: Any) -> Any:
        return float(value) if isinstance(value, int) and not isinstance(value, bool) else value


class Config(_Strict):
    projects: list[ProjectName] | None = Field(
        None, description="Intersecting zettelkasten projects; None = every local project."
    )
    memory: str = ".memory"
    zettelkasten: str = ".zettelkasten"
    federation: dict[str, str] = Field(default_factory=dict)
    code: CodeConfig = CodeConfig()
    runs: str = "runs"
    sources: list[SourceConfig] = Field(
        default_factory=list, description="Existing knowledge read in place: adr, notes, mlflow and mem folders."
    )
    cache: str | None = Field(
        None, description="The derived index folder; None = .angelo, or the user cache folder (see cache_dir)."
    )
    model: str | None = Field(
        None,
        description="navigate's model spec; None = the MCP host's own model under `synapse serve` (host), "
        "the offline extractive navigator on the CLI and the dashboard.",
    )
    embedding_model: str | None = Field(
        None,
        description="minilm-onnx (the default when None), minilm-torch (the torch extra), or a model folder.",
    )
    write_free: bool = False
    navigate: NavigateConfig = NavigateConfig()
    index: IndexConfig = IndexConfig()

    @field_validator("federation")
    @classmethod
    def _aliases_are_project_names(cls, value: dict[str, str]) -> dict[str, str]:
        for alias in value:
            check_federation_alias(alias)
        return value


@dataclass(frozen=True)
class Workspace:
    """A resolved workspace: the root, its config, and every store path made absolute."""

    root: Path
    config: Config
    config_path: Path | None

    @property
    def memory_dir(self) -> Path:
        return self._inside(self.config.memory, "memory")

    @property
    def zettelkasten_dir(self) -> Path:
        return self._inside(self.config.zettelkasten, "zettelkasten")

    @property
    def runs_dir(self) -> Path:
        return self._inside(self.config.runs, "runs")

    @property
    def cache_dir(self) -> Path:
        """The configured cache, else ``.angelo`` when the repository ignores it, else the user cache folder.

        A configured cache must resolve inside the workspace, yet the path is kept as written (normalised, not
        resolved): a cache folder that is itself a symlink is then refused by every cache write.
        """
        if self.config.cache is not None:
            self._inside(self.config.cache, "cache")
            return Path(os.path.normpath(self.root / self.config.cache))
        return default_cache_dir(self.root)

    @property
    def source_dirs(self) -> list[Path]:
        """Each configured source's folder (or file), resolved inside the workspace."""
        return [self._inside(source.path, f"sources[{i}].path") for i, source in enumerate(self.config.sources)]

    @property
    def code_dir(self) -> Path:
        return self._inside(self.config.code.path, "code.path")

    @property
    def embedding_model_path(self) -> Path | None:
        raw = self.config.embedding_model
        return None if raw is None else (self.root / raw).expanduser().resolve()

    @property
    def code_name(self) -> str:
        name = self.config.code.name or self.root.name or "repo"
        return "".join(c if c.isalnum() or c in "-_." else "-" for c in name)

    @property
    def federation_dirs(self) -> dict[str, Path]:
        """Federated roots resolve exactly where configured (relative to the workspace if relative)."""
        return {alias: (self.root / raw).resolve() for alias, raw in sorted(self.config.federation.items())}

    def local_projects(self) -> list[str]:
        base = self.zettelkasten_dir
        adopted = notes_projects(self.config.sources)
        if not base.is_dir():
            return sorted(adopted)
        found = {p.name for p in base.iterdir() if p.is_dir() and not p.name.startswith(".") and "." not in p.name}
        return sorted(found | adopted)

    def scoped_projects(self, requested: list[str] | None = None) -> list[str]:
        """``None`` = the config scope; ``[]`` = memory only; an explicit list is used as given."""
        if requested is not None:
            return list(requested)
        if self.config.projects is not None:
            return list(self.config.projects)
        return self.local_projects()

    def _inside(self, raw: str, key: str) -> Path:
        path = (self.root / raw).resolve()
        if path != self.root and self.root not in path.parents:
            raise ConfigError(
                f"{CONFIG_RELPATH}: {key} {raw!r} resolves outside the workspace", key=key, file=str(CONFIG_RELPATH)
            )
        return path


def find_workspace(start: Path) -> Path:
    """The nearest directory at or above ``start`` holding a Synapse marker (or a git repo)."""
    start = start.resolve()
    for candidate in (start, *start.parents):
        if any((candidate / m).exists() for m in _MARKERS):
            return candidate
    for candidate in (start, *start.parents):
        if (candidate / ".git").exists():
            return candidate
    return start


def load_workspace(root: Path) -> Workspace:
    """Resolve ``root`` and load its config (defaults when absent)."""
    root = Path(root).resolve()
    if not root.is_dir():
        raise WorkspaceError(f"workspace root {root.name or root} is not a directory", root=str(root))
    path = root / CONFIG_RELPATH
    if not path.exists():
        return Workspace(root, Config(), None)
    workspace = Workspace(root, parse_config(path), path)
    check_placement(workspace)
    return workspace


def parse_config(path: Path) -> Config:
    rel = CONFIG_RELPATH
    try:
        raw = load_yaml(read_regular_bytes(path).decode("utf-8"), str(rel))
    except OSError as exc:  # includes a FIFO or device, refused before any read could wait
        raise ConfigError(f"{rel}: cannot be read: {exc.strerror or exc}", file=str(rel)) from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{rel}: not UTF-8 text", file=str(rel)) from exc
    except StoreFileError as exc:
        line = exc.diagnostic.line
        raise ConfigError(f"{rel}:{line}: {exc.diagnostic.message}", file=str(rel), line=line) from None
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{rel}: the top level must be a mapping, not {type(raw).__name__}", file=str(rel))
    try:
        return Config.model_validate(raw)
    except RecursionError:
        raise ConfigError(f"{rel}: nested too deeply", file=str(rel)) from None
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(p) for p in first["loc"]) or "(top level)"
        message = "unknown key" if first["type"] == "extra_forbidden" else first["msg"]
        raise ConfigError(f"{rel}: {key}: {message}", key=key, file=str(rel)) from exc
