"""``synapse search``, ``synapse get`` and ``synapse serve --help``: the same functions the tool calls."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from synapse_server.cli.main import main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_search_json_prints_the_tools_payload(capsys: pytest.CaptureFixture[str], demo_root: Path):
    code, out, _ = run(capsys, "search", "transaction costs", "--root", str(demo_root), "--limit", "4", "--json")
    body = json.loads(out)
    assert code == 0 and body["action"] == "search" and len(body["hits"]) == 4
    assert body["projects"] == ["research", "execution"]


def test_search_with_empty_projects_is_memory_only_and_prints_one_line_per_hit(
    capsys: pytest.CaptureFixture[str], demo_root: Path
):
    code, out, _ = run(capsys, "search", "costs", "--root", str(demo_root), "--projects", "", "--limit", "3")
    lines = out.splitlines()
    assert code == 0 and "memory only" in lines[0]
    hit_lines = lines[1::2]
    assert len(hit_lines) == 3 and all("[memory/practice]" in line for line in hit_lines)


def test_search_refuses_an_out_of_domain_limit_with_exit_2(capsys: pytest.CaptureFixture[str], demo_root: Path):
    code, out, err = run(capsys, "search", "costs", "--root", str(demo_root), "--limit", "0", "--json")
    assert code == 2 and out == ""
    assert json.loads(err)["error"]["kind"] == "invalid_input"


def test_get_prints_the_full_body_and_its_tethers(capsys: pytest.CaptureFixture[str], demo_root: Path):
    code, out, _ = run(capsys, "get", "deci-e17103e8", "--root", str(demo_root))
    assert code == 0
    assert out.splitlines()[0] == "mem:tree:deci-e17103e8  [decision, memory/practice]"
    assert "tether: git-pin models/costs.py@" in out and "Transaction costs increased from 5 bps to 8 bps." in out


def test_get_json_equals_the_tools_payload_shape(capsys: pytest.CaptureFixture[str], demo_root: Path):
    code, out, _ = run(
        capsys, "get", "zk:research:20260406-0900-cross-sectional-momentum", "--root", str(demo_root), "--json"
    )
    body = json.loads(out)
    assert code == 0 and body["action"] == "get" and body["tier"] == "canon" and body["summary"]


@pytest.mark.parametrize(
    ("ident", "kind"), [("deci-00000000", "not_found"), ("../etc/passwd", "path_outside_workspace")]
)
def test_get_errors_exit_2_with_a_json_error_on_stderr(
    capsys: pytest.CaptureFixture[str], demo_root: Path, ident: str, kind: str
):
    code, out, err = run(capsys, "get", ident, "--root", str(demo_root), "--json")
    assert code == 2 and out == "" and json.loads(err)["error"]["kind"] == kind


@pytest.mark.parametrize("command", ["serve", "search", "get"])
def test_every_server_command_has_help(capsys: pytest.CaptureFixture[str], command: str):
    with pytest.raises(SystemExit) as exited:
        main([command, "--help"])
    assert exited.value.code == 0 and "--root" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [["--help"], ["no-such-command"]])
def test_help_and_an_unknown_command_still_list_every_command(capsys: pytest.CaptureFixture[str], argv: list[str]):
    from synapse_server.cli.main import COMMANDS

    with pytest.raises(SystemExit):
        main(argv)
    out, err = capsys.readouterr()
    assert all(name in out + err for name in COMMANDS)


def test_serve_starts_without_importing_the_other_commands():
    # A host waits on `synapse serve`: it must not pay for importing the fourteen commands it never runs.
    code = (
        "import json, sys; from synapse_server.cli.main import build_parser; build_parser('serve')\n"
        "print(json.dumps([m for m in sys.modules if m.startswith('synapse_server.cli.commands.')]))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = json.loads(out.stdout)
    assert "synapse_server.cli.commands.serve" in loaded
    others = {
        "synapse_server.cli.commands.dashboard",
        "synapse_server.cli.commands.eval",
        "synapse_server.cli.commands.init",
    }
    assert not others & set(loaded)


def test_an_error_in_normal_mode_is_one_readable_line_with_its_kind_and_a_hint(
    capsys: pytest.CaptureFixture[str], demo_root: Path
) -> None:
    code, out, err = run(capsys, "get", "deci-00000000", "--root", str(demo_root))
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert err.startswith("synapse: not_found: ") and "`synapse search QUERY`" in err
    assert not err.lstrip().startswith("{")


def test_an_invalid_value_in_normal_mode_keeps_its_exit_code_and_reads_as_a_sentence(
    capsys: pytest.CaptureFixture[str], demo_root: Path
) -> None:
    code, _, err = run(capsys, "search", "costs", "--root", str(demo_root), "--limit", "0")
    assert code == 2 and err.startswith("synapse: invalid_input: ") and "limit" in err


def test_an_unknown_option_is_answered_with_the_closest_option_of_that_command(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["navigate", "Q", "--budget", "100"])
    err = capsys.readouterr().err
    assert exited.value.code == 2 and "unrecognized arguments: --budget 100" in err
    assert "did you mean --token-budget?" in err and err.startswith("usage: synapse navigate")


def test_an_unknown_option_with_nothing_close_gets_no_guess(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["search", "costs", "--zzzzqqq"])
    err = capsys.readouterr().err
    assert exited.value.code == 2 and "unrecognized arguments: --zzzzqqq" in err and "did you mean" not in err
