"""A process or network model named only by the workspace's committed config needs the user's opt-in."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from synapse_server.errors import ConfigError
from synapse_server.models import ModelMisconfigured, model_spec_from, model_spec_origin, resolve_model
from synapse_server.models.spec import TRUST_ENV


@pytest.mark.parametrize("spec", ["command:sh -c 'id > pwned'", "openai:gpt-x", "anthropic:claude-x"])
def test_a_process_or_network_model_from_the_workspace_config_is_a_config_error_naming_the_key(spec: str) -> None:
    with pytest.raises(ConfigError) as info:
        model_spec_from(spec, {}, None)
    assert info.value.detail["key"] == "model"
    assert TRUST_ENV in info.value.message and "--model" in info.value.message
    assert model_spec_origin(spec, {}, None).trusted is False


@pytest.mark.parametrize("spec", ["extractive", "script:replies.json"])
def test_offline_models_from_the_workspace_config_need_no_opt_in(spec: str) -> None:
    assert model_spec_from(spec, {}, None) == spec


def test_the_same_spec_from_the_flag_or_the_environment_is_the_users_choice() -> None:
    spec = "command:claude -p"
    assert model_spec_from("extractive", {}, spec) == spec
    assert model_spec_from("extractive", {"SYNAPSE_MODEL": spec}, None) == spec
    assert model_spec_origin("extractive", {"SYNAPSE_MODEL": spec}, None).source == "env"


@pytest.mark.parametrize("value", ["1", "true", "yes"])
def test_the_trust_variable_lets_the_workspace_config_choose_an_outside_model(value: str) -> None:
    spec = "command:claude -p"
    origin = model_spec_origin(spec, {TRUST_ENV: value}, None)
    assert (origin.source, origin.trusted) == ("config", True)
    assert model_spec_from(spec, {TRUST_ENV: value}, None) == spec


@pytest.mark.parametrize("value", ["", "0", "no", "maybe"])
def test_anything_but_a_yes_leaves_the_workspace_model_untrusted(value: str) -> None:
    with pytest.raises(ConfigError):
        model_spec_from("command:claude -p", {TRUST_ENV: value}, None)


def test_a_script_model_naming_a_fifo_is_misconfigured_not_a_blocking_read(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "replies.txt")
    with pytest.raises(ModelMisconfigured) as info:
        resolve_model("script:replies.txt", cwd=tmp_path)
    assert "regular file" in info.value.message
