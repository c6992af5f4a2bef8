"""``adr``: architecture decision records (Nygard / adr-tools and MADR) in one of the usual folders."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from adapters.base import LoadResult
from synapse_server.workspace.source_kinds.base import Detected, SourceKind, SourceSite, plain_name

ADR_FOLDERS = ("doc/adr", "docs/adr", "doc/decisions", "docs/decisions", "docs/architecture/decisions", "adr", "adrs")


class AdrKind(SourceKind):
    name = "adr"
    family = "memory"
    scheme = "mem"
    unit = "decision record"
    finds = ", ".join(f"`{folder}/`" for folder in ADR_FOLDERS) + " holding `NNNN-*.md` files"
    codes = ("adr-status", "adr-title")

    def detect(self, root: Path, folders: Sequence[Path]) -> list[Detected]:
        found: list[Detected] = []
        for rel in ADR_FOLDERS:
            folder = root / rel
            if folder.is_dir() and not folder.is_symlink():
                records = [p for p in folder.iterdir() if p.suffix == ".md" and p.name[:1].isdigit()]
                if records:  # a second ADR folder gets its own address segment, so ids cannot collide
                    name = None if not found else plain_name(rel.replace("/", "-"))
                    found.append(Detected(rel, name, len(records)))
        return found

    def loader(self, site: SourceSite) -> Callable[[], LoadResult]:
        from adapters.adr import AdrAdapter

        return AdrAdapter(site.folder, site.root, site.repo, site.segment).load
