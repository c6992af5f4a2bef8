"""Project names: one rule for every parameter that takes them, and errors that never echo a huge input.

A project name is a single address segment (no ``:`` ``{`` ``}`` ``,`` slash,
whitespace, NUL or leading dot) of at most 64 characters. An unknown name is
refused naming at most its first 80 characters and at most 20 known projects,
so a megabyte of input never comes back as a megabyte of error.
"""

from __future__ import annotations

from collections.abc import Iterable

from synapse_server.errors import InvalidInput

MAX_PROJECT_NAME = 64
_SHOWN_CHARS = 80
_SHOWN_PROJECTS = 20


def shown(text: str) -> str:
    """A bounded, quoted rendering of caller input for an error message."""
    return repr(text[:_SHOWN_CHARS]) + ("..." if len(text) > _SHOWN_CHARS else "")


def check_text(value: str, what: str) -> str:
    """Refuse NUL (it truncates C strings downstream) and blank text; lengths are bounded by the field."""
    if "\x00" in value:
        raise ValueError(f"{what} contains a NUL character")
    if not value.strip():
        raise ValueError(f"{what} is blank")
    return value


def check_project_names(names: list[str] | None) -> list[str] | None:
    """Validator body for a ``projects`` field (raises ValueError, which pydantic reports)."""
    for name in names or []:
        if "\x00" in name:
            raise ValueError("a project name contains a NUL character")
        if len(name) > MAX_PROJECT_NAME:
            raise ValueError(f"a project name is longer than {MAX_PROJECT_NAME} characters")
        if not name or ":" in name or any(c.isspace() or c in "{},/\\" for c in name) or name.startswith("."):
            raise ValueError(f"project {shown(name)} is not a valid project name")
    return names


def refuse_unknown_projects(requested: Iterable[str], known: Iterable[str]) -> None:
    """Raise InvalidInput (parameter ``projects``) for the first requested name the workspace lacks."""
    have = sorted(set(known))
    for name in requested:
        if name not in have:
            listed = ", ".join(have[:_SHOWN_PROJECTS]) + (", ..." if len(have) > _SHOWN_PROJECTS else "")
            raise InvalidInput(
                f"unknown project {shown(name)}; this workspace has: {listed or 'none'}", parameter="projects"
            )
