"""The code store: the workspace's git repository read at the commit of ``HEAD``.

Reading committed objects (not the working tree) is what makes a code node a
grounded citation: its bytes are exactly retrievable by ``path@commit`` later.
Tracked files become ``repo:<name>:<path>`` nodes and Python definitions
become ``repo:<name>:<dotted.module.symbol>`` nodes, each with a git pin at
HEAD. A path that holds a space or another character an address cannot hold
is percent-encoded in its address (``repo:demo:My%20Notes/a%20b.md``, see
:func:`adapters.ids.encode_id`); the node's ``path`` and tether keep the path
as git has it. A blob that cannot be read (absent from a partial clone,
corrupt) costs only its file: an ``unreadable-blob`` warning and a skip,
never the store. This module and the git-pin resolver are the only places
that import GitPython.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import git

from adapters.base import Diagnostic, Edge, Family, LoadResult, Node, Skipped, Tether, TetherKind
from adapters.code_symbols import Symbol, module_name, python_symbols, source_lines
from adapters.ids import BadAddress, make_address, path_address
from adapters.skips import drop, skip_reason

DEFAULT_MAX_BODY_BYTES = 256_000
"""Text files above this size are recorded without a body (and not parsed)."""
BINARY_SUFFIXES = frozenset(
    """png jpg jpeg gif bmp ico webp tif tiff psd svgz pdf zip gz tgz bz2 xz zst 7z rar tar jar whl egg
    so dylib dll exe bin o a class pyc pyo woff woff2 ttf otf eot mp3 mp4 m4a wav ogg flac avi mov mkv webm
    sqlite sqlite3 db parquet feather npy npz pkl pickle h5 hdf5 onnx pt pth safetensors""".split()
)
"""Suffixes that are binary whatever their size: never code nodes, even when too large to sniff."""


@dataclass(frozen=True, slots=True)
class CodeExclusions:
    """Tracked paths that are not code nodes: ``code.exclude`` globs and files an adopted source reads."""

    globs: tuple[str, ...] = ()
    files: frozenset[str] = frozenset()
    folders: tuple[str, ...] = ()

    def excludes(self, path: str) -> bool:
        if path in self.files or any(path.startswith(folder.rstrip("/") + "/") for folder in self.folders):
            return True
        return any(_glob_match(path, pattern) for pattern in self.globs)


def _glob_match(path: str, pattern: str) -> bool:
    """``fnmatch`` on the whole path, ``dir/**`` for a folder, and a slash-free pattern on the file name."""
    pattern = pattern.strip().lstrip("/")
    if pattern.endswith("/**") or pattern.endswith("/"):
        return path.startswith(pattern.rstrip("*").rstrip("/") + "/")
    if "/" not in pattern:
        return fnmatch.fnmatchcase(path.rsplit("/", 1)[-1], pattern)
    return fnmatch.fnmatchcase(path, pattern)


@dataclass(frozen=True, slots=True)
class TreeEntry:
    """One blob of a commit's tree as ``git ls-tree -r -l`` reports it.

    ``missing`` is set when git could not size the blob (it prints ``BAD``):
    its object is absent, as in a partial or shallow copy, and reading it would fail.
    """

    path: str
    mode: str
    blob: str
    size: int
    missing: bool = False


def tree_entries(repo: git.Repo, commit: str) -> list[TreeEntry]:
    """Every blob (files and symlinks, not submodules) of ``commit``, in git's path order."""
    out = repo.git.ls_tree("-r", "-z", "-l", "--full-tree", commit, strip_newline_in_stdout=False)
    entries: list[TreeEntry] = []
    for record in out.split("\0"):
        if not record:
            continue
        info, _, path = record.partition("\t")
        mode, kind, blob, size = info.split(None, 3)
        if kind == "blob":
            size = size.strip()
            entries.append(TreeEntry(path, mode, blob, int(size) if size.isdigit() else 0, size == "BAD"))
    return entries


GIT_OUTSIDE = "its git directory lies outside the workspace (a gitfile or a symlinked .git)"
"""The reason :func:`open_repository` gives for a refused repository (diagnostic code ``git-outside``)."""


def open_repository(path: Path, boundary: Path | None = None) -> tuple[git.Repo | None, str | None]:
    """The repository at ``path`` and its HEAD commit sha, or a reason why there is none.

    With a ``boundary`` (the workspace root), a repository whose git directory
    lies outside it is refused with :data:`GIT_OUTSIDE`, unless it is a linked
    worktree of that repository: a ``.git`` gitfile or symlink could otherwise
    make ``get repo:…`` read any repository on the machine.
    """
    try:
        repo = git.Repo(path)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return None, "not a git repository"
    if boundary is not None and git_dir_place(repo, path, boundary)[0] == "outside":
        repo.close()
        return None, GIT_OUTSIDE
    try:
        return repo, repo.head.commit.hexsha
    except ValueError:
        repo.close()
        return None, "the repository has no commits"


def git_dir_place(repo: git.Repo, path: Path, boundary: Path) -> tuple[Literal["inside", "worktree", "outside"], str]:
    """Where ``repo``'s git data lives relative to ``boundary``, and a sentence for lint.

    ``inside``: the git directory, its common directory and every object
    alternate resolve under the boundary. ``worktree``: a linked worktree
    (``git worktree add``) whose git directory names this very ``.git`` file
    as its checkout, which only the main repository's owner can arrange.
    ``outside``: anything else.
    """
    root = boundary.resolve()
    git_dir = Path(repo.git_dir).resolve()
    common = Path(repo.common_dir).resolve()
    borrowed = _alternates(common)
    places = [git_dir, common, *(borrowed or ())]
    if borrowed is not None and all(place == root or root in place.parents for place in places):
        return "inside", "the git directory lies inside the workspace"
    dot_git = Path(path) / ".git"
    back = git_dir / "gitdir"
    if dot_git.is_file() and not dot_git.is_symlink() and back.is_file() and (git_dir / "commondir").is_file():
        named = Path(back.read_text(encoding="utf-8").strip())
        if named.is_absolute() and named.resolve() == dot_git.resolve():
            return "worktree", "the code store is a linked git worktree; its git directory lies in the main repository"
    return "outside", GIT_OUTSIDE


def locate_git_dir(path: Path, boundary: Path) -> tuple[Literal["inside", "worktree", "outside"], str] | None:
    """:func:`git_dir_place` for the repository at ``path`` (None when there is none), for lint."""
    try:
        repo = git.Repo(path)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return None
    try:
        return git_dir_place(repo, path, boundary)
    finally:
        repo.close()


def _alternates(common: Path) -> list[Path] | None:
    """Object directories borrowed through ``objects/info/alternates`` (a way to read another repository's blobs).

    None when the list exists but cannot be read: then it cannot be shown to stay inside.
    """
    listing = common / "objects" / "info" / "alternates"
    try:
        lines = listing.read_text(encoding="utf-8").splitlines() if listing.exists() else []
    except (OSError, UnicodeDecodeError):
        return None
    return [(common / "objects" / line.strip()).resolve() for line in lines if line.strip()]


class UnreadableBlob(Exception):
    """A tracked file whose blob git cannot produce; the message says which and why."""


class CodeAdapter:
    """Files and Python symbols of one repository at HEAD."""

    family: Family = "code"

    def __init__(
        self,
        repo_path: Path,
        name: str,
        *,
        max_body_bytes: int = DEFAULT_MAX_BODY_BYTES,
        exclusions: CodeExclusions | None = None,
        boundary: Path | None = None,
    ) -> None:
        self.repo_path = repo_path
        self.name = name
        self.max_body_bytes = max_body_bytes
        self.exclusions = exclusions or CodeExclusions()
        self.boundary = boundary

    def load(self) -> LoadResult:
        try:
            make_address("repo", self.name, "x")
        except BadAddress as exc:
            return LoadResult((), (Diagnostic(".", 1, "bad-id", f"code name {self.name!r}: {exc}"),))
        repo, head = open_repository(self.repo_path, self.boundary)
        if repo is None or head is None:
            code = "git-outside" if head == GIT_OUTSIDE else "no-repo"
            return LoadResult((), (Diagnostic(".", 1, code, f"code store unavailable: {head}"),))
        try:
            return self._load(repo, head)
        finally:
            repo.close()

    def _load(self, repo: git.Repo, head: str) -> LoadResult:
        diagnostics: list[Diagnostic] = []
        skipped: list[Skipped] = []
        nodes: dict[str, Node] = {}
        symbols: list[tuple[TreeEntry, str, list[Symbol]]] = []
        try:
            entries = tree_entries(repo, head)
        except git.GitCommandError as exc:
            message = f"the tree of HEAD cannot be listed: {_first_line(exc.stderr)}"
            return LoadResult((), (Diagnostic(".", 1, "unreadable-tree", message),), 0)
        for entry in entries:
            if self.exclusions.excludes(entry.path):
                continue
            if _binary_name(entry.path):
                skipped.append(Skipped(entry.path, skip_reason("binary")))
                continue
            try:
                address = path_address("repo", self.name, entry.path)
            except BadAddress as exc:
                drop(
                    Diagnostic(entry.path, 1, "bad-id", f"file has no address: {exc}", "warning"), diagnostics, skipped
                )
                continue
            try:
                text = self._text(repo, entry)
            except UnreadableBlob as exc:
                diagnostics.append(Diagnostic(entry.path, 1, "unreadable-blob", str(exc), "warning"))
                skipped.append(Skipped(entry.path, "unreadable blob"))
                continue
            if text is None and entry.mode != "120000" and entry.size <= self.max_body_bytes:
                skipped.append(Skipped(entry.path, skip_reason("binary")))
                continue  # binary content (a NUL byte or not UTF-8): never a code node
            nodes[address] = self._file_node(address, entry, head, text)
            module = module_name(entry.path)
            if module is None or text is None:
                continue
            try:
                symbols.append((entry, text, python_symbols(text, module)))
            except (SyntaxError, RecursionError) as exc:
                line = getattr(exc, "lineno", None) or 1
                message = f"not parseable as Python: {getattr(exc, 'msg', type(exc).__name__)}"
                diagnostics.append(Diagnostic(entry.path, line, "parse-error", message, "warning"))
        files = len(nodes)
        for entry, text, found in symbols:
            self._add_symbols(nodes, entry, head, text, found, diagnostics)
        ordered = tuple(nodes[key] for key in sorted(nodes))
        return LoadResult(ordered, tuple(diagnostics), files, tuple(skipped))

    def _text(self, repo: git.Repo, entry: TreeEntry) -> str | None:
        """The blob as text, or None for symlinks, binary or oversized blobs; :class:`UnreadableBlob` if unreadable."""
        if entry.mode == "120000" or entry.size > self.max_body_bytes:
            return None
        if entry.missing:
            raise UnreadableBlob(f"blob {entry.blob[:12]} is not in the repository (a partial or shallow copy?)")
        try:
            data = repo.odb.stream(bytes.fromhex(entry.blob)).read()
        except (ValueError, OSError, git.GitError) as exc:  # GitPython says "could not be resolved" as ValueError
            raise UnreadableBlob(f"blob {entry.blob[:12]} cannot be read: {_first_line(str(exc))}") from None
        if b"\x00" in data[:8192]:
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return None

    def _file_node(self, address: str, entry: TreeEntry, head: str, text: str | None) -> Node:
        meta: dict[str, Any] = {
            "path": entry.path,
            "blob": entry.blob,
            "commit": head,
            "size": entry.size,
            "binary": text is None and entry.size <= self.max_body_bytes and entry.mode != "120000",
            "too_large": entry.size > self.max_body_bytes,
            "symlink": entry.mode == "120000",
        }
        return Node(
            address=address,
            type="file",
            title=entry.path,
            body=text or "",
            family="code",
            provenance=(f"file:{entry.path}@{head[:7]}",),
            tethers=(Tether(TetherKind.GIT_PIN, entry.path, head),),
            meta=meta,
            path=entry.path,
            line=1,
        )

    def _add_symbols(
        self,
        nodes: dict[str, Node],
        entry: TreeEntry,
        head: str,
        text: str,
        found: list[Symbol],
        diagnostics: list[Diagnostic],
    ) -> None:
        file_address = path_address("repo", self.name, entry.path)
        module = module_name(entry.path)
        children: dict[str, list[str]] = {}
        admitted: dict[str, tuple[Symbol, str, str]] = {}  # name -> (symbol, address, parent address)
        for symbol in found:
            if symbol.parent is not None and symbol.parent not in admitted:
                continue  # its container was refused, so it has no place in the tree
            try:
                address = path_address("repo", self.name, symbol.name)
            except BadAddress as exc:
                diagnostics.append(Diagnostic(entry.path, symbol.start, "bad-id", str(exc), "warning"))
                continue
            if address in nodes:
                message = f"{symbol.kind} {symbol.name} collides with {nodes[address].path}; first one kept"
                diagnostics.append(Diagnostic(entry.path, symbol.start, "duplicate-id", message, "warning"))
                continue
            parent = file_address if symbol.parent is None else admitted[symbol.parent][1]
            children.setdefault(parent, []).append(address)
            admitted[symbol.name] = (symbol, address, parent)
            nodes[address] = Node(address, symbol.kind, symbol.name, "", "code")  # reserves the address
        for symbol, address, parent in admitted.values():
            edges = [Edge(address, parent, "defined-in")]
            edges.extend(Edge(address, child, "defines") for child in children.get(address, ()))
            nodes[address] = Node(
                address=address,
                type=symbol.kind,
                title=symbol.name,
                body=source_lines(text, symbol.start, symbol.end),
                family="code",
                provenance=(f"file:{entry.path}@{head[:7]}",),
                tethers=(Tether(TetherKind.GIT_PIN, entry.path, head),),
                edges=tuple(edges),
                meta={
                    "path": entry.path,
                    "blob": entry.blob,
                    "commit": head,
                    "span": (symbol.start, symbol.end),
                    "doc": symbol.doc,
                    "module": module,
                },
                path=entry.path,
                line=symbol.start,
            )
        defines = tuple(Edge(file_address, child, "defines") for child in children.get(file_address, ()))
        file_node = nodes[file_address]
        nodes[file_address] = replace(file_node, edges=file_node.edges + defines)


def _binary_name(path: str) -> bool:
    name = path.rsplit("/", 1)[-1].lower()
    return "." in name and name.rsplit(".", 1)[-1] in BINARY_SUFFIXES


def _first_line(text: object) -> str:
    lines = str(text or "").strip().splitlines()
    return lines[0][:200] if lines else "no detail"
