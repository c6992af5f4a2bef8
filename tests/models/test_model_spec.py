from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from synapse_server.errors import InvalidInput, SynapseError
from synapse_server.models import (
    PROVIDERS,
    ModelError,
    ModelMisconfigured,
    ModelOptions,
    ModelSpec,
    ModelSpecError,
    model_spec_from,
    parse_model_spec,
    resolve_model,
)


@pytest.mark.parametrize(
    ("spec", "parsed"),
    [
        ("extractive", ModelSpec("extractive")),
        ("  extractive\n", ModelSpec("extractive")),
        ("script:replies.json", ModelSpec("script", "replies.json")),
        ("script:sub dir/reply.txt", ModelSpec("script", "sub dir/reply.txt")),
        ("command:claude -p", ModelSpec("command", "claude -p")),
        ("command:llm -m gpt-4o-mini", ModelSpec("command", "llm -m gpt-4o-mini")),
        ("openai:gpt-4o-mini", ModelSpec("openai", "gpt-4o-mini")),
        ("openai:llama3.1:8b", ModelSpec("openai", "llama3.1:8b")),
        ("anthropic:claude-sonnet-4-5", ModelSpec("anthropic", "claude-sonnet-4-5")),
    ],
)
def test_every_spec_form_parses_splitting_at_the_first_colon_only(spec: str, parsed: ModelSpec) -> None:
    assert parse_model_spec(spec) == parsed
    assert str(parsed) == spec.strip()


@pytest.mark.parametrize(
    "spec",
    [
        "",
        "   ",
        "gpt-4o",
        "fake",
        "sampling-nope:x",
        "OpenAI:gpt-4o",
        "extractive:extra",
        "script:",
        "script:   ",
        "command:",
        "command:'unbalanced",
        "openai:",
        "anthropic:",
    ],
)
def test_a_bad_spec_is_a_typed_invalid_input_error(spec: str) -> None:
    with pytest.raises(ModelSpecError) as caught:
        parse_model_spec(spec)
    assert isinstance(caught.value, InvalidInput)
    assert isinstance(caught.value, ModelError)
    assert caught.value.kind == "model_spec_invalid"
    assert caught.value.exit_code == 2


def test_resolve_model_raises_the_same_error_for_a_bad_spec() -> None:
    with pytest.raises(ModelSpecError):
        resolve_model("nope:x", env={})


def test_the_fake_model_is_not_reachable_from_a_spec() -> None:
    assert "fake" not in PROVIDERS


def test_cli_model_wins_over_env_which_wins_over_config() -> None:
    env = {"SYNAPSE_MODEL": "openai:from-env"}

    assert model_spec_from("extractive", env, "script:cli.json") == "script:cli.json"
    assert model_spec_from("extractive", env, None) == "openai:from-env"
    assert model_spec_from("extractive", {}, None) == "extractive"


def test_a_blank_synapse_model_env_var_counts_as_unset() -> None:
    assert model_spec_from("script:cfg.txt", {"SYNAPSE_MODEL": "  "}, None) == "script:cfg.txt"


def test_an_explicit_empty_cli_model_is_kept_so_that_it_fails_to_parse() -> None:
    spec = model_spec_from("extractive", {"SYNAPSE_MODEL": "openai:x"}, "")

    with pytest.raises(ModelSpecError):
        parse_model_spec(spec)


def test_model_options_refuse_unknown_keys_and_out_of_range_values() -> None:
    with pytest.raises(ValidationError):
        ModelOptions(timeout=5)  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        ModelOptions(timeout_s=0)
    with pytest.raises(ValidationError):
        ModelOptions(max_tokens=0)


def test_importing_the_models_package_does_not_import_the_extractive_navigator() -> None:
    code = (
        "import sys, synapse_server.models as m; m.parse_model_spec('extractive'); "
        "assert 'synapse_server.navigation.extractive' not in sys.modules"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_model_errors_are_synapse_errors_with_stable_kinds() -> None:
    error = ModelMisconfigured("x")
    assert isinstance(error, SynapseError)
    assert error.kind == "model_misconfigured"


def test_resolve_model_anchors_a_relative_script_path_at_cwd(tmp_path: Path) -> None:
    (tmp_path / "reply.txt").write_text("anchored", encoding="utf-8")

    model = resolve_model("script:reply.txt", env={}, cwd=tmp_path)

    assert model.complete("q").text == "anchored"
    assert model.identity.id == "reply.txt"
