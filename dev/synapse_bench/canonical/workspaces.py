"""Build each recipe's workspace once, and load its stores once, for a whole benchmark run.

The demo is built and indexed first (the index build is the expensive part:
every document is embedded). Every other recipe starts as a copy of that
indexed demo, so opening its index re-embeds only the documents the recipe
changed. One :class:`Stores` per workspace is reused by every case that names
it, exactly as a long-lived server would.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
from importlib.abc import Traversable
from pathlib import Path
from typing import TYPE_CHECKING

from dev.synapse_bench.canonical.cases import Recipe
from synapse_server.demo.builder import content_root, load_history
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.init import make_demo
from synapse_server.workspace.stores import Stores

if TYPE_CHECKING:
    from adapters.index.embedder import TextEncoder

_PLACEHOLDER = re.compile(r"\{\{(commit|sha256):([^}]+)\}\}")
_GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Synapse Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "Synapse Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
    "GIT_AUTHOR_DATE": "2026-07-01T09:00:00+00:00",
    "GIT_COMMITTER_DATE": "2026-07-01T09:00:00+00:00",
}


class Workbench:
    """Workspaces under ``root`` (one folder per recipe) and their loaded stores, built on first use."""

    def __init__(self, root: Path, recipes: dict[str, Recipe], embedder: TextEncoder) -> None:
        self.root = root
        self.recipes = recipes
        self.embedder = embedder
        self._built: dict[str, Path] = {}
        self._stores: dict[str, Stores] = {}

    def path(self, name: str) -> Path:
        """The recipe's workspace; one left by an earlier run under the same root is reused if nothing changed."""
        if name not in self._built:
            recipe = self.recipes[name]
            target = self.root / recipe.name
            marker = self.root / f"{recipe.name}.recipe"
            stamp = fingerprint(recipe)
            if target.is_dir() and marker.is_file() and marker.read_text(encoding="utf-8") == stamp:
                self._built[name] = target.resolve()
            else:
                if target.exists() or target.is_symlink():
                    shutil.rmtree(target)
                self._built[name] = self._build(recipe)
                marker.write_text(stamp, encoding="utf-8")
        return self._built[name]

    def stores(self, name: str) -> Stores:
        """The recipe's stores, loaded once; the index is brought up to date here, not during a case."""
        if name not in self._stores:
            stores = Stores.load(load_workspace(self.path(name)))
            stores.open_index(self.embedder).close()
            self._stores[name] = stores
        return self._stores[name]

    def _build(self, recipe: Recipe) -> Path:
        target = self.root / recipe.name
        if recipe.name == "demo":
            return make_demo(target)
        base = self.path(recipe.base)
        self.stores(recipe.base)  # index the base first, so the copy only re-embeds what the recipe changes
        shutil.copytree(base, target, symlinks=True)
        apply_recipe(target, recipe)
        return target.resolve()


def fingerprint(recipe: Recipe) -> str:
    """What a built workspace depends on: the recipe and every file of the packaged demo content."""
    digest = hashlib.sha256(recipe.model_dump_json().encode("utf-8"))
    stack: list[Traversable] = [content_root()]
    while stack:
        item = stack.pop()
        for child in sorted(item.iterdir(), key=lambda c: c.name):
            if child.is_dir():
                stack.append(child)
            elif child.is_file():
                digest.update(child.name.encode("utf-8") + child.read_bytes())
    return digest.hexdigest()


def apply_recipe(root: Path, recipe: Recipe) -> None:
    """Edits, symlinks, then an optional commit; placeholders are filled once everything is written."""
    written: list[Path] = []
    for edit in recipe.write:
        written.append(_write(root, edit.path, edit.text))
    for relpath in recipe.delete:
        _inside(root, relpath).unlink()
    for link in recipe.symlink:
        path = _inside(root, link.path)
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        elif path.exists() or path.is_symlink():
            path.unlink()
        path.symlink_to(link.text)
    if recipe.commit is not None:
        for edit in recipe.commit.write:
            written.append(_write(root, edit.path, edit.text))
        for edit in recipe.commit.append:
            path = _inside(root, edit.path)
            path.write_text(path.read_text(encoding="utf-8") + edit.text, encoding="utf-8", newline="\n")
        for relpath in recipe.commit.delete:
            _inside(root, relpath).unlink()
    commits = demo_commits(root)
    for path in written:
        _fill(root, path, commits)
    if recipe.commit is not None:
        paths = [e.path for e in (*recipe.commit.write, *recipe.commit.append)] + list(recipe.commit.delete)
        _git(root, "add", "--all", "--", *paths)
        _git(root, "commit", "-q", "-m", recipe.commit.message)


def demo_commits(root: Path) -> dict[str, str]:
    """The demo history's labels (C1 …) mapped to the 7-digit shas of this workspace's commits."""
    log = _git(root, "log", "--format=%h %s", "--abbrev=7")
    by_message: dict[str, str] = {}
    for line in log.splitlines():
        sha, _, message = line.partition(" ")
        by_message.setdefault(message, sha)
    return {c.label: by_message[c.message] for c in load_history() if c.message in by_message}


def _write(root: Path, relpath: str, text: str) -> Path:
    path = _inside(root, relpath)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8", newline="\n")
    return path


def _fill(root: Path, path: Path, commits: dict[str, str]) -> None:
    text = path.read_text(encoding="utf-8")

    def fill(match: re.Match[str]) -> str:
        kind, value = match.group(1), match.group(2)
        if kind == "commit":
            return commits[value]
        return hashlib.sha256(_inside(root, value).read_bytes()).hexdigest()

    filled = _PLACEHOLDER.sub(fill, text)
    if filled != text:
        path.write_text(filled, encoding="utf-8", newline="\n")


def _inside(root: Path, relpath: str) -> Path:
    """A recipe path, refused if it could leave the workspace (recipes are data, so check them like data)."""
    if relpath.startswith("/") or ".." in Path(relpath).parts or "\\" in relpath:
        raise ValueError(f"recipe path {relpath!r} must be relative and stay inside the workspace")
    return root / relpath


def _git(root: Path, *args: str) -> str:
    env = {**os.environ, **_GIT_IDENTITY}
    done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"git {args[0]} failed in a bench workspace: {done.stderr.strip()}")
    return done.stdout
