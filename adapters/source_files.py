"""Reading files of an adopted source in place: bytes and text together, optional front matter, safe walks.

Adopted files were written for people, not for Synapse: front matter is
optional and a file without it is normal. The bytes are kept next to the text
so the file's tether (git blob or sha256) is computed from exactly what was read.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from adapters.base import Diagnostic
from adapters.frontmatter import Record, StoreFileError, parse_front_matter
from adapters.paths import PathEscape, display_path, resolve_inside

MAX_SOURCE_BYTES = 2_000_000
"""A single adopted text file past this size is skipped with a warning (it is not a note or a decision)."""


@dataclass(frozen=True, slots=True)
class SourceText:
    """One adopted file: workspace-relative path, bytes, text, optional front matter and the body after it."""

    path: str
    data: bytes
    text: str
    record: Record | None
    body: str
    body_line: int


def read_source(path: Path, root: Path, *, front_matter: bool = True) -> SourceText:
    """Read ``path``; raises :class:`StoreFileError` for unreadable, binary, oversized or undecodable files."""
    shown = display_path(path, root)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise StoreFileError(Diagnostic(shown, 1, "unreadable", f"cannot read file: {exc.strerror}")) from None
    if len(data) > MAX_SOURCE_BYTES:
        message = f"file is {len(data)} bytes, over the {MAX_SOURCE_BYTES}-byte limit for adopted text; skipped"
        raise StoreFileError(Diagnostic(shown, 1, "too-large", message, "warning"))
    if b"\x00" in data:
        raise StoreFileError(Diagnostic(shown, 1, "binary", "binary file (NUL byte) where text was expected"))
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise StoreFileError(Diagnostic(shown, line, "encoding", f"not UTF-8: byte {data[exc.start]:#04x}")) from None
    text = text.replace("\r\n", "\n")
    if front_matter and text.startswith("---\n"):
        doc = parse_front_matter(text, shown)
        return SourceText(shown, data, text, doc.record, doc.body, doc.body_line)
    return SourceText(shown, data, text, None, text.rstrip(), 1)


def walk_files(
    directory: Path, suffixes: tuple[str, ...], root: Path, *, recursive: bool
) -> tuple[list[Path], list[Diagnostic]]:
    """Files under ``directory`` ending in one of ``suffixes``, sorted; hidden entries skipped.

    ``directory`` itself has been checked to resolve inside ``root``; symlinked
    folders are not followed (so a loop cannot trap the walk), and a file that
    is a symlink is resolved and must stay inside ``root``: one that leaves the
    workspace is a ``path-escape`` diagnostic, never read.
    """
    found: list[Path] = []
    refused: list[Diagnostic] = []
    if not directory.is_dir():
        return found, refused
    for dirpath, dirnames, filenames in os.walk(directory):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".")) if recursive else []
        for name in sorted(filenames):
            if name.startswith(".") or not name.lower().endswith(suffixes):
                continue
            entry = Path(dirpath) / name
            if not entry.is_symlink():  # os.walk never enters a symlinked folder: a plain file here stays inside
                if entry.is_file():
                    found.append(entry)
                continue
            try:
                resolved = resolve_inside(root, entry)
            except PathEscape as exc:
                refused.append(Diagnostic(display_path(entry, root), 1, "path-escape", exc.reason))
                continue
            if resolved.is_file():
                found.append(entry)
    return sorted(found, key=lambda p: display_path(p, root)), refused


def check_folder(directory: Path, root: Path, what: str) -> Diagnostic | None:
    """Why a configured source folder cannot be read (escapes, absent), or None when it can."""
    shown = display_path(directory, root)
    try:
        resolve_inside(root, directory)
    except PathEscape as exc:
        return Diagnostic(shown, 1, "path-escape", f"{what} {exc.reason}")
    if not directory.exists():
        return Diagnostic(shown, 1, "missing-store", f"the configured {what} does not exist", "warning")
    return None
