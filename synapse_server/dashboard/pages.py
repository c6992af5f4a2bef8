"""The page handlers: read the request, make write-free tool calls, hand plain values to a template.

Handlers never build HTML themselves; the templates autoescape everything,
so model and evidence text is always text. Answer, abstention and trace cards
are drawn only from :class:`~synapse_server.dashboard.history.Entry` objects
(see ``history.py``).
"""

from __future__ import annotations

from typing import Any
from urllib.parse import urlencode

import anyio
from jinja2 import Environment, PackageLoader, select_autoescape
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from synapse_server.dashboard.view import BASES, RELATIONS, MatrixFilter, matrix_grid, page_safe, status_class
from synapse_server.present.trace_tree import claim_tree, set_flags

MAX_QUESTION_CHARS = 2000
MAX_WAIT_S = 300.0
RECENT = 5

TEMPLATES = Environment(
    loader=PackageLoader("synapse_server.dashboard", "templates"),
    autoescape=select_autoescape(enabled_extensions=("html",), default=True),
    trim_blocks=True,
    lstrip_blocks=True,
)
TEMPLATES.globals.update(claim_tree=claim_tree, set_flags=set_flags, status_class=status_class)


def render(request: Request, name: str, status_code: int = 200, **values: Any) -> HTMLResponse:
    form_token = request.app.state.form_token
    page = TEMPLATES.get_template(name).render(request=request, nav=name.split(".")[0], form_token=form_token, **values)
    return HTMLResponse(page_safe(page), status_code=status_code)


def _dashboard(request: Request) -> Any:
    return request.app.state.dashboard


async def ask_page(request: Request) -> Response:
    history = _dashboard(request).history
    recent = (await anyio.to_thread.run_sync(history.page, 1, RECENT)).entries
    return render(request, "ask.html", recent=recent, question="")


async def ask_post(request: Request) -> Response:
    form = await request.form()
    question = str(form.get("question", "")).strip()
    if not question or len(question) > MAX_QUESTION_CHARS:
        error = {"kind": "invalid_input", "message": f"question: 1 to {MAX_QUESTION_CHARS} characters, not blank"}
        return render(request, "ask.html", status_code=400, recent=[], question=question, error=error)
    run = _dashboard(request).runs.start(question)
    return RedirectResponse(f"/runs/{run.id}", status_code=303)


async def run_page(request: Request) -> Response:
    """Progress while the worker runs (the page refreshes itself); the card once the history has it.

    ``?wait=S`` holds the response until the turn ends or S seconds pass, so a
    script (or a test) can wait for a result without polling.
    """
    run = _dashboard(request).runs.get(request.path_params["run_id"])
    if run is None:
        return render(request, "missing.html", status_code=404, what="run")
    wait = _float(request.query_params.get("wait"), 0.0)
    if run.state == "running" and wait > 0:
        with anyio.move_on_after(min(wait, MAX_WAIT_S)):
            await run.finished.wait()
    if run.state == "done" and run.entry is not None:
        return RedirectResponse(f"/answers/{run.entry.id}", status_code=303)
    if run.state == "error":
        return render(request, "ask.html", status_code=400, recent=[], question=run.question, error=run.error)
    return render(request, "running.html", run=run, elapsed=f"{run.elapsed_s():.0f}")


async def answer_page(request: Request) -> Response:
    entry = await anyio.to_thread.run_sync(_dashboard(request).history.get, request.path_params["entry_id"])
    if entry is None:
        return render(request, "missing.html", status_code=404, what="answer")
    return render(request, "answer.html", entry=entry)


async def history_page(request: Request) -> Response:
    """One page of the history (``?page=N``, newest first), with links to the pages either side."""
    number = _page_number(request.query_params.get("page"))
    page = await anyio.to_thread.run_sync(_dashboard(request).history.page, number)
    return render(request, "history.html", entries=page.entries, page=page)


async def matrix_page(request: Request) -> Response:
    kind = "claim" if request.query_params.get("kind") == "claim" else "generic"
    payload = await _dashboard(request).call(action="matrix", kind=kind)
    chosen = MatrixFilter.from_query(request.query_params)
    grid = None if "error" in payload else matrix_grid(payload, chosen)
    return render(
        request, "matrix.html", kind=kind, payload=payload, grid=grid, chosen=chosen, relations=RELATIONS, bases=BASES
    )


async def cell_page(request: Request) -> Response:
    """One cell: relation, confidence, rationale, the overlay's drift state and its brief if one was written.

    A GET never runs the model: it shows the briefs kept for the current stores, or the form that writes them.
    """
    kind = "claim" if request.query_params.get("kind") == "claim" else "generic"
    practice = request.query_params.get("practice", "")
    canon = request.query_params.get("canon", "")
    dashboard = _dashboard(request)
    payload = await dashboard.call(action="matrix", kind=kind)
    cells = [] if "error" in payload else payload["cells"]
    cell = next((c for c in cells if c["practice"] == practice and c["canon"] == canon), None)
    if cell is None:
        return render(request, "missing.html", status_code=404, what="matrix cell")
    briefs = await dashboard.briefs.current()
    brief = next(
        (b for b in (briefs or {}).get("briefs", []) if b["practice"] == practice and b["canon"] == canon),
        None,
    )
    titles = {axis["address"]: axis["title"] for axis in (*payload["rows"], *payload["columns"])}
    return render(
        request,
        "cell.html",
        kind=kind,
        cell=cell,
        overlay=payload["overlay"],
        brief=brief,
        briefs=briefs,
        titles=titles,
    )


async def cell_post(request: Request) -> Response:
    """Write the synthesize briefs (unless the current stores' are kept already), then show the cell again."""
    form = await request.form()
    kind = "claim" if form.get("kind") == "claim" else "generic"
    cell = {"kind": kind, "practice": str(form.get("practice", "")), "canon": str(form.get("canon", ""))}
    await _dashboard(request).briefs.write()
    return RedirectResponse(f"/matrix/cell?{urlencode(cell)}", status_code=303)


async def search_page(request: Request) -> Response:
    query = request.query_params.get("q", "").strip()
    expand = request.query_params.get("expand") == "1"
    payload = await _dashboard(request).call(action="search", query=query, expand=expand) if query else None
    return render(request, "search.html", query=query, expand=expand, payload=payload)


async def note_page(request: Request) -> Response:
    """What ``get`` shows for any address (memory, zk, code, runs, adopted sources): every address link lands here.

    ``get`` validates the address and reads only loaded nodes; what it refuses is shown as its structured error.
    """
    address = request.query_params.get("address", "").strip()
    if not address or len(address) > MAX_QUESTION_CHARS:
        return render(request, "missing.html", status_code=404, what="note")
    payload = await _dashboard(request).call(action="get", id=address)
    status = 404 if "error" in payload else 200
    return render(request, "note.html", status_code=status, address=address, payload=payload)


async def chat_page(request: Request, status_code: int = 200, error: str = "") -> Response:
    """The transcript so far; while the agent answers, its progress too (the page refreshes itself).

    ``?wait=S`` holds the response until the answer is in or S seconds pass, as on a run's page.
    """
    chat = _dashboard(request).chat
    wait = _float(request.query_params.get("wait"), 0.0)
    if chat.busy and wait > 0:
        await chat.wait(min(wait, MAX_WAIT_S))
    history = _dashboard(request).history
    entries = {e.id: e for e in await anyio.to_thread.run_sync(history.entries)}
    elapsed = f"{chat.elapsed_s():.0f}"
    return render(
        request, "chat.html", status_code=status_code, chat=chat, entries=entries, elapsed=elapsed, error=error
    )


async def chat_post(request: Request) -> Response:
    """Hand the message to the agent and show the chat at once; the reply joins it in the background."""
    form = await request.form()
    message = str(form.get("message", "")).strip()
    if message and len(message) <= MAX_QUESTION_CHARS and not _dashboard(request).chat.start(message):
        return await chat_page(request, 409, "the model is still answering the last message; send this one after it")
    return RedirectResponse("/chat", status_code=303)


def _page_number(raw: str | None) -> int:
    """A page number from the query (1 when absent, malformed or out of range)."""
    return int(raw) if raw is not None and raw.isascii() and raw.isdigit() and 0 < len(raw) < 7 else 1


def _float(raw: str | None, default: float) -> float:
    try:
        return max(0.0, float(raw)) if raw is not None else default
    except ValueError:
        return default
