"""What every reliability check asserts about a result, and the source-store census.

A hostile call may get a valid result or a structured error, nothing else:
the result has the tool's two copies of one JSON object (structured content
and text), an ``action`` and a one-line ``summary``; an error has exactly
``kind``, ``message`` and ``parameter``; neither carries a traceback, a Python
frame or a path of this machine.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import anyio
from mcp.types import CallToolResult, ResourceLink, TextContent

PUBLIC_ERROR_KINDS = frozenset(
    {
        "invalid_input",
        "config_error",
        "workspace_error",
        "path_outside_workspace",
        "not_found",
        "write_refused",
        "turn_invalid",
        "turn_expired",
        "turn_used",
        "internal_error",
    }
)
"""docs/clients.md's error kinds, less the model kinds (no check here reaches a model provider)."""

CACHE_DIR = ".angelo"
OVERLAY_DIR = ".synapse/links"
_LEAK_MARKERS = ("Traceback (most recent call last)", 'File "', "site-packages", "root:x:0:0")


def source_digest(root: Path, *, cache: str = CACHE_DIR) -> dict[str, str]:
    """Every path under ``root`` but the derived cache and the overlay folder: files hashed, links by target.

    That covers ``.memory``, ``.zettelkasten``, ``runs``, the code files, ``.git``
    and ``.synapse/config.yaml``. Symlinks are never followed.
    """
    seen: dict[str, str] = {}
    skipped = {cache, OVERLAY_DIR}
    for dirpath, dirnames, filenames in os.walk(root):
        here = Path(dirpath)
        rel_dir = here.relative_to(root).as_posix()
        kept = []
        for name in sorted(dirnames):
            rel = name if rel_dir == "." else f"{rel_dir}/{name}"
            if rel in skipped:
                continue
            if (here / name).is_symlink():
                seen[rel] = "link:" + os.readlink(here / name)
            else:
                seen[rel] = "dir"
                kept.append(name)
        dirnames[:] = kept
        for name in sorted(filenames):
            path = here / name
            rel = name if rel_dir == "." else f"{rel_dir}/{name}"
            if path.is_symlink():
                seen[rel] = "link:" + os.readlink(path)
            else:
                seen[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return seen


def changed_paths(before: dict[str, str], after: dict[str, str]) -> list[str]:
    return sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))


def forbidden_texts(root: Path, *extra: str) -> list[str]:
    """Strings no result may contain: this machine's paths (workspace, temp, home, interpreter) and ``extra``."""
    texts = {str(root), str(root.resolve()), tempfile.gettempdir() + "/", sys.prefix, sys.base_prefix}
    home = os.path.expanduser("~")
    if home not in {"", "/"}:
        texts.add(home + "/")
    return sorted(t for t in texts | set(extra) if t)


def structured(result: CallToolResult, forbidden: Iterable[str] = ()) -> dict[str, Any]:
    """The result's JSON after checking its shape and that it leaks nothing (see the module docstring)."""
    body = result.structured_content
    assert isinstance(body, dict), f"no structured content: {result}"
    assert isinstance(result.content[0], TextContent)
    links = [block for block in result.content[1:] if isinstance(block, ResourceLink)]
    assert len(links) == len(result.content) - 1, "after the text only resource links"
    assert [link.uri for link in links] == ([body["envelope_resource"]] if links else []), body
    text = result.content[0].text
    assert json.loads(text) == body, "the text copy is not the structured JSON"
    assert isinstance(body.get("summary"), str) and body["summary"], body
    assert "action" in body, body
    for marker in (*_LEAK_MARKERS, *forbidden):
        assert marker not in text, f"the result contains {marker!r}: {text[:400]}"
    if result.is_error:
        error = body.get("error")
        if error is not None:
            assert set(error) == {"kind", "message", "parameter"}, error
            assert error["kind"] in PUBLIC_ERROR_KINDS, error
            assert isinstance(error["message"], str) and error["message"], error
        else:
            assert body.get("verdict") == "failure", body  # navigate's operational failure
    return body


def error_kind(result: CallToolResult, forbidden: Iterable[str] = ()) -> str | None:
    """The error kind of a checked result, None for a valid result (a navigate failure is ``failure``)."""
    body = structured(result, forbidden)
    if not result.is_error:
        return None
    return body["error"]["kind"] if "error" in body else "failure"


async def await_until(predicate: Callable[[], bool], timeout_s: float = 30.0, interval_s: float = 0.05) -> bool:
    """Poll an external process's state without blocking the event loop; False when the deadline passes."""
    with anyio.move_on_after(timeout_s):
        while not predicate():
            await anyio.sleep(interval_s)
        return True
    return False
