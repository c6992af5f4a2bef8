"""A workspace config naming a model it may not run leaves the dashboard up; only the model calls are refused."""

from __future__ import annotations

import os
from pathlib import Path

from tests.support.live_dashboard import Session, live_dashboard


def test_an_untrusted_model_in_the_config_leaves_the_pages_up_and_refuses_only_the_model_calls(
    demo: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "model-ran"
    config = demo / ".synapse" / "config.yaml"
    text = config.read_text(encoding="utf-8").replace("model: extractive", f'model: "command:touch {marker}"')
    config.write_text(text, encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k not in {"SYNAPSE_MODEL", "SYNAPSE_TRUST_WORKSPACE_MODEL"}}
    with live_dashboard(demo, env=env) as live:
        session = Session(live).login()
        for page in ("/", "/matrix?kind=claim", "/search?q=momentum", "/chat"):
            assert session.get(page).status == 200, page
        token = session.form_token("/chat")
        assert session.post("/chat", {"message": "Is momentum good?", "form_token": token}).status == 303
        chat = session.get("/chat").text
        asked = session.post("/ask", {"question": "Is momentum good?", "form_token": token})
        assert asked.status == 303
        run = session.get(asked.headers["location"] + "?wait=120")
    assert "needs your opt-in" in chat
    assert run.status == 400 and "needs your opt-in" in run.text
    assert not marker.exists()
