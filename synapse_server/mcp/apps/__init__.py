"""The optional MCP Apps layer: an answer card hosts that render MCP Apps can show beside the JSON.

``synapse``'s tool declares ``_meta.ui.resourceUri`` = :data:`ANSWER_CARD_URI`,
and the server serves that ``ui://`` resource: one self-contained HTML file (no
CDN, no fetch) that draws navigate's answer or abstention card from the
result's ``structuredContent`` when the host posts it in. Hosts without the
extension ignore the declaration; the text content stays the complete JSON
(Claude Code, for one, does not render apps today).

Wiring is two calls in ``server.py``: :func:`declare` on the tool and
:func:`extension` in ``MCPServer(extensions=[...])``.
"""

from __future__ import annotations

from importlib.resources import files
from typing import Any

from mcp.server.apps import Apps

ANSWER_CARD_URI = "ui://synapse/answer-card.html"


def card_html() -> str:
    """The answer card's HTML, as shipped in the package."""
    return files(__package__).joinpath("answer_card.html").read_text(encoding="utf-8")


def extension() -> Apps:
    """The MCP Apps extension serving the answer card resource."""
    apps = Apps()
    apps.add_html_resource(
        ANSWER_CARD_URI,
        card_html(),
        name="synapse-answer-card",
        title="Synapse answer card",
        description="Draws a navigate answer or abstention card from the tool result's structuredContent.",
        prefers_border=True,
    )
    return apps


def declare(tool: Any) -> None:
    """Point ``tool`` (the SDK Tool) at the answer card, keeping any ``_meta`` it already has."""
    tool.meta = {**(tool.meta or {}), "ui": {"resourceUri": ANSWER_CARD_URI}}
