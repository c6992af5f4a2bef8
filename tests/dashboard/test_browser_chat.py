"""The chat in a real headless Chromium: progress at once, each step as it ends, every reply labelled.

The chat model is ``stepped_model.py``: its first reply calls navigate, its
second waits on a file that the test creates only after the browser has shown
the card while the model was still held. The page itself has no script: it
refreshes itself while the agent is busy, under the dashboard's CSP.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import sys
from pathlib import Path

import pytest

from tests.support import SUPPORT
from tests.support.browser import ANSWERED, CHROMIUM, CHROMIUM_FLAGS, WAIT_MS
from tests.support.live_dashboard import live_dashboard

STEPPED = SUPPORT / "stepped_model.py"
PROSE = "Sharpe fell to 1.1 once costs rose to 8 bps."

pytestmark = pytest.mark.skipif(
    CHROMIUM is None, reason="no system Chromium found (install Debian's: apt-get install -y chromium)"
)


def test_the_chat_streams_its_steps_and_labels_the_models_prose_in_chromium(demo: Path, tmp_path: Path) -> None:
    from playwright.sync_api import sync_playwright

    folder = demo / "steps"  # the model runs in the workspace root: relative names keep the page short
    folder.mkdir()
    wrapper = demo / "chat-model"
    wrapper.write_text(
        f'#!/bin/sh\nexec {shlex.quote(sys.executable)} {shlex.quote(str(STEPPED))} "$@"\n', encoding="utf-8"
    )
    wrapper.chmod(0o755)
    call = "CALL " + json.dumps({"action": "navigate", "question": ANSWERED["question"]})
    (folder / "reply-1.txt").write_text(call, encoding="utf-8")
    (folder / "reply-2.txt").write_text(PROSE, encoding="utf-8")
    (folder / "gates").write_text("gate-2", encoding="utf-8")
    csp_violations: list[str] = []
    shot = tmp_path / "dashboard-chat.png"
    spec = "command:./chat-model steps"
    with live_dashboard(demo, "--model", "extractive", "--chat-model", spec) as live, sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 860})
            page.set_default_timeout(WAIT_MS)
            page.on("console", lambda m: csp_violations.append(m.text) if "Content Security Policy" in m.text else None)
            page.goto(f"http://127.0.0.1:{live.port}/chat?token={live.token}")
            page.fill("#message", "What happened to Sharpe at 8 bps?")
            page.click("button[type=submit]")
            page.wait_for_selector("[role=status]")
            page.wait_for_selector(".msg-card [data-card=answer]")  # the card arrives by refresh, model still held
            assert not (folder / "gate-2").exists()
            assert page.is_visible("[role=status]") and page.locator(".msg-assistant").count() == 0
            (folder / "gate-2").touch()
            page.wait_for_selector(".msg-assistant")
            assert page.inner_text(".msg-assistant .label") == "model text, not checked"
            assert PROSE in page.inner_text(".msg-assistant .plain-text")
            assert "navigate card" in page.inner_text(".msg-card .label")
            assert page.locator("[role=status]").count() == 0 and page.is_visible("#message")
            page.screenshot(path=str(shot), full_page=True)
        finally:
            (folder / "gate-2").touch()
            browser.close()
    assert csp_violations == []
    keep = os.environ.get("SYNAPSE_SCREENSHOTS")
    if keep:
        Path(keep).mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, Path(keep) / shot.name)
