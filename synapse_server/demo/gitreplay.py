"""Replay the demo's code history as real git commits, identically on every machine.

The demo's memory pins name commit shas, so the shas must not depend on who
builds it, when, or with which git configuration: author, committer, dates and
branch are fixed, and the user's global and system git config (signing, hooks
templates, default branch, autocrlf) is shut out through the environment.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from synapse_server.errors import SynapseError

AUTHOR_NAME = "Demo Researcher"
AUTHOR_EMAIL = "researcher@momentum.example"
BRANCH = "main"


@dataclass(frozen=True, slots=True)
class Commit:
    """One commit of the replayed history: the files it writes (full contents) on top of the previous tree."""

    label: str
    date: str
    message: str
    files: Mapping[str, str]


def _environment(date: str | None = None) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}
    env.update(
        GIT_CONFIG_GLOBAL=os.devnull,
        GIT_CONFIG_NOSYSTEM="1",
        GIT_AUTHOR_NAME=AUTHOR_NAME,
        GIT_AUTHOR_EMAIL=AUTHOR_EMAIL,
        GIT_COMMITTER_NAME=AUTHOR_NAME,
        GIT_COMMITTER_EMAIL=AUTHOR_EMAIL,
        LC_ALL="C",
    )
    if date is not None:
        env.update(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    return env


def git(repo: Path, *args: str, date: str | None = None) -> str:
    """Run one git command in ``repo`` with the fixed identity; a failure is a :class:`SynapseError`."""
    if shutil.which("git") is None:
        raise SynapseError("the git executable is required to build a workspace repository but was not found")
    command = ["git", "-c", "core.autocrlf=false", "-c", "commit.gpgsign=false", "-c", "core.fileMode=true", *args]
    done = subprocess.run(command, cwd=repo, env=_environment(date), capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise SynapseError(f"git {args[0]} failed: {done.stderr.strip() or done.stdout.strip()}", command=args[0])
    return done.stdout.strip()


def init_repository(repo: Path) -> None:
    """``git init`` without template hooks, on the fixed branch name."""
    git(repo, "init", "-q", "--template=")
    git(repo, "symbolic-ref", "HEAD", f"refs/heads/{BRANCH}")


def replay(repo: Path, commits: Sequence[Commit]) -> dict[str, str]:
    """Create the repository at ``repo`` and commit each step; returns label -> full commit sha."""
    init_repository(repo)
    shas: dict[str, str] = {}
    for commit in commits:
        for relpath, text in commit.files.items():
            target = repo / relpath
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(text.encode("utf-8"))
        git(repo, "add", "--", *commit.files)
        git(repo, "commit", "-q", "--no-verify", "-m", commit.message, date=commit.date)
        shas[commit.label] = git(repo, "rev-parse", "HEAD")
    return shas
