"""Each tether resolver's findings, against a real repository and real files."""

from __future__ import annotations

import os
from pathlib import Path

from adapters import Tether, TetherKind
from adapters.resolvers import (
    CitationResolver,
    ContentHashResolver,
    GitPinResolver,
    GitRepoLookup,
    Resolvers,
    RunResolver,
    SourceRecord,
    resolve,
)
from tests.support.store_builders import Repo, sha256_text, write


def _pin(path: str, ref: str) -> Tether:
    return Tether(TetherKind.GIT_PIN, path, ref)


# git pins ------------------------------------------------------------------------------------------------------


def test_a_pin_whose_blob_is_unchanged_at_head_is_ok(repo: Repo) -> None:
    check = GitPinResolver(GitRepoLookup(repo.root)).check(_pin("models/fees.py", repo.c1[:7]))
    assert check.state == "ok"
    assert "models/fees.py" in check.detail
    assert repo.c1[:7] in check.detail


def test_a_pin_with_a_full_sha_resolves_like_a_short_one(repo: Repo) -> None:
    assert GitPinResolver(GitRepoLookup(repo.root)).check(_pin("models/fees.py", repo.c1)).state == "ok"


def test_a_pin_whose_file_changed_since_is_outdated_and_still_verifies(repo: Repo) -> None:
    check = GitPinResolver(GitRepoLookup(repo.root)).check(_pin("models/costs.py", repo.c1[:7]))
    assert check.state == "outdated"
    assert check.outcome == "ok"
    assert repo.c3[:7] in check.detail


def test_a_pin_at_the_commit_that_changed_the_file_is_ok(repo: Repo) -> None:
    assert GitPinResolver(GitRepoLookup(repo.root)).check(_pin("models/costs.py", repo.c2[:7])).state == "ok"


def test_a_pin_whose_path_is_gone_at_head_is_outdated(repo: Repo) -> None:
    check = GitPinResolver(GitRepoLookup(repo.root)).check(_pin("old.py", repo.c1[:7]))
    assert check.state == "outdated"
    assert "gone at HEAD" in check.detail


def test_a_pin_to_a_commit_that_does_not_exist_is_stale(repo: Repo) -> None:
    check = GitPinResolver(GitRepoLookup(repo.root)).check(_pin("models/costs.py", "deadbee"))
    assert check.state == "stale"
    assert check.outcome == "failed"
    assert "deadbee" in check.detail


def test_a_pin_to_a_path_absent_at_its_commit_is_stale(repo: Repo) -> None:
    check = GitPinResolver(GitRepoLookup(repo.root)).check(_pin("models/risk.py", repo.c1[:7]))
    assert check.state == "stale"
    assert "models/risk.py" in check.detail


def test_a_pin_ref_that_is_not_a_hex_sha_is_stale_and_never_reaches_git(repo: Repo) -> None:
    resolver = GitPinResolver(GitRepoLookup(repo.root))
    assert resolver.check(_pin("models/costs.py", "--all")).state == "stale"
    assert resolver.check(_pin("models/costs.py", "HEAD")).state == "stale"


def test_pins_cannot_be_checked_without_a_repository(tmp_path: Path) -> None:
    assert GitPinResolver(GitRepoLookup(tmp_path)).check(_pin("a.py", "abc1234")).state == "unverifiable"
    assert GitPinResolver(None).check(_pin("a.py", "abc1234")).state == "unverifiable"


def test_a_thousand_pins_over_a_few_commits_resolve_through_one_cached_lookup(repo: Repo) -> None:
    resolver = GitPinResolver(GitRepoLookup(repo.root))
    pins = [_pin("models/fees.py", (repo.c1, repo.c2, repo.c3)[i % 3][: 7 + i % 5]) for i in range(1000)]
    assert {resolver.check(pin).state for pin in pins} == {"ok"}


class _Tables:
    """A git lookup from plain tables: the resolver's logic without a repository."""

    def __init__(self, commits: dict[str, dict[str, str]], head: str) -> None:
        self.commits = commits
        self._head = head

    def commit(self, ref: str) -> str | None:
        matches = [sha for sha in self.commits if sha.startswith(ref)]
        return matches[0] if len(matches) == 1 else None

    def blob(self, commit: str, path: str) -> str | None:
        return self.commits[commit].get(path)

    def head(self) -> str | None:
        return self._head


def test_the_git_lookup_is_injectable() -> None:
    a, b = "a" * 40, "b" * 40
    lookup = _Tables({a: {"x.py": "1" * 40}, b: {"x.py": "2" * 40}}, head=b)
    resolver = GitPinResolver(lookup)
    assert resolver.check(_pin("x.py", "aaaa")).state == "outdated"
    assert resolver.check(_pin("x.py", "bbbbbbb")).state == "ok"
    assert resolver.check(_pin("y.py", "bbbb")).state == "stale"


# content hashes ------------------------------------------------------------------------------------------------


def _hash(path: str, sha: str) -> Tether:
    return Tether(TetherKind.CONTENT_HASH, path, sha)


def test_bytes_that_hash_to_the_recorded_sha256_are_ok(tmp_path: Path) -> None:
    write(tmp_path, "data/prices.csv", "a,b\n")
    assert ContentHashResolver(tmp_path).check(_hash("data/prices.csv", sha256_text("a,b\n"))).state == "ok"


def test_bytes_that_changed_are_stale(tmp_path: Path) -> None:
    write(tmp_path, "data/prices.csv", "a,b,c\n")
    check = ContentHashResolver(tmp_path).check(_hash("data/prices.csv", sha256_text("a,b\n")))
    assert check.state == "stale"
    assert "data/prices.csv" in check.detail


def test_an_absent_file_is_unresolved(tmp_path: Path) -> None:
    assert ContentHashResolver(tmp_path).check(_hash("data/none.csv", "0" * 64)).state == "unresolved"


def test_a_hashed_path_leaving_the_workspace_is_unresolved_and_not_read(tmp_path: Path) -> None:
    write(tmp_path, "secret.txt", "s")
    workspace = tmp_path / "ws"
    workspace.mkdir()
    os.symlink(tmp_path / "secret.txt", workspace / "link.txt")
    resolver = ContentHashResolver(workspace)
    assert resolver.check(_hash("../secret.txt", sha256_text("s"))).state == "unresolved"
    assert resolver.check(_hash("link.txt", sha256_text("s"))).state == "unresolved"


# runs ----------------------------------------------------------------------------------------------------------


def _run_resolver(root: Path) -> RunResolver:
    write(root, "in.csv", "in\n")
    write(root, "out.csv", "out\n")
    table = {
        "good": (_hash("in.csv", sha256_text("in\n")), _hash("out.csv", sha256_text("out\n"))),
        "drifted": (_hash("in.csv", sha256_text("in\n")), _hash("out.csv", sha256_text("old\n"))),
        "missing": (_hash("in.csv", sha256_text("in\n")), _hash("gone.csv", "0" * 64)),
        "mixed": (_hash("gone.csv", "0" * 64), _hash("out.csv", sha256_text("old\n"))),
        "empty": (),
    }
    return RunResolver(table, ContentHashResolver(root))


def test_a_run_whose_hashes_all_verify_is_ok(tmp_path: Path) -> None:
    check = _run_resolver(tmp_path).check(Tether(TetherKind.RUN, "good"))
    assert (check.state, check.detail) == ("ok", "run good: all 2 recorded hashes verify")


def test_a_run_takes_the_worst_component_finding(tmp_path: Path) -> None:
    resolver = _run_resolver(tmp_path)
    assert resolver.check(Tether(TetherKind.RUN, "drifted")).state == "stale"
    assert resolver.check(Tether(TetherKind.RUN, "missing")).state == "unresolved"
    mixed = resolver.check(Tether(TetherKind.RUN, "mixed"))
    assert mixed.state == "stale"
    assert "2 of 2" in mixed.detail


def test_an_unknown_run_is_unresolved_and_a_run_without_hashes_unverifiable(tmp_path: Path) -> None:
    resolver = _run_resolver(tmp_path)
    assert resolver.check(Tether(TetherKind.RUN, "run-999")).state == "unresolved"
    assert resolver.check(Tether(TetherKind.RUN, "empty")).state == "unverifiable"


def test_a_run_without_hashes_says_what_measured_needs_and_what_grounded_needs_unless_its_files_are_committed(
    tmp_path: Path,
) -> None:
    table: dict[str, tuple[Tether, ...]] = {"loose": (), "pinned": ()}
    resolver = RunResolver(table, ContentHashResolver(tmp_path), committed={"pinned"})
    loose = resolver.check(Tether(TetherKind.RUN, "loose"))
    pinned = resolver.check(Tether(TetherKind.RUN, "pinned"))
    assert (loose.state, pinned.state) == ("unverifiable", "unverifiable")
    measured = "recorded no sha256 of its inputs and outputs that can be verified, which measured needs"
    assert measured in loose.detail and measured in pinned.detail
    assert loose.detail.endswith("and its files are not committed to git unchanged, which grounded needs")
    assert "grounded" not in pinned.detail  # its files are committed: only measured is out of reach


# citations -----------------------------------------------------------------------------------------------------

TEXT = "Abstract.\nHigher transaction costs\n   reduce net returns. We show this.\n"


def _citations(root: Path, sha: str | None = None) -> CitationResolver:
    path = write(root, "texts/paper-17.txt", TEXT)
    return CitationResolver(
        {
            ("research", "paper-17"): SourceRecord("research", "paper-17", path, sha or sha256_text(TEXT)),
            ("research", "no-text"): SourceRecord("research", "no-text"),
            ("research", "lost-text"): SourceRecord("research", "lost-text", root / "texts/lost.txt"),
        }
    )


def _cite(source: str, quote: str | None = None, project: str = "research") -> Tether:
    return Tether(TetherKind.CITATION, source, "p8", quote, project)


def test_a_citation_whose_source_record_resolves_is_ok(tmp_path: Path) -> None:
    assert _citations(tmp_path).check(_cite("no-text")).state == "ok"


def test_a_quote_found_verbatim_modulo_whitespace_is_ok(tmp_path: Path) -> None:
    check = _citations(tmp_path).check(_cite("paper-17", "Higher transaction costs reduce net returns."))
    assert check.state == "ok"


def test_a_quote_not_in_the_cached_text_is_failed(tmp_path: Path) -> None:
    resolver = _citations(tmp_path)
    assert resolver.check(_cite("paper-17", "Higher transaction costs raise net returns.")).state == "failed"
    assert resolver.check(_cite("paper-17", "higher transaction costs reduce net returns.")).state == "failed"


def test_a_quote_without_a_cached_text_is_unverifiable(tmp_path: Path) -> None:
    resolver = _citations(tmp_path)
    assert resolver.check(_cite("no-text", "Anything.")).state == "unverifiable"
    assert resolver.check(_cite("lost-text", "Anything.")).state == "unverifiable"


def test_a_citation_to_a_missing_source_record_is_unresolved(tmp_path: Path) -> None:
    resolver = _citations(tmp_path)
    assert resolver.check(_cite("paper-99")).state == "unresolved"
    assert resolver.check(_cite("paper-17", project="other")).state == "unresolved"


def test_a_cached_text_that_no_longer_matches_its_hash_is_stale(tmp_path: Path) -> None:
    resolver = _citations(tmp_path, sha="f" * 64)
    check = resolver.check(_cite("paper-17", "Higher transaction costs reduce net returns."))
    assert check.state == "stale"


# the resolver table --------------------------------------------------------------------------------------------


def test_a_tether_kind_without_a_resolver_is_unverifiable() -> None:
    check = resolve(Tether(TetherKind.RUN, "run-1"), Resolvers({}))
    assert check.state == "unverifiable"


def test_the_resolver_table_dispatches_by_kind(tmp_path: Path) -> None:
    resolvers = Resolvers({TetherKind.CITATION: _citations(tmp_path)})
    assert resolve(_cite("paper-17"), resolvers).state == "ok"
