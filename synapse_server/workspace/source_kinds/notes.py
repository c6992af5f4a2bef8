"""``notes``: a markdown folder or an Obsidian vault, read as one zettelkasten project.

``adopt`` takes a folder as a vault in two ways. A folder holding
``.obsidian/`` is one, whatever it holds. A folder without it (a vault whose
settings are not committed, such as a published help vault) is one when its
notes *are* vault notes: at least :data:`MIN_LINKED_NOTES` of its markdown
files hold a ``[[wikilink]]`` (in the text or a property), and at least
:data:`MIN_VAULT_SHARE` of its markdown files hold a wikilink or open with
front matter. A code project's ``docs/`` (plain Markdown, or a site
generator's pages with front matter but no wikilinks) is therefore not a
vault; :meth:`NotesKind.hints` names such a folder so ``adopt`` can say how
to read it as notes anyway.

The vault is the innermost folder that still holds nearly all (at least
:data:`DESCEND_SHARE`) of the linked notes: a repository whose notes live in
``notes/`` adopts ``notes/``, not the repository root. A folder whose
subfolders are vaults of their own, whose links almost never (at most
:data:`CROSS_SHARE` of them) name a note in a sibling, is several vaults: the
help vault of a documentation repository keeps one per language (``en/``,
``de/``, …), while a vault filed by topic links across its folders all the
time. Folders another kind adopts (an ADR folder, a tracking folder) are not
counted, so a record is never adopted twice.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from adapters.base import LoadResult
from adapters.paths import open_regular
from synapse_server.workspace.source_kinds.base import Detected, SourceKind, SourceSite, plain_name, relative

MIN_LINKED_NOTES = 3
"""A folder without ``.obsidian/`` needs this many markdown files holding a ``[[wikilink]]`` to be a vault."""
MIN_VAULT_SHARE = 0.5
"""... and at least this share of its markdown files must hold a wikilink or front matter."""
DESCEND_SHARE = 0.9
"""A vault found at a folder moves down to a subfolder holding at least this share of its linked notes."""
CROSS_SHARE = 0.05
"""Subfolders that are vaults are adopted apart when at most this share of their resolved links cross between them."""
MIN_HINT_FILES = 5
"""A folder of at least this many markdown files (a third of its files or more) that is no vault gets a hint."""

_SCAN_BYTES = 32_768
"""Detection reads the head of each markdown file: wikilinks and front matter show early."""
_SCAN_FILES = 20_000
"""At most this many files are read while detecting; any further ones count as plain markdown."""
_WIKILINK = re.compile(rb"\[\[([^\[\]\n|#]*)[^\[\]\n]*\]\]")
_FRONT_MATTER = re.compile(rb"\A(?:\xef\xbb\xbf)?---\r?\n")


@dataclass(slots=True)
class _Tally:
    """Markdown files of a folder and everything below it: all, with a wikilink, with a wikilink or front matter.

    ``names`` are the notes' names and ``targets`` the names their wikilinks give, both as a link is matched
    (composed Unicode, case-folded), so links that stay inside a subfolder can be told from links across.
    """

    markdown: int = 0
    linked: int = 0
    vaultish: int = 0
    files: int = 0
    names: set[str] = field(default_factory=set)
    targets: list[str] = field(default_factory=list)

    def add(self, other: _Tally) -> None:
        self.markdown += other.markdown
        self.linked += other.linked
        self.vaultish += other.vaultish
        self.files += other.files
        self.names |= other.names
        self.targets += other.targets

    @property
    def is_vault(self) -> bool:
        return self.linked >= MIN_LINKED_NOTES and self.vaultish >= MIN_VAULT_SHARE * self.markdown


class NotesKind(SourceKind):
    name = "notes"
    family = "zk"
    scheme = "zk"
    unit = "note"
    finds = (
        "a folder holding `.obsidian/`, or a folder of markdown notes that use `[[wikilinks]]` (at least "
        f"{MIN_LINKED_NOTES} linked notes, and half of its `.md` files hold a wikilink or front matter), "
        "up to four levels down"
    )
    tool_folders = (".obsidian", ".trash")

    def default_segment(self, path: str) -> str:
        """The folder's own name (``vault`` for a vault at the root), so two vaults do not share a project."""
        return plain_name(PurePosixPath(path).name) or "notes"

    def detect(self, root: Path, folders: Sequence[Path]) -> list[Detected]:
        marked = [folder for folder in folders if (folder / ".obsidian").is_dir()]
        vaults = sorted({*marked, *_linked_vaults(_survey(root, folders, self, marked), root)}, key=lambda f: f.parts)
        paths = [relative(folder, root) for folder in vaults]
        segments = [self.default_segment(rel) for rel in paths]
        found: list[Detected] = []
        for folder, rel, segment in zip(vaults, paths, segments, strict=True):
            # two vaults of the same folder name would share a project: the second and later take their path
            name = "vault" if rel == "." else None if segments.count(segment) == 1 else plain_name(rel)
            found.append(Detected(rel, name, len(_markdown(folder))))
        return found

    def hints(self, root: Path, folders: Sequence[Path]) -> list[str]:
        """One line per markdown folder ``detect`` did not take as a vault, saying how to read it as notes.

        Only the outermost of nested folders is named, and only one of at least
        :data:`MIN_HINT_FILES` markdown files that are a third of its files or more.
        """
        vaults = [Path(root, d.path) for d in self.detect(root, folders)]
        tallies = _survey(root, folders, self, ())
        lines: list[str] = []
        named: list[Path] = []
        for folder in sorted(tallies, key=lambda f: len(f.parts)):
            tally = tallies[folder]
            if folder == root or tally.markdown < MIN_HINT_FILES or 3 * tally.markdown < tally.files:
                continue
            if any(v == folder or v in folder.parents or folder in v.parents for v in vaults):
                continue
            if any(n in folder.parents for n in named):
                continue
            named.append(folder)
            rel = relative(folder, root)
            lines.append(
                f"{rel}/ holds {tally.markdown} markdown files without enough [[wikilinks]] to be a vault; "
                f"to read them as notes, add `- {{kind: notes, path: {rel}}}` to sources:"
            )
        return lines

    def loader(self, site: SourceSite) -> Callable[[], LoadResult]:
        from adapters.notes import NotesAdapter

        return NotesAdapter(site.folder, site.root, site.repo, site.segment, site.code_name, site.elsewhere).load


def _survey(root: Path, folders: Sequence[Path], me: SourceKind, vaults: Sequence[Path]) -> dict[Path, _Tally]:
    """The tally of every walked folder's subtree, leaving out vaults already found and other kinds' folders."""
    from synapse_server.workspace.source_kinds import SOURCE_KINDS  # the registry imports this module

    claimed = [*vaults]
    for kind in SOURCE_KINDS.values():
        if kind is not me:
            claimed.extend(root / d.path for d in kind.detect(root, folders) if d.path != ".")
    counted = [f for f in folders if not any(c == f or c in f.parents for c in claimed)]
    own = dict(zip(counted, _tallies(counted), strict=True))
    totals = {folder: _Tally() for folder in counted}
    for folder in sorted(counted, key=lambda f: len(f.parts), reverse=True):
        totals[folder].add(own[folder])
        if folder != root and folder.parent in totals:
            totals[folder.parent].add(totals[folder])
    return totals


def _tallies(folders: Sequence[Path]) -> Iterator[_Tally]:
    """Each folder's own files (not its subfolders'), reading the head of each markdown file."""
    budget = _SCAN_FILES
    for folder in folders:
        tally = _Tally()
        try:
            with os.scandir(folder) as listing:
                names = sorted(e.name for e in listing if e.is_file(follow_symlinks=False))
        except OSError:
            names = []
        for name in names:
            if name.startswith("."):
                continue
            tally.files += 1
            if not name.lower().endswith((".md", ".markdown")):
                continue
            tally.markdown += 1
            tally.names.add(_name_key(name.rsplit(".", 1)[0]))
            if budget <= 0:
                continue
            budget -= 1
            head = _head(folder / name)
            targets = [_name_key(m.group(1).decode("utf-8", "replace")) for m in _WIKILINK.finditer(head)]
            tally.targets += targets
            tally.linked += bool(targets)
            tally.vaultish += bool(targets) or _FRONT_MATTER.match(head) is not None
        yield tally


def _linked_vaults(tallies: dict[Path, _Tally], root: Path) -> list[Path]:
    """The folders whose notes are vault notes, each placed by :func:`_place`, outermost first."""
    children: dict[Path, list[Path]] = {folder: [] for folder in tallies}
    for folder in tallies:
        if folder != root and folder.parent in children:
            children[folder.parent].append(folder)
    chosen: list[Path] = []
    for folder in sorted(tallies, key=lambda f: (len(f.parts), f)):
        if tallies[folder].is_vault and not any(c == folder or c in folder.parents for c in chosen):
            chosen.extend(_place(folder, tallies, children))
    return chosen


def _place(folder: Path, tallies: dict[Path, _Tally], children: dict[Path, list[Path]]) -> list[Path]:
    """The vault(s) a vault-like folder is: itself, the one subfolder holding nearly all its links, or
    its vault subfolders apart when their links stay inside each of them."""
    need = DESCEND_SHARE * tallies[folder].linked
    inner = [c for c in children[folder] if tallies[c].linked >= need]
    if len(inner) == 1 and tallies[inner[0]].is_vault:
        return _place(inner[0], tallies, children)
    vaults = [c for c in children[folder] if tallies[c].is_vault]
    if len(vaults) >= 2 and _apart(vaults, tallies):
        return [v for c in vaults for v in _place(c, tallies, children)]
    return [folder]


def _apart(folders: Sequence[Path], tallies: dict[Path, _Tally]) -> bool:
    """True when the folders' wikilinks resolve inside their own folder and almost never in a sibling's."""
    inside = across = 0
    for folder in folders:
        own = tallies[folder].names
        others = set().union(*(tallies[f].names for f in folders if f != folder))
        for target in tallies[folder].targets:
            if target in own:
                inside += 1
            elif target in others:
                across += 1
    return inside >= MIN_LINKED_NOTES and across <= CROSS_SHARE * (inside + across)


def _name_key(text: str) -> str:
    """A note name or link target as links match it: the last path part, no ``.md``, composed, case-folded."""
    name = text.strip().rsplit("/", 1)[-1].removesuffix(".md")
    return unicodedata.normalize("NFC", name).strip().casefold()


def _head(path: Path) -> bytes:
    """The first bytes of a regular file; a FIFO or device put where a note was is never waited on."""
    try:
        with os.fdopen(open_regular(path), "rb") as handle:
            return handle.read(_SCAN_BYTES)
    except OSError:
        return b""


def _markdown(folder: Path) -> list[Path]:
    found: list[Path] = []
    for dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if not d.startswith(".")]
        found.extend(Path(dirpath) / f for f in filenames if f.endswith(".md"))
    return found
