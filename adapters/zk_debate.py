"""The debate map of a zettelkasten project: ``debate.yaml``, the claims the literature contests.

Schema (version 1)::

    version: 1                          # optional
    contested:
      - claim: 20260706-1832-claim      # the contested note: an id in this project or a zk address
        rationale: Replications after 2015 find no effect net of costs.
        notes: [20260801-1000-finding]  # counter-evidence notes (ids or zk addresses)
        sources: [paper-42]             # counter-evidence sources (ids or zk addresses)

Each entry needs ``claim`` and at least one piece of counter-evidence; the
rationale is a short human sentence. The map is the value the debate view
builds on, and the adapter marks every listed claim node ``contested`` (a
taint that floors its status to inferred). A broken entry is a diagnostic and
only that entry is dropped; a broken file drops the map, never the notes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from adapters.base import Diagnostic, Skipped
from adapters.frontmatter import Record, StoreFileError, parse_yaml_record, read_text
from adapters.ids import BadAddress, check_address, make_address
from adapters.paths import PathEscape, display_path, resolve_inside
from adapters.skips import skipped_for

DEBATE_FILE = "debate.yaml"
_KNOWN_TOP = frozenset({"version", "contested"})
_KNOWN_ENTRY = frozenset({"claim", "rationale", "notes", "sources"})


@dataclass(frozen=True, slots=True)
class ContestedClaim:
    """One contested claim with the evidence against it (all canonical addresses)."""

    claim: str
    rationale: str
    counter_notes: tuple[str, ...]
    counter_sources: tuple[str, ...]
    line: int

    @property
    def counter_evidence(self) -> tuple[str, ...]:
        return self.counter_notes + self.counter_sources


@dataclass(frozen=True, slots=True)
class DebateMap:
    """A project's contested claims, in file order, plus what was wrong with the file.

    ``skipped`` is set when the file exists but could not be read at all (the map is then empty).
    """

    project: str
    path: str | None
    contested: tuple[ContestedClaim, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()
    skipped: Skipped | None = None

    def for_claim(self, address: str) -> tuple[ContestedClaim, ...]:
        return tuple(entry for entry in self.contested if entry.claim == address)


def load_debate(
    project_dir: Path,
    project: str | None = None,
    workspace_root: Path | None = None,
    containment: Path | None = None,
) -> DebateMap:
    """Read ``<project_dir>/debate.yaml``; a missing file is an empty map, a broken one an empty map + diagnostic.

    ``project`` is the address source segment (``alias.project`` when
    federated, default the directory name); ``workspace_root`` is what paths in
    diagnostics are relative to; ``containment`` the root the file must stay in.
    """
    key = project or project_dir.name
    root = workspace_root or project_dir.parent
    path = project_dir / DEBATE_FILE
    shown = display_path(path, root)
    if not path.exists() and not path.is_symlink():
        return DebateMap(key, None)
    try:
        resolve_inside(containment or project_dir, path)
        rec = parse_yaml_record(read_text(path, shown), shown)
        entries = rec.records("contested")
    except PathEscape as exc:
        refused = Diagnostic(shown, 1, "path-escape", exc.reason)
        return DebateMap(key, shown, (), (refused,), skipped_for(refused))
    except StoreFileError as exc:
        return DebateMap(key, shown, (), (exc.diagnostic,), skipped_for(exc.diagnostic))
    for name in rec.fields():
        if name not in _KNOWN_TOP:
            rec.warn(name, "bad-field", f"unknown debate field {name!r}")
    contested: list[ContestedClaim] = []
    for entry in entries:
        try:
            contested.append(_entry(entry, key))
        except StoreFileError as exc:
            rec.warnings.append(exc.diagnostic)
    return DebateMap(key, shown, tuple(contested), tuple(rec.warnings))


def _entry(rec: Record, project: str) -> ContestedClaim:
    for name in rec.fields():
        if name not in _KNOWN_ENTRY:
            rec.warn(name, "bad-field", f"unknown field {name!r} in a contested entry")
    claim = _zk_ref(rec, "claim", rec.text("claim", required=True) or "", project)
    notes = tuple(_zk_ref(rec, "notes", item, project) for item in rec.texts("notes"))
    sources = tuple(_zk_ref(rec, "sources", item, project) for item in rec.texts("sources"))
    if not notes and not sources:
        raise rec.error(None, "missing-field", f"contested claim {claim} lists no counter-evidence notes or sources")
    return ContestedClaim(claim, rec.text("rationale") or "", notes, sources, rec.line)


def _zk_ref(rec: Record, key: str, text: str, project: str) -> str:
    """An id in ``project`` or a ``zk:`` address, as a canonical address."""
    try:
        if ":" not in text:
            return make_address("zk", project, text)
        address = check_address(text)
    except BadAddress as exc:
        raise rec.error(key, "bad-id", f"{key} {text!r}: {exc}") from None
    if address.store != "zk":
        raise rec.error(key, "bad-field", f"{key} {text!r} is not a zettelkasten address")
    return make_address(address.store, address.source, address.id)
