"""The dashboard in a real headless Chromium: the installed ``synapse dashboard``, driven by Playwright.

Chromium is the system's (Debian's ``chromium`` package); Playwright's own
browser download is never used. Each page is screenshotted into the test's
temporary folder, and into ``$SYNAPSE_SCREENSHOTS`` when that is set (that is
how the pictures in docs/dashboard.md are made).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import anyio
import pytest

from synapse_server.actions.deps import Deps, ServerSettings
from synapse_server.mcp.dispatch import Dispatcher
from tests.support.browser import ANSWERED, CHROMIUM, CHROMIUM_FLAGS, NO_CHROMIUM, WAIT_MS

pytestmark = pytest.mark.skipif(CHROMIUM is None, reason=NO_CHROMIUM)


def brief_cell(root: Path, embedder: Any) -> str:
    """The address of a claim-matrix cell that has a synthesize brief (asked of the tool in-process)."""
    deps = Deps(ServerSettings(root=root, prespawn=False, write_free=True), embedder=embedder)
    try:
        brief = anyio.run(Dispatcher(deps).call, {"action": "synthesize"}).payload["briefs"][0]
    finally:
        deps.close()
    return "matrix/cell?" + urlencode({"kind": "claim", "practice": brief["practice"], "canon": brief["canon"]})


def test_ask_show_reasoning_matrix_search_and_chat_in_chromium(
    dashboard_url: str, demo: Path, embedder: Any, tmp_path: Path, shots: list[Path]
) -> None:
    from playwright.sync_api import sync_playwright

    with_brief = brief_cell(demo, embedder)
    csp_violations: list[str] = []

    def snap(page: object, name: str) -> None:
        path = tmp_path / f"{name}.png"
        page.screenshot(path=str(path), full_page=True)  # type: ignore[attr-defined]
        shots.append(path)

    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 860})
            page.set_default_timeout(WAIT_MS)  # the first search loads the embedding model; CI machines are slow
            page.on("console", lambda m: csp_violations.append(m.text) if "Content Security Policy" in m.text else None)
            page.goto(dashboard_url)
            assert "token=" not in page.url, "the token leaves the address bar after the first load"
            page.fill("#question", ANSWERED["question"])
            snap(page, "ask")
            page.click("button[type=submit]")
            card = page.wait_for_selector("[data-card]", timeout=WAIT_MS)
            assert card is not None and card.get_attribute("data-card") == "answer"
            assert ANSWERED["evidence"]["sentence"] in page.inner_text(".answer-text")
            assert not page.is_visible("ul.tree.root"), "the reasoning starts collapsed"
            snap(page, "answer")
            cited = page.locator("ol.citations li").first
            assert cited.locator("a.addr-title").inner_text().strip(), "the citation shows its node's title"
            assert ANSWERED["evidence"]["sentence"] in cited.locator("blockquote.quote").inner_text()
            snap(page, "dashboard-answer")
            cited.locator("a.addr-title").click()
            page.wait_for_selector("pre.body")
            assert ANSWERED["evidence"]["address"] in page.inner_text("main")
            page.go_back()
            page.wait_for_selector("[data-card]")
            page.click("details.reasoning summary")
            page.wait_for_selector("ul.tree.root", state="visible")
            assert page.inner_text("ul.tree.root .cid").strip() == "c1"
            snap(page, "reasoning")

            page.goto(dashboard_url.split("?")[0] + "matrix")
            page.wait_for_selector("table.matrix")
            assert page.locator("table.matrix td.rel").count() >= 10
            snap(page, "matrix")
            page.click("table.matrix td.rel a >> nth=0")
            page.wait_for_selector("dl.facts")
            assert "Rationale" in page.inner_text("dl.facts")
            snap(page, "matrix-cell")
            page.goto(dashboard_url.split("?")[0] + with_brief)
            page.click("form[action='/matrix/cell'] button")  # a view never runs the model; the form does
            page.wait_for_selector("div.brief")
            snap(page, "matrix-brief")

            page.goto(dashboard_url.split("?")[0] + "search?q=transaction+costs")
            page.wait_for_selector("ol.hits li")
            assert page.locator(".tag-canon").count() > 0 and page.locator(".tag-practice").count() > 0
            snap(page, "search")

            page.goto(dashboard_url.split("?")[0] + "chat")
            page.fill("#message", "What Sharpe ratio did the baseline backtest at 5 bps reach?")
            page.click("button[type=submit]")
            page.wait_for_selector(".msg-card [data-card]", timeout=WAIT_MS)
            snap(page, "chat")

            page.goto(dashboard_url.split("?")[0] + "history")
            assert page.locator("table.list tbody tr").count() == 2
            snap(page, "history")
        finally:
            browser.close()
    assert csp_violations == []
    assert all(shot.stat().st_size > 10_000 for shot in shots)


HOST_PAGE = """<!doctype html><html><body><iframe id="app" style="width:900px;height:600px"></iframe><script>
const frame = document.getElementById("app");
window.addEventListener("message", (event) => {
  const msg = event.data;
  if (msg.method === "ui/initialize") {
    frame.contentWindow.postMessage({jsonrpc: "2.0", id: msg.id, result: {protocolVersion: "2026-01-26",
      hostInfo: {name: "test-host", version: "1"}, hostCapabilities: {}, hostContext: {}}}, "*");
  } else if (msg.method === "ui/notifications/initialized") {
    frame.contentWindow.postMessage({jsonrpc: "2.0", method: "ui/notifications/tool-result",
      params: {content: [{type: "text", text: "{}"}], structuredContent: window.RESULT}}, "*");
  }
});
</script></body></html>"""


def test_the_mcp_app_answer_card_renders_the_structured_result_as_text_in_chromium(
    tmp_path: Path, shots: list[Path]
) -> None:
    from playwright.sync_api import sync_playwright

    from synapse_server.mcp.apps import card_html
    from synapse_server.navigation.surfaces import NavigateResult

    result = json.loads((Path(__file__).parent / "navigate_answer.json").read_text(encoding="utf-8"))
    NavigateResult.model_validate({k: v for k, v in result.items() if k not in {"action", "summary"}})
    hostile = "Sharpe fell. <img src=x onerror=alert(1)>"
    result["answer_surface"]["text"] = hostile
    result["answer_surface"]["citations"][0]["title"] = "Costs <img src=y onerror=alert(2)>"
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS, headless=True)
        try:
            page = browser.new_page(viewport={"width": 960, "height": 660})
            page.set_content(HOST_PAGE)
            page.evaluate("([result, html]) => { window.RESULT = result; document.getElementById('app').srcdoc = html; }",
                          [result, card_html()])  # fmt: skip
            app = page.frame_locator("#app")
            app.locator("[data-card=answer]").wait_for(timeout=30_000)
            assert app.locator(".text").inner_text() == hostile
            assert app.locator("li strong").inner_text() == "Costs <img src=y onerror=alert(2)>"
            assert "after costs rose to 8 bps" in app.locator("blockquote.quote").inner_text()
            assert app.locator("img").count() == 0
            app.locator("summary").click()
            assert "c1" in app.locator("details").inner_text()
            path = tmp_path / "mcp-app-card.png"
            page.screenshot(path=str(path))
            shots.append(path)
        finally:
            browser.close()
