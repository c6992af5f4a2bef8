"""A note of ``[`` characters in an adopted vault never stalls the installed server.

Link scanning used to backtrack while holding the GIL: a 25 KB run of ``[``
kept ``ping`` waiting 46 s, and a later edit to an unrelated note cost as much
again. Here the run is 100 KB, the vault is adopted by the demo's config, and
the server must answer a ping, a search, and a search that sees an edit to
another note, each within a bound far below what a quadratic scan takes.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import anyio
import pytest

from tests.support.reliability_checks import error_kind, structured
from tests.support.reliability_stdio import stdio_server

pytestmark = pytest.mark.anyio

PROMPT_S = 30
"""Generous for a linear server on a busy machine; the old scan held the GIL for minutes on this note."""


def _adopt_hostile_vault(root: Path) -> None:
    vault = root / "vault"
    vault.mkdir()
    (vault / "Brackets.md").write_text("# Brackets\n\n" + "[" * 100_000 + "\n", encoding="utf-8")
    (vault / "Ledger.md").write_text("# Ledger\n\nLedger amounts are integer cents.\n", encoding="utf-8")
    config = root / ".synapse" / "config.yaml"
    text = config.read_text(encoding="utf-8")
    assert "\nsources:" not in text
    config.write_text(text + "sources: [{kind: notes, path: vault}]\n", encoding="utf-8")


async def _call(server: object, **arguments: object) -> dict[str, object]:
    with anyio.fail_after(PROMPT_S):
        result = await server.session.call_tool("synapse", arguments)  # type: ignore[attr-defined]
    assert error_kind(result) is None, result
    return structured(result)


async def test_a_note_of_brackets_never_keeps_ping_or_search_waiting(demo_copy: Path) -> None:
    _adopt_hostile_vault(demo_copy)
    env = {k: os.environ[k] for k in ("PYTHONPATH", "HF_HUB_OFFLINE") if k in os.environ}
    with tempfile.TemporaryFile("w+", encoding="utf-8") as log:
        async with stdio_server(demo_copy, log, env=env) as server:
            with anyio.fail_after(PROMPT_S):
                await server.session.send_ping()
            found = await _call(server, action="search", query="ledger amounts integer cents", projects=["vault"])
            assert "zk:vault:ledger" in [hit["address"] for hit in found["hits"]], found  # type: ignore[attr-defined]
            (demo_copy / "vault" / "Ledger.md").write_text(
                "# Ledger\n\nLedger amounts are integer cents, rounded by the quokka rule.\n", encoding="utf-8"
            )
            with anyio.fail_after(PROMPT_S):
                await server.session.send_ping()
            with anyio.fail_after(PROMPT_S):
                while "quokka" not in str((await _call(server, action="get", id="zk:vault:ledger"))["body"]):
                    await anyio.sleep(0.2)  # polls the server's own reload of the edited note, with a deadline
