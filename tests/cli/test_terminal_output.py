"""The CLI prints project content terminal-safe: control characters are spelled out, addresses refuse them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memdsl.address import parse_address
from memdsl.errors import MemDSLParseError
from synapse_server.cli.main import main
from synapse_server.cli.terminal import escape_controls
from synapse_server.workspace.init import make_demo

ESC_TITLE = "Evil \x1b]0;pwned\x07 title \x9b31m"
YAML_TITLE = '"Evil \\e]0;pwned\\a title \\x9b31m"'
"""The same title in YAML's double-quoted escapes (YAML refuses raw control characters)."""
ESC_BODY = "Line one \x1b[2J\x1b[31mred\x07.\nLine two\twith a tab \u202eevil."


@pytest.fixture(scope="module")
def hostile(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = make_demo(tmp_path_factory.mktemp("terminal") / "demo")
    (root / ".memory" / "tree" / "note-e5c0e5c0.md").write_text(
        f"---\nid: note-e5c0e5c0\nkind: note\ntitle: {YAML_TITLE}\n---\n\n{ESC_BODY}\n", encoding="utf-8"
    )
    return root


def _has_controls(text: str) -> bool:
    return any(ch in text for ch in "\x1b\x07\x9b\u202e\r")


def test_escape_controls_spells_out_escapes_and_keeps_newlines_and_tabs() -> None:
    assert escape_controls("a\x1b[2Jb\x07\n\tc\x7f\x9b\u202e") == "a\\u001b[2Jb\\u0007\n\tc\\u007f\\u009b\\u202e"


def test_get_prints_no_raw_control_characters(hostile: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["get", "note-e5c0e5c0", "--root", str(hostile)]) == 0
    out = capsys.readouterr().out
    assert not _has_controls(out)
    assert "\\u001b]0;pwned\\u0007" in out and "Line two\twith a tab" in out


def test_get_json_stays_valid_json_with_the_same_text(hostile: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["get", "note-e5c0e5c0", "--root", str(hostile), "--json"]) == 0
    out = capsys.readouterr().out
    assert not _has_controls(out)
    assert json.loads(out)["title"] == ESC_TITLE


def test_search_prints_no_raw_control_characters(hostile: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "Evil pwned title", "--root", str(hostile), "--limit", "3"]) == 0
    out = capsys.readouterr().out
    assert "note-e5c0e5c0" in out and not _has_controls(out)


def test_lint_prints_no_raw_control_characters(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tree = tmp_path / ".memory" / "tree"
    tree.mkdir(parents=True)
    (tree / "note-\x1b[31mbogus.md").write_text("---\nid: note-1\nkind: note\n---\n\nBody.\n", encoding="utf-8")
    main(["lint", "--root", str(tmp_path)])
    out = capsys.readouterr().out
    assert "bogus" in out and "id-mismatch" in out and not _has_controls(out)


@pytest.mark.parametrize("text", ["mem:tree:a\x1bb", "mem:tr\x07ee:x", "zk:research:x\x9b1"])
def test_an_address_with_a_control_character_is_refused(text: str) -> None:
    with pytest.raises(MemDSLParseError) as info:
        parse_address(text)
    assert info.value.code == "address.control"


def test_get_refuses_an_id_with_a_control_character(hostile: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["get", "note-\x1b[2J", "--root", str(hostile), "--json"]) == 2
    captured = capsys.readouterr()
    assert json.loads(captured.err)["error"]["kind"] == "invalid_input" and not _has_controls(captured.err)


def test_the_readable_error_line_escapes_a_control_character_too(
    hostile: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["get", "note-\x1b[2J", "--root", str(hostile)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("synapse: invalid_input: ") and not _has_controls(err)
