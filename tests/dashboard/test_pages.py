"""Every dashboard page through Starlette's TestClient, over the real demo, the real dispatcher and worker."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import quote

import anyio

from synapse_server.actions.deps import Deps, ServerSettings
from synapse_server.dashboard.history import History
from synapse_server.dashboard.security import CSP
from synapse_server.demo import load_questions
from synapse_server.mcp.dispatch import Dispatcher
from synapse_server.navigation.surfaces import NavigateResult
from tests.support.dashboard import FORM_TOKEN, TOKEN, snapshot

CASES = {case["id"]: case for case in load_questions()["questions"]}
ANSWERED = CASES["sharpe-after-cost-increase"]
REFUTED = next(c for c in CASES.values() if c["expect"].get("reason") == "false-premise")
PAGES = ["/", "/history", "/matrix", "/matrix?kind=claim", "/search?q=transaction+costs", "/chat"]


def ask(client: Any, question: str) -> Any:
    """Post a question, then wait (server-side, no polling) for the run to land on its card."""
    posted = client.post("/ask", data={"question": question, "form_token": FORM_TOKEN}, follow_redirects=False)
    assert posted.status_code == 303 and posted.headers["location"].startswith("/runs/")
    return client.get(posted.headers["location"] + "?wait=120")


def test_every_page_answers_200_with_the_strict_csp_and_no_script(demo: Path, open_dashboard: Callable) -> None:
    with open_dashboard(demo) as client:
        for page in PAGES:
            response = client.get(page)
            assert response.status_code == 200, page
            assert response.headers["content-security-policy"] == CSP
            assert response.headers["referrer-policy"] == "no-referrer"
            assert "<script" not in response.text.lower(), page


def test_without_the_token_every_page_is_forbidden(demo: Path, open_dashboard: Callable) -> None:
    with open_dashboard(demo, login=False) as client:
        for page in [*PAGES, "/static/dashboard.css"]:
            assert client.get(page).status_code == 403, page
        assert client.get("/?token=wrong-token").status_code == 403
        assert client.post("/ask", data={"question": "What?", "form_token": FORM_TOKEN}).status_code == 403


def test_the_token_in_the_url_becomes_a_strict_cookie_and_leaves_the_url(demo: Path, open_dashboard: Callable) -> None:
    with open_dashboard(demo, login=False) as client:
        first = client.get(f"/matrix?kind=claim&token={TOKEN}", follow_redirects=False)
        assert first.status_code == 303 and first.headers["location"] == "/matrix?kind=claim"
        cookie = first.headers["set-cookie"].lower()
        assert "httponly" in cookie and "samesite=strict" in cookie
        assert client.get("/matrix?kind=claim").status_code == 200


def test_a_foreign_host_header_is_refused_against_dns_rebinding(demo: Path, open_dashboard: Callable) -> None:
    with open_dashboard(demo) as client:
        assert client.get("/", headers={"host": "attacker.example"}).status_code == 400


def test_a_cross_site_form_post_is_refused_even_with_the_cookie(demo: Path, open_dashboard: Callable) -> None:
    with open_dashboard(demo) as client:
        evil = client.post("/ask", data={"question": "What?"}, headers={"origin": "http://attacker.example"})
        assert evil.status_code == 403
        cross = client.post("/chat", data={"message": "hi"}, headers={"sec-fetch-site": "cross-site"})
        assert cross.status_code == 403


def test_asking_renders_the_answer_card_with_status_citation_model_and_reasoning(
    demo: Path, open_dashboard: Callable
) -> None:
    with open_dashboard(demo) as client:
        page = ask(client, ANSWERED["question"])
    assert page.status_code == 200 and page.url.path.startswith("/answers/")
    assert 'data-card="answer"' in page.text
    assert ANSWERED["evidence"]["sentence"] in page.text
    assert f"badge-{ANSWERED['expect']['status']}" in page.text
    assert ANSWERED["evidence"]["address"] in page.text
    assert "Reasoned by extractive" in page.text
    assert '<details class="reasoning">' in page.text and "Show reasoning" in page.text
    assert "Same configuration as run-001" not in page.text  # an envelope body the turn rendered: never shown


def test_an_abstention_gets_its_own_card_and_its_zk_citation_links_to_the_note_page(
    demo: Path, open_dashboard: Callable
) -> None:
    with open_dashboard(demo) as client:
        page = ask(client, REFUTED["question"])
        assert 'data-card="abstention"' in page.text and 'data-card="answer"' not in page.text
        assert '<span class="reason">false-premise</span>' in page.text
        assert page.text.count("is refuted by its verifier: quote not found verbatim") == 1, "the headline, once"
        assert "false-premise: zk:research:" in page.text  # the refusal line, with the address
        links = re.findall(r'href="(/note\?address=[^"]+)"', page.text)
        assert links, "the refuted zk citation links to its note"
        note = client.get(links[0].replace("&amp;", "&"))
        assert note.status_code == 200 and 'class="body"' in note.text
        assert client.get("/note?address=mem:tree:expe-9f8e7d6c").status_code == 200


def test_a_turn_the_worker_refuses_shows_its_structured_error(
    demo: Path, open_dashboard: Callable, tmp_path: Path
) -> None:
    with open_dashboard(demo, model=f"script:{tmp_path / 'missing.json'}") as client:
        page = ask(client, "What changed?")
    assert page.status_code == 400 and 'role="alert"' in page.text and "model" in page.text
    assert "data-card" not in page.text


def test_a_running_turn_shows_progress_then_its_failure_card(
    demo: Path, open_dashboard: Callable, tmp_path: Path
) -> None:
    gate = tmp_path / "go"
    model = f"command:sh -c 'while [ ! -e {gate} ]; do sleep 0.05; done; exit 3'"
    with open_dashboard(demo, model=model) as client:
        posted = client.post(
            "/ask", data={"question": "What changed?", "form_token": FORM_TOKEN}, follow_redirects=False
        )
        running = client.get(posted.headers["location"])
        assert running.status_code == 200
        assert '<meta http-equiv="refresh" content="1">' in running.text
        assert "Navigating in an isolated worker" in running.text
        gate.touch()
        done = client.get(posted.headers["location"] + "?wait=120")
    assert 'data-card="failure"' in done.text


def test_a_blank_question_is_refused_with_a_structured_error(demo: Path, open_dashboard: Callable) -> None:
    with open_dashboard(demo) as client:
        refused = client.post("/ask", data={"question": "   ", "form_token": FORM_TOKEN})
    assert refused.status_code == 400 and "invalid_input" in refused.text


def test_history_lists_every_turn_newest_first_and_reopens_it(demo: Path, open_dashboard: Callable) -> None:
    before = snapshot(demo)
    with open_dashboard(demo) as client:
        ask(client, ANSWERED["question"])
        ask(client, REFUTED["question"])
        listing = client.get("/history").text
        assert listing.index(REFUTED["question"]) < listing.index(ANSWERED["question"])
        first = re.findall(r'href="(/answers/[0-9a-f]+)"', listing)[-1]
        assert ANSWERED["evidence"]["sentence"] in client.get(first).text
    lines = (demo / ".angelo" / "dashboard" / "history.jsonl").read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["question"] for line in lines] == [ANSWERED["question"], REFUTED["question"]]
    assert all(json.loads(line)["result"]["envelope"] == "" for line in lines)
    assert snapshot(demo) == before  # nothing outside the cache folder was written


def test_a_damaged_history_line_is_skipped_not_rendered(demo: Path, open_dashboard: Callable) -> None:
    log = demo / ".angelo" / "dashboard" / "history.jsonl"
    log.parent.mkdir(parents=True, exist_ok=True)
    forged = {
        "id": "feedfacefeedface",
        "at": "now",
        "question": "forged",
        "origin": "ask",
        "result": {"verdict": "answer"},
    }
    log.write_text("not json\n" + json.dumps(forged) + "\n", encoding="utf-8")
    with open_dashboard(demo) as client:
        assert "forged" not in client.get("/history").text
        assert client.get("/answers/feedfacefeedface").status_code == 404


def test_the_matrix_is_a_table_of_coloured_cells_that_open_their_rationale_and_drift(
    demo: Path, open_dashboard: Callable
) -> None:
    with open_dashboard(demo) as client:
        page = client.get("/matrix")
        assert '<table class="matrix">' in page.text and "drift-fresh" in page.text
        cells = re.findall(r'<td class="rel rel-([a-z-]+)"><a href="(/matrix/cell\?[^"]+)"', page.text)
        assert len(cells) >= 10
        relation, href = cells[0]
        cell = client.get(href.replace("&amp;", "&"))
    assert cell.status_code == 200
    assert f'<span class="rel rel-{relation}">{relation}</span>' in cell.text
    assert "Rationale" in cell.text and "<strong>fresh</strong>" in cell.text


def test_a_claim_cell_shows_its_synthesize_brief_once_the_form_wrote_the_briefs(
    demo: Path, open_dashboard: Callable, embedder: Any
) -> None:
    deps = Deps(ServerSettings(root=demo, prespawn=False, write_free=True), embedder=embedder)
    try:
        briefs = anyio.run(Dispatcher(deps).call, {"action": "synthesize"}).payload["briefs"]
    finally:
        deps.close()
    brief = briefs[0]
    where = {"kind": "claim", "practice": brief["practice"], "canon": brief["canon"]}
    with open_dashboard(demo) as client:
        offered = client.get("/matrix/cell", params=where)
        assert offered.status_code == 200 and '<div class="brief">' not in offered.text
        assert 'action="/matrix/cell"' in offered.text
        cell = client.post("/matrix/cell", data={**where, "form_token": FORM_TOKEN})
    assert cell.status_code == 200 and cell.url.path == "/matrix/cell"
    assert '<div class="brief">' in cell.text
    assert ("verified" if brief["verified"] else "not verified") in cell.text


def test_an_unknown_matrix_cell_is_not_found(demo: Path, open_dashboard: Callable) -> None:
    with open_dashboard(demo) as client:
        assert client.get("/matrix/cell", params={"practice": "mem:tree:x", "canon": "zk:y:z"}).status_code == 404


def test_search_tags_every_hit_with_its_store_and_tier(demo: Path, open_dashboard: Callable) -> None:
    with open_dashboard(demo) as client:
        page = client.get("/search", params={"q": "transaction costs", "expand": "1"}).text
    assert 'class="tag tag-memory">memory' in page and 'class="tag tag-practice">practice' in page
    assert 'class="tag tag-zk">zk' in page and 'class="tag tag-canon">canon' in page
    assert "Overlay neighbours" in page


def test_offline_chat_routes_the_message_to_navigate_and_renders_its_card(demo: Path, open_dashboard: Callable) -> None:
    with open_dashboard(demo) as client:
        client.post("/chat", data={"message": ANSWERED["question"], "form_token": FORM_TOKEN})
        page = client.get("/chat?wait=120").text
    assert "offline: each message is asked as a navigate question" in page
    assert page.count('data-card="answer"') == 1
    assert ANSWERED["evidence"]["sentence"] in page
    history = (demo / ".angelo" / "dashboard" / "history.jsonl").read_text(encoding="utf-8")
    assert json.loads(history.splitlines()[0])["origin"] == "chat"


EVERY_KIND = {
    "mem:tree:expe-9f8e7d6c": "memory",
    "zk:research:20260505-0945-sharpe-ratio": "zk note",
    "zk:research:okafor-2019": "zk source",
    "repo:momentum:models/costs.py": "code",
    "data:runs:run-002": "run",
}
HOSTILE_TITLE = '<script>alert("t")</script><img src=x onerror=alert(1)>'


def recorded_answer(demo: Path) -> str:
    """A recorded answer citing one address of every kind, the first with a hostile title; returns its entry id."""
    citations = [
        {
            "address": address,
            "claim_ids": ["c1"],
            "status": "grounded",
            "outdated": False,
            "title": HOSTILE_TITLE if n == 0 else f"Title of the {kind}",
            "store": address.split(":", 1)[0],
            "quotes": ["Sharpe fell to <b>1.1</b>."] if n == 0 else [],
        }
        for n, (address, kind) in enumerate(EVERY_KIND.items())
    ]
    result = NavigateResult.model_validate(
        {
            "verdict": "answer",
            "status": "grounded",
            "reasons": [],
            "halted_reason": "answer",
            "conclusion": "c1",
            "outdated": False,
            "detail": "answer licensed by verified cited claims",
            "answer_surface": {
                "text": "Sharpe fell to 1.1.",
                "conclusion_claim_id": "c1",
                "inference_form": "restatement",
                "status": "grounded",
                "premise_claim_ids": [],
                "citations": citations,
                "outdated": False,
                "disclosure": None,
            },
            "trace_surface": None,
            "envelope": "",
            "hops": 1,
            "renavigations": 0,
            "tokens_spent": 1,
            "loop_break": "",
            "model": {"provider": "extractive", "id": "test"},
        }
    )
    return History(demo / ".angelo").record("What happened to Sharpe?", result, "ask").id


def test_every_citation_shows_its_title_store_status_and_quote_and_links_to_its_get_view(
    demo: Path, open_dashboard: Callable
) -> None:
    entry_id = recorded_answer(demo)
    with open_dashboard(demo) as client:
        page = client.get(f"/answers/{entry_id}").text
        for n, address in enumerate(EVERY_KIND):
            assert f'href="/note?address={quote(address)}"' in page, address
            note = client.get("/note", params={"address": address})
            assert note.status_code == 200 and 'class="body"' in note.text, address
            assert f'<code class="addr">{address}</code>' in note.text
            if n:
                assert f"Title of the {EVERY_KIND[address]}" in page
    assert '<span class="tag tag-repo">repo</span>' in page and 'badge-grounded">grounded' in page
    assert '<blockquote class="quote">“Sharpe fell to &lt;b&gt;1.1&lt;/b&gt;.”</blockquote>' in page
    assert page.count("<blockquote") == 1  # the other citations restate nothing verbatim


def test_a_hostile_citation_title_is_escaped_text_on_the_answer_card(demo: Path, open_dashboard: Callable) -> None:
    entry_id = recorded_answer(demo)
    with open_dashboard(demo) as client:
        page = client.get(f"/answers/{entry_id}").text
    assert "<script>alert" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(&#34;t&#34;)&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;" in page


def test_an_address_get_refuses_is_a_not_found_note_page(demo: Path, open_dashboard: Callable) -> None:
    with open_dashboard(demo) as client:
        for refused in ("", "mem:tree:no-such-entry", "zk:research:../../etc/passwd", "repo:momentum:/etc/passwd"):
            page = client.get("/note", params={"address": refused})
            assert page.status_code == 404, refused
            assert "root:" not in page.text
