"""The code adapter reads a real repository at HEAD: files, Python symbols, pins, and failures as diagnostics."""

from __future__ import annotations

from pathlib import Path

from adapters import CodeAdapter, Edge, Node, Tether, TetherKind
from adapters.base import Skipped
from tests.support.store_builders import Repo, commit, git, init_repo, write


def _by_address(nodes: tuple[Node, ...]) -> dict[str, Node]:
    return {node.address: node for node in nodes}


def test_tracked_files_at_head_become_file_nodes_with_a_pin_at_head(repo: Repo) -> None:
    result = CodeAdapter(repo.root, "demo").load()
    nodes = _by_address(result.nodes)
    costs = nodes["repo:demo:models/costs.py"]
    assert costs.type == "file"
    assert costs.family == "code"
    assert "max(bps, 1)" in costs.body
    assert costs.provenance == (f"file:models/costs.py@{repo.c3[:7]}",)
    assert costs.tethers == (Tether(TetherKind.GIT_PIN, "models/costs.py", repo.c3),)
    assert costs.meta["blob"] == git(repo.root, "rev-parse", "HEAD:models/costs.py")
    assert costs.meta["commit"] == repo.c3
    assert "repo:demo:old.py" not in nodes  # deleted before HEAD


def test_untracked_files_are_not_code_nodes(repo: Repo) -> None:
    write(repo.root, "scratch.py", "x = 1\n")
    nodes = _by_address(CodeAdapter(repo.root, "demo").load().nodes)
    assert "repo:demo:scratch.py" not in nodes
    assert "repo:demo:scratch" not in nodes


def test_python_definitions_become_module_class_function_and_method_nodes(repo: Repo) -> None:
    nodes = _by_address(CodeAdapter(repo.root, "demo").load().nodes)
    kinds = {address: node.type for address, node in nodes.items() if address.startswith("repo:demo:pkg")}
    assert kinds == {
        "repo:demo:pkg/__init__.py": "file",
        "repo:demo:pkg/util.py": "file",
        "repo:demo:pkg": "module",
        "repo:demo:pkg.util": "module",
        "repo:demo:pkg.util.Ledger": "class",
        "repo:demo:pkg.util.Ledger.add": "method",
        "repo:demo:pkg.util.Ledger.size": "method",
        "repo:demo:pkg.util.Ledger.Entry": "class",
        "repo:demo:pkg.util.Ledger.Entry.render": "method",
        "repo:demo:pkg.util.total": "function",
        "repo:demo:pkg.util.fetch": "function",
    }


def test_a_symbol_body_is_its_source_lines_with_decorators_and_its_span_in_meta(repo: Repo) -> None:
    nodes = _by_address(CodeAdapter(repo.root, "demo").load().nodes)
    total = nodes["repo:demo:pkg.util.total"]
    assert total.body.splitlines()[0] == "@functools.cache"
    assert total.body.splitlines()[-1] == "    return inner()"
    start, end = total.meta["span"]
    assert total.line == start
    assert end - start + 1 == len(total.body.splitlines())
    assert total.meta["path"] == "pkg/util.py"
    assert total.meta["blob"] == git(repo.root, "rev-parse", "HEAD:pkg/util.py")
    assert total.tethers == (Tether(TetherKind.GIT_PIN, "pkg/util.py", repo.c3),)
    assert nodes["repo:demo:pkg.util.Ledger"].meta["doc"] == "Keeps entries."


def test_a_property_setter_does_not_replace_the_first_definition(repo: Repo) -> None:
    size = _by_address(CodeAdapter(repo.root, "demo").load().nodes)["repo:demo:pkg.util.Ledger.size"]
    assert "@property" in size.body
    assert "setter" not in size.body


def test_symbols_are_linked_to_their_container_both_ways(repo: Repo) -> None:
    nodes = _by_address(CodeAdapter(repo.root, "demo").load().nodes)
    assert Edge("repo:demo:pkg/util.py", "repo:demo:pkg.util", "defines") in nodes["repo:demo:pkg/util.py"].edges
    module = nodes["repo:demo:pkg.util"]
    assert Edge("repo:demo:pkg.util", "repo:demo:pkg/util.py", "defined-in") in module.edges
    assert Edge("repo:demo:pkg.util", "repo:demo:pkg.util.Ledger", "defines") in module.edges
    add = nodes["repo:demo:pkg.util.Ledger.add"]
    assert add.edges == (Edge("repo:demo:pkg.util.Ledger.add", "repo:demo:pkg.util.Ledger", "defined-in"),)


def test_unparseable_python_is_a_warning_and_its_file_node_is_kept(repo: Repo) -> None:
    result = CodeAdapter(repo.root, "demo").load()
    nodes = _by_address(result.nodes)
    assert "repo:demo:broken.py" in nodes
    assert "repo:demo:broken" not in nodes
    [diagnostic] = [d for d in result.diagnostics if d.path == "broken.py"]
    assert (diagnostic.code, diagnostic.severity, diagnostic.line) == ("parse-error", "warning", 1)


def test_binary_files_are_never_code_nodes(repo: Repo) -> None:
    nodes = _by_address(CodeAdapter(repo.root, "demo").load().nodes)
    assert "repo:demo:assets/logo.bin" not in nodes
    assert "repo:demo:models/costs.py" in nodes


def test_text_files_over_the_size_cap_have_no_body_and_are_not_parsed(repo: Repo) -> None:
    nodes = _by_address(CodeAdapter(repo.root, "demo", max_body_bytes=40).load().nodes)
    assert nodes["repo:demo:models/costs.py"].body == ""
    assert nodes["repo:demo:models/costs.py"].meta["too_large"] is True
    assert "repo:demo:models.costs" not in nodes
    assert nodes["repo:demo:models/fees.py"].body.startswith('"""Fees."""')


def test_a_path_with_spaces_or_non_ascii_letters_is_a_file_node_with_an_encoded_address(repo: Repo) -> None:
    write(repo.root, "My Notes/a b.md", "hello\n")
    write(repo.root, "notes/Über Notizen.md", "grüße\n")
    write(repo.root, "100% (draft).txt", "percent\n")
    commit(repo.root, "add files whose names hold spaces")
    result = CodeAdapter(repo.root, "demo").load()
    nodes = _by_address(result.nodes)
    spaced = nodes["repo:demo:My%20Notes/a%20b.md"]
    assert (spaced.path, spaced.title, spaced.body) == ("My Notes/a b.md", "My Notes/a b.md", "hello\n")
    assert spaced.tethers == (Tether(TetherKind.GIT_PIN, "My Notes/a b.md", git(repo.root, "rev-parse", "HEAD")),)
    assert nodes["repo:demo:notes/Über%20Notizen.md"].body == "grüße\n"
    assert nodes["repo:demo:100%25%20%28draft%29.txt"].path == "100% (draft).txt"
    assert not [d for d in result.diagnostics if d.code == "bad-id"]


def test_a_python_file_in_a_folder_with_a_space_keeps_its_symbols(repo: Repo) -> None:
    write(repo.root, "my tools/run.py", "def main():\n    return 1\n")
    commit(repo.root, "a script folder with a space")
    nodes = _by_address(CodeAdapter(repo.root, "demo").load().nodes)
    assert nodes["repo:demo:my%20tools.run.main"].type == "function"
    assert (
        Edge("repo:demo:my%20tools/run.py", "repo:demo:my%20tools.run", "defines")
        in nodes["repo:demo:my%20tools/run.py"].edges
    )


def _drop_object(root: Path, path: str) -> None:
    blob = git(root, "rev-parse", f"HEAD:{path}")
    (root / ".git" / "objects" / blob[:2] / blob[2:]).unlink()


def test_an_unreadable_blob_costs_only_its_file_a_warning_and_a_skip(repo: Repo) -> None:
    write(repo.root, "docs/lost.md", "this blob will be missing\n")
    commit(repo.root, "a file whose object goes missing")
    _drop_object(repo.root, "docs/lost.md")
    result = CodeAdapter(repo.root, "demo").load()
    nodes = _by_address(result.nodes)
    assert "repo:demo:docs/lost.md" not in nodes
    assert "repo:demo:models/costs.py" in nodes and "repo:demo:pkg.util.total" in nodes
    [finding] = [d for d in result.diagnostics if d.path == "docs/lost.md"]
    assert (finding.code, finding.severity) == ("unreadable-blob", "warning")
    assert Skipped("docs/lost.md", "unreadable blob") in result.skipped


def test_the_code_store_counts_the_files_it_read_and_names_each_binary_it_left_out(repo: Repo) -> None:
    result = CodeAdapter(repo.root, "demo").load()
    files = [n for n in result.nodes if n.type == "file"]
    assert result.files_read == len(files)
    assert Skipped("assets/logo.bin", "binary file") in result.skipped
    assert not {s.path for s in result.skipped} & {n.path for n in files}


def test_a_directory_that_is_not_a_repository_gives_no_nodes_and_one_diagnostic(tmp_path: Path) -> None:
    write(tmp_path, "plain/a.py", "x = 1\n")
    result = CodeAdapter(tmp_path / "plain", "demo").load()
    assert result.nodes == ()
    assert [d.code for d in result.diagnostics] == ["no-repo"]


def test_a_repository_without_commits_gives_no_nodes_and_one_diagnostic(tmp_path: Path) -> None:
    init_repo(tmp_path / "empty")
    result = CodeAdapter(tmp_path / "empty", "demo").load()
    assert result.nodes == ()
    assert [d.code for d in result.diagnostics] == ["no-repo"]
    assert "no commits" in result.diagnostics[0].message


def test_a_code_name_that_is_not_an_address_segment_is_refused(repo: Repo) -> None:
    result = CodeAdapter(repo.root, "my repo").load()
    assert result.nodes == ()
    assert [d.code for d in result.diagnostics] == ["bad-id"]


def test_code_nodes_are_sorted_by_address(repo: Repo) -> None:
    addresses = [node.address for node in CodeAdapter(repo.root, "demo").load().nodes]
    assert addresses == sorted(addresses)
    assert len(addresses) == len(set(addresses))
