"""Model providers are registered once: parsing, trust, the open-world hint, the lenses and the docs follow it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from synapse_server.models import ModelMisconfigured, ModelSpecError, parse_model_spec, resolve_model
from synapse_server.models.spec import (
    NO_MODEL_OUTSIDE_NAVIGATE,
    OFFLINE_PROVIDERS,
    OUTSIDE_PROVIDERS,
    PROVIDER_REGISTRY,
    PROVIDERS,
    model_spec_origin,
    providers_table,
    runs_offline,
)

DOCS = Path(__file__).resolve().parents[2] / "docs" / "models.md"
BLOCK = re.compile(r"<!-- providers:start -->\n(.*?)\n<!-- providers:end -->", re.S)
NAMES = list(PROVIDER_REGISTRY)


def _spec(name: str) -> str:
    """A well-formed spec for ``name``: the bare name, or the name with a harmless argument."""
    return name if PROVIDER_REGISTRY[name].argument is None else f"{name}:x"


def test_the_provider_table_in_the_docs_is_the_one_the_registry_renders() -> None:
    found = BLOCK.search(DOCS.read_text(encoding="utf-8"))
    assert found is not None, "docs/models.md lost its <!-- providers --> block"
    assert found.group(1) == providers_table(), "regenerate the table with providers_table() from the registry"


def test_every_registered_provider_has_its_docs_section_and_the_docs_name_no_other() -> None:
    headed = re.findall(r"^### `([^`]+)`$", DOCS.read_text(encoding="utf-8"), re.M)
    assert sorted(headed) == sorted(p.spec_form for p in PROVIDER_REGISTRY.values())


def test_the_provider_lists_are_views_of_the_registry() -> None:
    assert tuple(NAMES) == PROVIDERS
    assert {n for n in NAMES if PROVIDER_REGISTRY[n].reaches_outside} == OUTSIDE_PROVIDERS
    assert set(NAMES) - OUTSIDE_PROVIDERS == OFFLINE_PROVIDERS
    assert {n for n in NAMES if not PROVIDER_REGISTRY[n].serves_typer_and_lenses} == NO_MODEL_OUTSIDE_NAVIGATE


@pytest.mark.parametrize("name", NAMES)
def test_a_provider_that_reaches_outside_needs_the_users_opt_in_from_the_workspace_config(name: str) -> None:
    reaches_outside = PROVIDER_REGISTRY[name].reaches_outside
    assert model_spec_origin(_spec(name), {}, None).trusted is not reaches_outside
    assert runs_offline(_spec(name)) is not reaches_outside


def test_an_unknown_provider_is_never_taken_for_an_offline_one() -> None:
    assert runs_offline("telepathy:x") is False


@pytest.mark.parametrize("name", NAMES)
def test_the_spec_takes_an_argument_exactly_when_the_provider_declares_one(name: str) -> None:
    argument = PROVIDER_REGISTRY[name].argument
    if argument is None:
        assert str(parse_model_spec(name)) == name
        with pytest.raises(ModelSpecError, match="takes no argument"):
            parse_model_spec(f"{name}:x")
    else:
        assert parse_model_spec(f"{name}:x").argument == "x"
        with pytest.raises(ModelSpecError, match=re.escape(f"needs {argument.what}")):
            parse_model_spec(name)


@pytest.mark.parametrize("name", [n for n in NAMES if PROVIDER_REGISTRY[n].key_env])
def test_a_provider_that_declares_a_key_asks_for_that_variable_when_it_is_missing(name: str) -> None:
    with pytest.raises(ModelMisconfigured) as caught:
        resolve_model(_spec(name), env={})
    assert caught.value.detail["env_var"] in PROVIDER_REGISTRY[name].key_env
