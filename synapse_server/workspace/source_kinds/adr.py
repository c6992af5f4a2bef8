"""``adr``: architecture decision records wherever a repository keeps them (Nygard / adr-tools, MADR, Log4brains).

Detection looks at every folder of adopt's walk and at the two settings files
the ADR tools write:

- a folder named like an ADR folder (``adr``, ``adrs``, ``decisions``,
  ``decision-records`` …, at any depth the walk reaches: ``docs/adr`` and
  ``packages/core/docs/adr`` alike) holding numbered, dated or
  ``adr-NNN`` files;
- any other folder, the repository root included, holding ``adr-NNN…`` files;
- the folder adr-tools names in ``.adr-dir`` and the ``adrFolder`` entries of
  ``.log4brains.yml`` (a monorepo's packages each have one).

Every folder found is its own source; the shallowest keeps the default
segment ``adr`` and each other one is named after its path
(``packages-core-docs-adr``), so ids cannot collide. A folder inside a test
or fixture folder (``tests/``, ``fixtures/``, ``integration-tests/``) holds
another project's test data, not this repository's decisions, and is not
adopted unless a settings file names it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import yaml

from adapters.adr_names import adr_folder, not_a_record, record_name
from adapters.base import LoadResult
from synapse_server.workspace.source_kinds.base import Detected, SourceKind, SourceSite, plain_name, relative

TEST_FOLDERS = frozenset(
    {"test", "tests", "testdata", "test-data", "fixtures", "__fixtures__", "integration-tests", "__tests__", "e2e"}
)
"""Folder names whose contents are a project's test data: ADR folders under them are not adopted."""


class AdrKind(SourceKind):
    name = "adr"
    family = "memory"
    scheme = "mem"
    unit = "decision record"
    finds = (
        "folders named `adr`, `adrs`, `decisions`, `decision-records` … (any depth) holding numbered, dated or "
        "`adr-NNN` files; `adr-NNN*.md` files in any folder, the root included; the folders `.adr-dir` and "
        "`.log4brains.yml` name"
    )
    codes = ("adr-status", "adr-title")

    def detect(self, root: Path, folders: Sequence[Path]) -> list[Detected]:
        named = set(_configured(root))
        counts: dict[Path, int] = {}
        for folder in [*folders, *sorted(named)]:
            if folder in counts or not folder.is_dir() or folder.is_symlink():
                continue
            if folder not in named and _under_tests(folder, root):
                continue
            records = _records(folder, loose=adr_folder(folder.name) or folder in named)
            if records:
                counts[folder] = records
        ordered = sorted(counts, key=lambda f: (len(f.relative_to(root).parts), relative(f, root)))
        found: list[Detected] = []
        for index, folder in enumerate(ordered):
            rel = relative(folder, root)
            # the first keeps the default segment; a second ADR folder gets its own, so ids cannot collide
            name = None if index == 0 else (plain_name(rel.replace("/", "-")) or "adr-root")
            found.append(Detected(rel, name, counts[folder]))
        return found

    def loader(self, site: SourceSite) -> Callable[[], LoadResult]:
        from adapters.adr import AdrAdapter

        return AdrAdapter(site.folder, site.root, site.repo, site.segment).load


def _records(folder: Path, *, loose: bool) -> int:
    """How many files of ``folder`` are named as records: any ADR naming when ``loose``, else ``adr-NNN`` only."""
    count = 0
    for entry in folder.iterdir():
        if entry.suffix.lower() not in (".md", ".markdown") or not_a_record(entry.stem) or not entry.is_file():
            continue
        name = record_name(entry.stem)
        if name is not None and (loose or name.style == "adr-prefixed"):
            count += 1
    return count


def _under_tests(folder: Path, root: Path) -> bool:
    return any(part.lower() in TEST_FOLDERS for part in folder.relative_to(root).parts)


def _configured(root: Path) -> list[Path]:
    """The ADR folders the tools' settings name: ``.adr-dir`` (adr-tools) and ``.log4brains.yml``'s ``adrFolder``s."""
    wanted: list[str] = []
    adr_dir = root / ".adr-dir"
    if adr_dir.is_file() and not adr_dir.is_symlink():
        wanted += _first_line(adr_dir)
    settings = root / ".log4brains.yml"
    if settings.is_file() and not settings.is_symlink():
        wanted += _log4brains_folders(settings)
    out: list[Path] = []
    for rel in wanted:
        folder = (root / rel).resolve()
        if folder.is_relative_to(root) and folder.is_dir() and folder not in out:
            out.append(folder)
    return out


def _first_line(path: Path) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8")[:1000]
    except (OSError, UnicodeDecodeError):
        return []
    line = text.strip().split("\n", 1)[0].strip() if text.strip() else ""
    return [line] if line else []


def _log4brains_folders(path: Path) -> list[str]:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8")[:100_000])
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return []
    project = data.get("project") if isinstance(data, dict) else None
    if not isinstance(project, dict):
        return []
    packages = project.get("packages")
    entries = [project, *(p for p in (packages if isinstance(packages, list) else []) if isinstance(p, dict))]
    return [str(e["adrFolder"]) for e in entries if isinstance(e.get("adrFolder"), str) and e["adrFolder"].strip()]
