"""Project names: one rule for the config, the tool's parameters and the CLI, and errors that never echo a huge input.

A project name is a single address segment (no ``:`` ``{`` ``}`` ``,`` slash,
whitespace, NUL or leading dot) of at most 64 characters; a federated project
is ``<alias>.<project>``, so a federation alias is a project name without a
dot. The config (``projects``, ``federation``), every parameter model that
takes ``projects`` and the CLI's ``--projects`` all call
:func:`check_project_name`, so a name one of them accepts the others accept.
An unknown name is refused naming at most its first 80 characters and at most
20 known projects, so a megabyte of input never comes back as a megabyte of error.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Annotated

from pydantic import AfterValidator

from synapse_server.errors import InvalidInput

__all__ = [
    "MAX_PROJECT_NAME",
    "ProjectName",
    "check_federation_alias",
    "check_project_name",
    "check_project_names",
    "check_text",
    "project_list_arg",
    "refuse_unknown_projects",
    "shown",
]

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


def check_project_name(name: str) -> str:
    """The one project-name rule (raises ValueError, which pydantic reports with the field's location)."""
    if "\x00" in name:
        raise ValueError("a project name contains a NUL character")
    if len(name) > MAX_PROJECT_NAME:
        raise ValueError(f"a project name is longer than {MAX_PROJECT_NAME} characters")
    if not name or ":" in name or any(c.isspace() or c in "{},/\\" for c in name) or name.startswith("."):
        raise ValueError(f"project {shown(name)} is not a valid project name")
    return name


ProjectName = Annotated[str, AfterValidator(check_project_name)]
"""A ``str`` field holding one project name."""


def check_project_names(names: list[str] | None) -> list[str] | None:
    """Validator body for a ``projects`` field: every name passes :func:`check_project_name`."""
    for name in names or []:
        check_project_name(name)
    return names


def check_federation_alias(alias: str) -> str:
    """A federation alias prefixes its projects (``<alias>.<project>``): a project name without a dot."""
    check_project_name(alias)
    if "." in alias:
        raise ValueError(f"federation alias {shown(alias)} must not hold a dot (it separates alias and project)")
    return alias


def project_list_arg(text: str | None) -> list[str] | None:
    """The CLI's ``--projects a,b``: None when absent (config scope), ``[]`` for ``''`` (memory only).

    Each comma-separated name is trimmed and checked by the same rule as the tool's parameter, so a
    command that hands the list straight to a library function refuses what the tool would refuse.
    """
    if text is None:
        return None
    names = [name.strip() for name in text.split(",") if name.strip()]
    try:
        return check_project_names(names)
    except ValueError as exc:
        raise InvalidInput(str(exc), parameter="projects") from None


def refuse_unknown_projects(requested: Iterable[str], known: Iterable[str]) -> None:
    """Raise InvalidInput (parameter ``projects``) for the first requested name the workspace lacks."""
    have = sorted(set(known))
    for name in requested:
        if name not in have:
            listed = ", ".join(have[:_SHOWN_PROJECTS]) + (", ..." if len(have) > _SHOWN_PROJECTS else "")
            raise InvalidInput(
                f"unknown project {shown(name)}; this workspace has: {listed or 'none'}", parameter="projects"
            )
