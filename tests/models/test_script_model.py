from __future__ import annotations

import json
from pathlib import Path

import pytest

from synapse_server.models import ModelExhausted, ModelIdentity, ModelMisconfigured, Usage, resolve_model


def _write(path: Path, payload: object) -> Path:
    path.write_text(json.dumps(payload), encoding="utf-8")
    return path


def test_a_json_script_replays_its_replies_in_order_then_reports_exhaustion(tmp_path: Path) -> None:
    _write(tmp_path / "turns.json", ["one", "two"])
    model = resolve_model("script:turns.json", env={}, cwd=tmp_path)

    assert [model.complete("a").text, model.complete("b").text] == ["one", "two"]
    with pytest.raises(ModelExhausted) as caught:
        model.complete("c")
    assert caught.value.kind == "model_exhausted"
    assert "2" in caught.value.message


def test_a_json_script_reply_may_carry_recorded_usage(tmp_path: Path) -> None:
    _write(tmp_path / "r.json", [{"text": "hi", "usage": {"input_tokens": 7, "output_tokens": 1}}, {"text": "bye"}])
    model = resolve_model("script:r.json", env={}, cwd=tmp_path)

    first, second = model.complete("a"), model.complete("b")

    assert (first.text, first.usage) == ("hi", Usage(7, 1))
    assert (second.text, second.usage) == ("bye", None)
    assert first.model == ModelIdentity("script", "r.json")


def test_a_plain_text_script_is_one_reply_for_every_call(tmp_path: Path) -> None:
    (tmp_path / "reply.txt").write_text("claim c1 :: same\n", encoding="utf-8")
    model = resolve_model("script:reply.txt", env={}, cwd=tmp_path)

    replies = [model.complete(f"q{i}") for i in range(3)]

    assert {reply.text for reply in replies} == {"claim c1 :: same\n"}
    assert all(reply.usage is None for reply in replies)


def test_an_absolute_script_path_is_used_as_given(tmp_path: Path) -> None:
    path = _write(tmp_path / "abs.json", ["x"])

    assert resolve_model(f"script:{path}", env={}, cwd=Path("/")).complete("q").text == "x"


def test_an_empty_json_list_is_exhausted_on_the_first_call(tmp_path: Path) -> None:
    _write(tmp_path / "none.json", [])

    with pytest.raises(ModelExhausted):
        resolve_model("script:none.json", env={}, cwd=tmp_path).complete("q")


@pytest.mark.parametrize(
    "content",
    [
        "{not json",
        '{"replies": ["x"]}',
        "[1, 2]",
        '[{"text": "x", "extra": 1}]',
        '[{"text": "x", "usage": {"input_tokens": -1, "output_tokens": 0}}]',
    ],
)
def test_a_malformed_json_script_fails_when_resolved(tmp_path: Path, content: str) -> None:
    (tmp_path / "bad.json").write_text(content, encoding="utf-8")

    with pytest.raises(ModelMisconfigured):
        resolve_model("script:bad.json", env={}, cwd=tmp_path)


def test_a_missing_script_fails_when_resolved_without_echoing_the_absolute_path(tmp_path: Path) -> None:
    with pytest.raises(ModelMisconfigured) as caught:
        resolve_model("script:absent.json", env={}, cwd=tmp_path)

    assert "absent.json" in caught.value.message
    assert str(tmp_path) not in caught.value.message
