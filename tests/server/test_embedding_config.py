"""``embedding_model`` in the config: a bad value is a config_error at start, never a failed search."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from synapse_server.cli import main
from tests.server.conftest import ServerFactory
from tests.server.tool_calls import call, error_of


def _configure(root: Path, value: str) -> None:
    config = root / ".synapse" / "config.yaml"
    config.parent.mkdir(exist_ok=True)
    text = config.read_text(encoding="utf-8") if config.exists() else ""
    config.write_text(text + f"\nembedding_model: {json.dumps(value)}\n", encoding="utf-8")


@pytest.mark.parametrize("value", ["no/such/folder", "runs", "minilm-l12"])
def test_serve_check_refuses_an_embedding_model_that_is_not_a_model(
    capsys: pytest.CaptureFixture[str], fresh_demo: Path, value: str
):
    _configure(fresh_demo, value)
    code = main(["serve", "--root", str(fresh_demo), "--check"])
    out, err = capsys.readouterr()
    error = json.loads(err)["error"]
    assert code == 2 and out == ""
    assert error["kind"] == "config_error" and error["message"].startswith(".synapse/config.yaml: embedding_model:")
    assert "Traceback" not in err and str(fresh_demo) not in err


def test_search_from_the_cli_with_a_bad_embedding_model_is_a_config_error(
    capsys: pytest.CaptureFixture[str], fresh_demo: Path
):
    _configure(fresh_demo, "runs")
    code = main(["search", "transaction costs", "--root", str(fresh_demo)])
    _, err = capsys.readouterr()
    assert code == 2 and json.loads(err)["error"]["kind"] == "config_error"
    assert "Traceback" not in err and str(fresh_demo) not in err


def test_serve_check_names_the_encoder_it_would_run(capsys: pytest.CaptureFixture[str], fresh_demo: Path):
    code = main(["serve", "--root", str(fresh_demo), "--check", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert code == 0
    assert report["embedding"] == {"spec": "minilm-onnx", "encoder": "sentence-transformers/all-MiniLM-L6-v2@onnx-int8"}


@pytest.mark.anyio
async def test_a_bad_embedding_model_written_while_serving_makes_search_a_config_error(
    make_server: ServerFactory, fresh_demo: Path
):
    server = make_server(fresh_demo)
    ok = await call(server, action="search", query="transaction costs", limit=2)
    assert ok.is_error is False
    _configure(fresh_demo, "no/such/folder")
    bad = await call(server, action="search", query="transaction costs", limit=2)
    error = error_of(bad)
    assert error["kind"] == "config_error" and "embedding_model" in error["message"]
