"""No model work on a GET, and nothing costly for a request that does not come from this dashboard's own page.

Cookies ignore ports, so a page served on any other 127.0.0.1 port gets the
``SameSite=Strict`` cookie sent with its requests. Against the installed
``synapse dashboard`` with a ``command:`` model that logs each call: viewing a
matrix cell never runs the model, the briefs written by a form post are kept
until the stores change, and every costly endpoint refuses a request that has
the cookie but not this page's form token and origin.
"""

from __future__ import annotations

import re
import sys
from html import unescape
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from tests.support import SUPPORT
from tests.support.live_dashboard import Session, live_dashboard

COUNTING = SUPPORT / "counting_model.py"
CELL_LINK = re.compile(r'href="(/matrix/cell\?[^"]+)"')


def counting_spec(log: Path) -> str:
    return f"command:{sys.executable} {COUNTING} {log}"


def calls(log: Path) -> int:
    return len(log.read_text(encoding="utf-8").splitlines()) if log.exists() else 0


def claim_cells(session: Session) -> list[str]:
    page = session.get("/matrix?kind=claim")
    assert page.status == 200
    return [unescape(link) for link in CELL_LINK.findall(page.text)]


def cell_form(cell: str) -> dict[str, str]:
    """The cell link's query as the fields of the form that writes its briefs."""
    return dict(parse_qsl(urlsplit(cell).query))


def test_viewing_matrix_cells_runs_no_model_and_briefs_are_written_once_per_store_state(
    demo: Path, tmp_path: Path
) -> None:
    log = tmp_path / "calls.log"
    with live_dashboard(demo, "--model", counting_spec(log)) as live:
        session = Session(live).login()
        cells = claim_cells(session)
        assert len(cells) >= 5
        for cell in cells[:5]:
            page = session.get(cell)
            assert page.status == 200 and 'action="/matrix/cell"' in page.text
        assert calls(log) == 0

        token = session.form_token(cells[0])
        written = session.post("/matrix/cell", {**cell_form(cells[0]), "form_token": token})
        assert written.status == 303 and written.headers["location"].startswith("/matrix/cell?")
        after_post = calls(log)
        assert after_post > 0
        for cell in cells[:5]:
            page = session.get(cell)
            assert page.status == 200 and 'action="/matrix/cell"' not in page.text
        again = session.post("/matrix/cell", {**cell_form(cells[0]), "form_token": token})
        assert again.status == 303
        assert calls(log) == after_post  # the same stores: the kept briefs, no second synthesis

        note = next((demo / ".memory" / "tree").glob("deci-*.md"))
        note.write_text(note.read_text(encoding="utf-8") + "\nOne more line.\n", encoding="utf-8")
        stale = session.get(cells[0])
        assert stale.status == 200 and 'action="/matrix/cell"' in stale.text
        assert calls(log) == after_post


def test_a_request_with_the_cookie_but_not_this_pages_token_and_origin_is_refused_on_every_costly_endpoint(
    demo: Path, tmp_path: Path
) -> None:
    log = tmp_path / "calls.log"
    with live_dashboard(demo, "--model", counting_spec(log)) as live:
        session = Session(live).login()
        cell = cell_form(claim_cells(session)[0])
        token = session.form_token("/")
        other_port = f"http://127.0.0.1:{live.port + 1 if live.port < 65535 else live.port - 1}"
        costly = {
            "/ask": {"question": "What is the breakeven cost?"},
            "/chat": {"message": "What is the breakeven cost?"},
            "/matrix/cell": cell,
        }
        for path, form in costly.items():
            refusals = [
                session.post(path, {**form, "form_token": token}, headers={"origin": other_port}),
                session.post(path, {**form, "form_token": token}, headers={"sec-fetch-site": "same-site"}),
                session.post(path, form),
                session.post(path, {**form, "form_token": "guessed"}),
                session.post(path, form, headers={"origin": "", "sec-fetch-site": "same-site"}),
            ]
            assert [r.status for r in refusals] == [403] * len(refusals), path
        for path in ("/", "/matrix?kind=claim", "/chat"):
            assert session.get(path, headers={"sec-fetch-site": "same-site"}).status == 403, path
        assert calls(log) == 0
        assert "What is the breakeven cost?" not in session.get("/chat").text
