"""One malformed file costs only itself: a finding naming the file and why, never a whole source or a traceback.

A YAML tag in a note's front matter (``!foo``, ``!!int abc``,
``!!python/…``) once raised out of the adapter and hid every note of the
vault, and a ``.mem`` file nested 5,000 levels deep did the same to every
``.mem`` file; ``synapse lint`` printed the traceback. Each bad file here sits
beside good ones, read through the real adapters, the server's stores and the
CLI.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from adapters.frontmatter import StoreFileError, load_yaml, parse_front_matter
from adapters.mem_files import MemFilesAdapter
from adapters.notes import NotesAdapter
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.stores import Stores
from tests.support.source_fixtures import mlflow_runs, write_files

REPO_ROOT = Path(__file__).resolve().parents[2]

BAD_FRONT_MATTER = {
    "local-tag": "title: !foo bar",
    "int-tag": "title: !!int abc",
    "float-tag": "title: !!float x",
    "bool-tag": "title: !!bool maybe",
    "timestamp-tag": "title: !!timestamp x",
    "python-name": "title: !!python/name:os.system",
    "python-apply": "title: !!python/object/apply:os.system [echo]",
    "set-tag": "tags: !!set {a, b}",
    "tagged-key": "!foo title: x",
    "tagged-list": "aliases: !foo [a, b]",
    "int-list": "aliases: !!int [1, 2]",
    "deep": "title: " + "[" * 5_000 + "]" * 5_000,
}
"""One note per way a front matter can be malformed, each naming a tag PyYAML cannot build safely."""

GOOD_NOTES = {
    "Ledger.md": "---\ntitle: Ledger\n---\n\nAmounts are integer cents; see [[Rounding]].\n",
    "Rounding.md": "# Rounding\n\nBanker's rounding.\n",
    "Odd scalars.md": "---\ntitle: 0b_\nclaim_strength: =\n---\n\nPlain values PyYAML would mis-type.\n",
}


def _vault(folder: Path) -> None:
    bad = {f"{name}.md": f"---\n{line}\n---\n\nThe {name} note.\n" for name, line in BAD_FRONT_MATTER.items()}
    write_files(folder, {**bad, **GOOD_NOTES})


def _mem(folder: Path) -> None:
    deep = "fact deep.nest {\n" + "a {\n" * 5_000 + "}\n" * 5_001
    good = 'fact ledger.cents {\n  claim: "Amounts are integer cents."\n}\n'
    write_files(folder, {"deep.mem": deep, "good.mem": good, "also-good.mem": 'fact ledger.round { claim: "x" }\n'})


def test_each_note_with_a_bad_yaml_tag_is_a_finding_and_every_good_note_still_loads(tmp_path: Path) -> None:
    _vault(tmp_path / "vault")
    result = NotesAdapter(tmp_path / "vault", tmp_path, None, "vault").load()
    titles = {node.address: node.title for node in result.nodes}
    assert {"zk:vault:ledger", "zk:vault:rounding", "zk:vault:odd-scalars"} <= set(titles)
    assert titles["zk:vault:odd-scalars"] == "0b_"
    assert not any(address.removeprefix("zk:vault:") in BAD_FRONT_MATTER for address in titles)
    refused = {d.path: d for d in result.diagnostics if d.severity == "error"}
    assert set(refused) == {f"vault/{name}.md" for name in BAD_FRONT_MATTER}
    assert all(d.code == "front-matter" for d in refused.values())
    assert "!foo" in refused["vault/local-tag.md"].message
    assert "python/name:os.system" in refused["vault/python-name.md"].message
    assert "abc" in refused["vault/int-tag.md"].message


@pytest.mark.parametrize("line", list(BAD_FRONT_MATTER.values()), ids=list(BAD_FRONT_MATTER))
def test_front_matter_with_a_bad_tag_is_a_store_file_error_on_its_line(line: str) -> None:
    with pytest.raises(StoreFileError) as caught:
        parse_front_matter(f"---\nid: x\n{line}\n---\nBody.\n", "n.md")
    assert (caught.value.diagnostic.path, caught.value.diagnostic.code) == ("n.md", "front-matter")
    assert caught.value.diagnostic.line == 3


def test_plain_tags_and_plain_values_still_read_as_written() -> None:
    doc = parse_front_matter("---\na: !!str 5\nb: !!int '7'\nc: [!!bool true, 0x_]\nd: 2024-01-08\n---\n", "n.md")
    assert [doc.record.value(key) for key in "abcd"] == ["5", 7, [True, "0x_"], "2024-01-08"]


def test_a_config_with_a_python_tag_is_a_yaml_error_not_a_traceback() -> None:
    with pytest.raises(StoreFileError) as caught:
        load_yaml("sources:\n  - !!python/object/apply:os.system [echo]\n", "config.yaml")
    assert (caught.value.diagnostic.code, caught.value.diagnostic.line) == ("yaml", 2)


def test_a_mem_file_nested_5000_levels_is_a_finding_and_every_other_mem_file_still_loads(tmp_path: Path) -> None:
    _mem(tmp_path / "memory")
    result = MemFilesAdapter(tmp_path / "memory", tmp_path, None).load()
    assert {node.address for node in result.nodes} == {"mem:mem:ledger.cents", "mem:mem:ledger.round"}
    [finding] = result.diagnostics
    assert (finding.path, finding.code, finding.severity) == ("memory/deep.mem", "mem-syntax", "error")
    assert "nested deeper than" in finding.message


def test_a_memory_entry_with_a_bad_tag_costs_only_itself(tmp_path: Path) -> None:
    tree = tmp_path / ".memory" / "tree"
    write_files(
        tree,
        {
            "note-good.md": "---\nid: note-good\nkind: note\ntitle: Good\n---\n\nKept.\n",
            "note-bad.md": "---\nid: note-bad\nkind: note\ntitle: Bad\nextra: !!python/name:os.system\n---\n\nX.\n",
        },
    )
    nodes = Stores.load(load_workspace(tmp_path)).nodes
    assert "mem:tree:note-good" in nodes and "mem:tree:note-bad" not in nodes


def _lint(root: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "HF_HUB_OFFLINE": "1"}
    return subprocess.run(
        [sys.executable, "-m", "synapse_server", "lint", "--json"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_lint_reports_each_malformed_file_and_the_stores_keep_every_good_file(tmp_path: Path) -> None:
    _vault(tmp_path / "vault")
    _mem(tmp_path / "memory")
    write_files(
        tmp_path, {".synapse/config.yaml": "sources: [{kind: notes, path: vault}, {kind: mem, path: memory}]\n"}
    )
    done = _lint(tmp_path)
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 1, done.stderr
    report = json.loads(done.stdout)
    errors = {d["path"] for d in report["diagnostics"] if d["severity"] == "error"}
    assert errors == {f"vault/{name}.md" for name in BAD_FRONT_MATTER} | {"memory/deep.mem"}
    nodes = Stores.load(load_workspace(tmp_path)).nodes
    expected = {"zk:vault:ledger", "zk:vault:rounding", "zk:vault:odd-scalars"}
    assert expected | {"mem:mem:ledger.cents", "mem:mem:ledger.round"} <= set(nodes)


@pytest.mark.parametrize("line", ["status: !!int abc", "extra: " + "[" * 5_000 + "]" * 5_000, "tag: !!bool maybe"])
def test_a_malformed_mlflow_run_meta_costs_only_that_run(tmp_path: Path, line: str) -> None:
    pytest.importorskip("mlflow", reason="the mlflow dev dependency writes the mlruns fixture")
    from adapters.mlflow_runs import MlflowAdapter

    ids = mlflow_runs(tmp_path)
    meta = next((tmp_path / "mlruns").glob(f"*/{ids['plain']}/meta.yaml"))
    meta.write_text(meta.read_text(encoding="utf-8") + line + "\n", encoding="utf-8")
    result = MlflowAdapter(Path("mlruns"), tmp_path).load()
    loaded = {node.address.removeprefix("data:runs:") for node in result.nodes}
    assert ids["hashed"] in loaded and ids["dataset"] in loaded and ids["plain"] not in loaded
    [finding] = result.diagnostics
    assert (finding.path, finding.code) == (meta.relative_to(tmp_path).as_posix(), "yaml")
