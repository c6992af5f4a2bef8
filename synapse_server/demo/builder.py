"""Build the demo workspace from the package data under ``content/``.

The content folder mirrors the workspace, with names package data can carry::

    content/history.yaml        -> the git history of the code base (replayed commit by commit)
    content/synapse/...         -> .synapse/...      (config)
    content/memory/...          -> .memory/...       (memory tree)
    content/zettelkasten/...    -> .zettelkasten/... (notes, sources, cached texts, debate maps)
    content/runs/...            -> runs/...          (run records and their output files)

Only ``.md``, ``.yaml``, ``.txt`` and ``.json`` files ship as package data, so a
file with another extension rides under an extra ``.txt`` suffix
(``equity.csv.txt`` is written as ``equity.csv``). Store files may hold two
placeholders, filled in once the history is committed: ``{{commit:C3}}``
becomes the 7-digit sha of the commit labelled C3 in ``history.yaml``, and
``{{sha256:data/prices.csv}}`` the sha256 of that workspace file as written.
Deriving pins and hashes at build time keeps the content editable without
hand-maintained hashes, while the output stays identical on every build.
"""

from __future__ import annotations

import hashlib
import re
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path

import yaml

from synapse_server.demo.gitreplay import Commit, replay
from synapse_server.errors import WorkspaceError

STORE_DIRS = {"synapse": ".synapse", "memory": ".memory", "zettelkasten": ".zettelkasten", "runs": "runs"}
"""Top-level content folders and the workspace folder each becomes."""

SHORT_SHA = 7
_PLACEHOLDER = re.compile(r"\{\{(commit|sha256):([^{}\s]+)\}\}")
_SHIPPABLE = (".md", ".yaml", ".txt", ".json")


def content_root() -> Traversable:
    """The packaged demo content (works from a source checkout and from an installed wheel)."""
    return resources.files("synapse_server.demo").joinpath("content")


def load_history() -> list[Commit]:
    """The demo's code history, in commit order."""
    raw = yaml.safe_load(content_root().joinpath("history.yaml").read_text(encoding="utf-8"))
    return [
        Commit(label=str(c["label"]), date=str(c["date"]), message=str(c["message"]), files=dict(c["files"]))
        for c in raw["commits"]
    ]


def build_demo(dest: Path) -> Path:
    """Write the complete demo workspace into ``dest`` (absent or empty) and return its resolved path."""
    dest = Path(dest)
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise WorkspaceError(f"{dest.name or dest}: the demo needs a new or empty directory", root=dest.name)
    dest.mkdir(parents=True, exist_ok=True)
    dest = dest.resolve()
    shas = replay(dest, load_history())
    written = _copy_stores(dest)
    commits = {label: sha[:SHORT_SHA] for label, sha in shas.items()}
    for path in written:
        _fill_placeholders(dest, path, commits)
    return dest


def workspace_name(relpath: str) -> str:
    """The workspace path a content path is written to (store folder renamed, ``.txt`` carrier dropped)."""
    top, _, rest = relpath.partition("/")
    parent, _, name = f"{STORE_DIRS[top]}/{rest}".rpartition("/")
    if name.endswith(".txt") and "." in name[: -len(".txt")]:
        name = name[: -len(".txt")]
    return f"{parent}/{name}"


def _copy_stores(dest: Path) -> list[Path]:
    written: list[Path] = []
    root = content_root()
    for top in sorted(STORE_DIRS):
        for relpath, item in _walk(root.joinpath(top), top):
            target = dest / workspace_name(relpath)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(item.read_bytes())
            written.append(target)
    return written


def _walk(folder: Traversable, prefix: str) -> list[tuple[str, Traversable]]:
    """Every shippable file under ``folder`` as (content-relative path, file), sorted by path."""
    found: list[tuple[str, Traversable]] = []
    for item in folder.iterdir():
        relpath = f"{prefix}/{item.name}"
        if item.is_dir():
            if item.name != "__pycache__":
                found.extend(_walk(item, relpath))
        elif item.name.endswith(_SHIPPABLE):
            found.append((relpath, item))
    return sorted(found, key=lambda pair: pair[0])


def _fill_placeholders(dest: Path, path: Path, commits: dict[str, str]) -> None:
    text = path.read_text(encoding="utf-8")
    if "{{" not in text:
        return

    def fill(match: re.Match[str]) -> str:
        kind, value = match.group(1), match.group(2)
        if kind == "commit":
            return commits[value]
        target = dest / value
        data = target.read_bytes()
        if b"{{" in data:
            raise ValueError(f"demo content: {value} is hashed but holds placeholders itself")
        return hashlib.sha256(data).hexdigest()

    path.write_text(_PLACEHOLDER.sub(fill, text), encoding="utf-8", newline="\n")
