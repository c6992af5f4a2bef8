"""``embedding_model`` in the config: a bad value is a config_error at start, never a failed search."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from synapse_server.cli.main import main
from tests.support.servers import ServerFactory
from tests.support.tool_calls import call, error_of


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
    code = main(["serve", "--root", str(fresh_demo), "--check", "--json"])
    out, err = capsys.readouterr()
    error = json.loads(err)["error"]
    assert code == 2 and out == ""
    assert error["kind"] == "config_error" and error["message"].startswith(".synapse/config.yaml: embedding_model:")
    assert "Traceback" not in err and str(fresh_demo) not in err


def test_search_from_the_cli_with_a_bad_embedding_model_is_a_config_error(
    capsys: pytest.CaptureFixture[str], fresh_demo: Path
):
    _configure(fresh_demo, "runs")
    code = main(["search", "transaction costs", "--root", str(fresh_demo), "--json"])
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


def _damaged_onnx_folder(root: Path) -> None:
    from adapters.index.onnx_encoder import TOKENIZER_JSON

    folder = root / "models" / "broken"
    folder.mkdir(parents=True)
    (folder / "model.onnx").write_bytes(b"not an onnx graph")
    shutil.copy(TOKENIZER_JSON, folder / "tokenizer.json")
    _configure(root, "models/broken")


def test_serve_check_loads_a_configured_onnx_folder_and_refuses_a_damaged_one(
    capsys: pytest.CaptureFixture[str], fresh_demo: Path
):
    _damaged_onnx_folder(fresh_demo)
    code = main(["serve", "--root", str(fresh_demo), "--check", "--json"])
    _, err = capsys.readouterr()
    error = json.loads(err)["error"]
    assert code == 2 and error["kind"] == "config_error"
    assert error["message"].startswith(
        ".synapse/config.yaml: embedding_model: 'models/broken': the model could not be loaded ("
    )
    assert "Traceback" not in err and str(fresh_demo) not in err


def test_a_damaged_model_found_only_at_the_first_search_is_a_config_error_too(
    capsys: pytest.CaptureFixture[str], fresh_demo: Path
):
    _damaged_onnx_folder(fresh_demo)
    code = main(["search", "transaction costs", "--root", str(fresh_demo), "--json"])
    _, err = capsys.readouterr()
    assert code == 2 and json.loads(err)["error"]["kind"] == "config_error"
    assert "Traceback" not in err and str(fresh_demo) not in err


def test_a_handed_over_encoder_serves_while_its_embedding_model_stands_and_is_replaced_when_it_changes(
    fresh_demo: Path,
):
    """``synapse serve`` hands the server the encoder it started loading; a later config change still counts."""
    from synapse_server.actions.deps import Deps, ServerSettings
    from synapse_server.workspace.config import load_workspace
    from synapse_server.workspace.stores import make_embedder

    workspace = load_workspace(fresh_demo)
    started = make_embedder(workspace)
    deps = Deps(
        ServerSettings(root=fresh_demo, prespawn=False),
        embedder=started,
        embedder_spec=workspace.config.embedding_model,
        watch=False,
    )
    try:
        assert deps.embedder is started
        _configure(fresh_demo, "minilm-onnx")
        assert deps.embedder is not started, "the config now names a model the handed-over encoder was not built for"
    finally:
        deps.close()


def test_serve_starts_loading_the_default_encoder_on_a_thread_of_its_own(fresh_demo: Path):
    import threading

    from synapse_server.cli.commands.serve import _load_in_background
    from synapse_server.workspace.config import load_workspace
    from synapse_server.workspace.stores import make_embedder

    onnx = make_embedder(load_workspace(fresh_demo))
    _load_in_background(onnx)
    for loader in [t for t in threading.enumerate() if t.name == "synapse-model-load"]:
        loader.join(timeout=120)
    assert onnx.is_loaded


def test_serve_leaves_a_torch_encoder_lazy(fresh_demo: Path):
    pytest.importorskip("sentence_transformers", reason="the torch extra is not installed")
    from synapse_server.cli.commands.serve import _load_in_background
    from synapse_server.workspace.config import load_workspace
    from synapse_server.workspace.stores import make_embedder

    _configure(fresh_demo, "minilm-torch")
    torch = make_embedder(load_workspace(fresh_demo))
    _load_in_background(torch)
    assert not torch.is_loaded
