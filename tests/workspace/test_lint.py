"""``synapse lint``: every seeded defect is reported with its code and path, a clean workspace reports nothing."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

from synapse_server.cli.main import main
from synapse_server.demo import build_demo
from synapse_server.demo.gitreplay import Commit, replay
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.lint import lint_workspace
from synapse_server.workspace.source_report import SourceReport

DECISION = ".memory/tree/deci-1.md"
NOTE = ".zettelkasten/lab/notes/n1.md"
SOURCE = ".zettelkasten/lab/sources/src1.yaml"
TEXT = ".zettelkasten/lab/sources/texts/src1.txt"
DEBATE = ".zettelkasten/lab/debate.yaml"
RUN = "runs/run-1/run.yaml"
CONFIG = ".synapse/config.yaml"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_demo(tmp_path_factory.mktemp("demo") / "ws")


def _write(root: Path, relpath: str, text: str) -> None:
    path = root / relpath
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _edit(root: Path, relpath: str, old: str, new: str) -> None:
    text = (root / relpath).read_text(encoding="utf-8")
    assert old in text, (relpath, old)
    (root / relpath).write_text(text.replace(old, new), encoding="utf-8")


def _sha(root: Path, relpath: str) -> str:
    return hashlib.sha256((root / relpath).read_bytes()).hexdigest()


def make_clean(root: Path) -> dict[str, str]:
    """A small hand-made workspace with every store and every kind of tether, all of which verify."""
    shas = replay(
        root,
        [
            Commit("C1", "2026-01-01T00:00:00+00:00", "first", {"a.py": "X = 1\n", "data.csv": "x\n1\n"}),
            Commit("C2", "2026-01-02T00:00:00+00:00", "second", {"a.py": "X = 2\n"}),
        ],
    )
    short = {label: sha[:7] for label, sha in shas.items()}
    _write(root, CONFIG, "projects: [lab]\ncode: {name: tiny}\n")
    _write(root, ".memory/tree/root-1.md", "---\nid: root-1\nkind: root\ntitle: Tiny\n---\nThe project.\n")
    _write(
        root,
        DECISION,
        "---\nid: deci-1\nkind: decision\ntitle: Set X\nparent: root-1\n"
        f"pins: [a.py@{short['C2']}]\nruns: [run-1]\ncites: [zk:lab:n1, repo:tiny:a.py]\nrelated: [root-1]\n"
        "---\nX is 2.\n",
    )
    _write(root, TEXT, "Alpha is one. Beta is two.\n")
    _write(root, SOURCE, f"id: src1\ntitle: A source\ntext: texts/src1.txt\nsha256: {_sha(root, TEXT)}\n")
    _write(
        root,
        NOTE,
        "---\nid: n1\ntype: claim\ntitle: Alpha\nclaim_strength: strong\n"
        'citations:\n  - {source: src1, locator: p1, quote: "Alpha is one."}\n'
        "links:\n  - {to: n2, rel: supports}\nfiles: [a.py]\n---\nAlpha is one.\n",
    )
    _write(root, ".zettelkasten/lab/notes/n2.md", "---\nid: n2\ntype: finding\ntitle: Beta\n---\nBeta is two.\n")
    _write(root, DEBATE, "contested:\n  - claim: n1\n    rationale: Doubtful.\n    notes: [n2]\n")
    _write(root, "runs/run-1/out.csv", "y\n2\n")
    _write(
        root,
        RUN,
        f"id: run-1\ntitle: Run one\ncode: {{commit: {short['C2']}}}\nmetrics: {{y: 2}}\n"
        f"inputs:\n  - {{path: data.csv, sha256: {_sha(root, 'data.csv')}}}\n"
        f"outputs:\n  - {{path: runs/run-1/out.csv, sha256: {_sha(root, 'runs/run-1/out.csv')}}}\n",
    )
    return short


def _without(mapping: dict[str, object], key: str) -> dict[str, object]:
    return {k: v for k, v in mapping.items() if k != key}


def _findings(root: Path) -> set[tuple[str, str, str]]:
    return {(d.path, d.severity, d.code) for d in lint_workspace(load_workspace(root)).diagnostics}


def test_lint_reports_every_seeded_defect_of_the_demo_and_nothing_else(demo: Path) -> None:
    assert _findings(demo) == {
        (".memory/tree/expe-2c3d4e5f.md", "error", "stale-pin"),
        (".memory/tree/deci-e17103e8.md", "warning", "outdated-pin"),
        ("runs/run-004/run.yaml", "error", "run-hash-mismatch"),
        (".zettelkasten/research/notes/20260407-1015-breakeven-cost.md", "error", "refuted-quote"),
        (".zettelkasten/execution/notes/20260527-0900-dark-pool-savings.md", "error", "missing-source"),
    }


def test_lint_points_at_the_line_of_the_defective_field(demo: Path) -> None:
    lines = {d.code: d.line for d in lint_workspace(load_workspace(demo)).diagnostics}
    text = (demo / ".memory/tree/expe-2c3d4e5f.md").read_text(encoding="utf-8").splitlines()
    assert text[lines["stale-pin"] - 1].startswith("pins:")
    run = (demo / "runs/run-004/run.yaml").read_text(encoding="utf-8").splitlines()
    assert "runs/run-004/equity.csv" in run[lines["run-hash-mismatch"] - 1]
    note = (demo / ".zettelkasten/research/notes/20260407-1015-breakeven-cost.md").read_text(encoding="utf-8")
    assert "source: okafor-2019" in note.splitlines()[lines["refuted-quote"] - 1]


def test_lint_reports_nothing_on_a_clean_hand_made_workspace(tmp_path: Path) -> None:
    make_clean(tmp_path)
    report = lint_workspace(load_workspace(tmp_path))
    assert report.diagnostics == ()
    assert report.summary == "8 files, 0 error(s), 0 warning(s)"


Mutation = Callable[[Path, dict[str, str]], object]

MUTATIONS: dict[str, tuple[Mutation, set[tuple[str, str, str]]]] = {
    "dangling-parent": (
        lambda r, s: _edit(r, DECISION, "parent: root-1", "parent: root-9"),
        {(DECISION, "error", "dangling-parent")},
    ),
    "dangling-related": (
        lambda r, s: _edit(r, DECISION, "related: [root-1]", "related: [nope-1]"),
        {(DECISION, "error", "dangling-related")},
    ),
    "dangling-cite": (
        lambda r, s: _edit(r, DECISION, "zk:lab:n1", "zk:lab:n9"),
        {(DECISION, "error", "dangling-cite")},
    ),
    "dangling-cite-to-code": (
        lambda r, s: _edit(r, DECISION, "repo:tiny:a.py", "repo:tiny:gone.py"),
        {(DECISION, "error", "dangling-cite")},
    ),
    "dangling-run": (
        lambda r, s: _edit(r, DECISION, "runs: [run-1]", "runs: [run-9]"),
        {(DECISION, "error", "dangling-run")},
    ),
    "stale-pin-missing-commit": (
        lambda r, s: _edit(r, DECISION, f"a.py@{s['C2']}", "a.py@0badc0d"),
        {(DECISION, "error", "stale-pin")},
    ),
    "stale-pin-missing-path": (
        lambda r, s: _edit(r, DECISION, f"a.py@{s['C2']}", f"zz.py@{s['C2']}"),
        {(DECISION, "error", "stale-pin")},
    ),
    "outdated-pin": (
        lambda r, s: _edit(r, DECISION, f"a.py@{s['C2']}", f"a.py@{s['C1']}"),
        {(DECISION, "warning", "outdated-pin")},
    ),
    "run-hash-mismatch": (
        lambda r, s: _write(r, "runs/run-1/out.csv", "y\n3\n"),
        {(RUN, "error", "run-hash-mismatch")},
    ),
    "run-file-missing": (
        lambda r, s: (r / "runs/run-1/out.csv").unlink(),
        {(RUN, "error", "run-file-missing")},
    ),
    "unknown-commit": (
        lambda r, s: _edit(r, RUN, f"commit: {s['C2']}", "commit: abcdef0"),
        {(RUN, "warning", "unknown-commit")},
    ),
    "missing-source": (
        lambda r, s: _edit(r, NOTE, "source: src1", "source: ghost"),
        {(NOTE, "error", "missing-source")},
    ),
    "refuted-quote": (
        lambda r, s: _edit(r, NOTE, 'quote: "Alpha is one."', 'quote: "Alpha is two."'),
        {(NOTE, "error", "refuted-quote")},
    ),
    "source-text-mismatch": (
        lambda r, s: _write(r, TEXT, "Alpha is one. Beta is three.\n"),
        {(SOURCE, "error", "source-text-mismatch")},
    ),
    "missing-text": (
        lambda r, s: (r / TEXT).unlink(),
        {(SOURCE, "warning", "missing-text")},
    ),
    "unknown-file": (
        lambda r, s: _edit(r, NOTE, "files: [a.py]", "files: [nope.py]"),
        {(NOTE, "warning", "unknown-file")},
    ),
    "dangling-link": (
        lambda r, s: _edit(r, NOTE, "to: n2", "to: n9"),
        {(NOTE, "error", "dangling-link")},
    ),
    "dangling-debate-ref": (
        lambda r, s: _edit(r, DEBATE, "notes: [n2]", "notes: [n9]"),
        {(DEBATE, "error", "dangling-debate-ref")},
    ),
    "dangling-debate-claim": (
        lambda r, s: _edit(r, DEBATE, "claim: n1", "claim: n9"),
        {(DEBATE, "error", "dangling-debate-ref")},
    ),
    "unknown-project": (
        lambda r, s: _edit(r, CONFIG, "projects: [lab]", "projects: [lab, ghost]"),
        {(CONFIG, "error", "unknown-project")},
    ),
    "missing-federation": (
        lambda r, s: _edit(r, CONFIG, "projects: [lab]", "projects: [lab]\nfederation: {far: ../nowhere}"),
        {(CONFIG, "error", "missing-federation")},
    ),
    "duplicate-id": (
        lambda r, s: shutil.copy(r / ".zettelkasten/lab/notes/n2.md", r / ".zettelkasten/lab/notes/n3.md"),
        {
            (".zettelkasten/lab/notes/n3.md", "error", "duplicate-id"),
            (".zettelkasten/lab/notes/n3.md", "warning", "id-mismatch"),
        },
    ),
    "malformed-front-matter": (
        lambda r, s: _write(r, ".memory/tree/junk.md", "no front matter here\n"),
        {(".memory/tree/junk.md", "error", "front-matter")},
    ),
    "malformed-yaml": (
        lambda r, s: _write(r, "runs/run-2/run.yaml", "id: [unclosed\n"),
        {("runs/run-2/run.yaml", "error", "yaml")},
    ),
}


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_lint_reports_each_defect_with_its_code_and_path(tmp_path: Path, name: str) -> None:
    mutate, expected = MUTATIONS[name]
    mutate(tmp_path, make_clean(tmp_path))
    assert _findings(tmp_path) == expected


def test_lint_json_output_parses_and_matches_the_text_output(demo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["lint", "--root", str(demo)]) == 1
    text_lines = capsys.readouterr().out.splitlines()
    assert main(["lint", "--root", str(demo), "--json"]) == 1
    payload = json.loads(capsys.readouterr().out)
    rendered = [f"{d['path']}:{d['line']}: {d['severity']}[{d['code']}] {d['message']}" for d in payload["diagnostics"]]
    accounts = [SourceReport.model_validate(_without(r, "label")) for r in payload["sources"]]
    assert [*rendered, "stores:", *(f"  {r.line()}" for r in accounts), payload["summary"]] == text_lines
    assert [r.label for r in accounts] == ["memory .memory", "zettelkasten .zettelkasten", "runs runs", "code ."]
    assert (payload["errors"], payload["warnings"]) == (4, 1)
    assert text_lines[-1] == f"{payload['files']} files, 4 error(s), 1 warning(s)"


def test_lint_exits_0_when_only_warnings_remain(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    short = make_clean(tmp_path)
    assert main(["lint", "--root", str(tmp_path)]) == 0
    _edit(tmp_path, DECISION, f"a.py@{short['C2']}", f"a.py@{short['C1']}")
    assert main(["lint", "--root", str(tmp_path)]) == 0
    assert "warning[outdated-pin]" in capsys.readouterr().out


def test_lint_exits_2_for_a_missing_root_or_an_invalid_config(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["lint", "--root", str(tmp_path / "absent"), "--json"]) == 2
    assert json.loads(capsys.readouterr().err)["error"]["kind"] == "workspace_error"
    _write(tmp_path, CONFIG, "projects: research\n")
    assert main(["lint", "--root", str(tmp_path), "--json"]) == 2
    assert json.loads(capsys.readouterr().err)["error"]["kind"] == "config_error"
