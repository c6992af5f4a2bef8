"""A full disk while the overlay is written: a structured error, the previous overlay intact, no temp file.

The disk is "full" through a real kernel limit, not a patched function: the
server (or the CLI) runs under ``RLIMIT_FSIZE`` of 48 KiB, so writing a file
past 48 KiB fails with ``EFBIG`` exactly where a full disk fails with
``ENOSPC``, inside ``write_overlay``'s write of its temp file. A first build
with a high confidence floor writes a small overlay (under the limit); the
second, with no floor, needs about 75 KiB and must fail cleanly. The index
cache is warm, so nothing else has to grow past the limit.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import TextIO

import pytest

from adapters.index import Embedder
from synapse_server.overlay.build import build_overlay
from synapse_server.workspace.config import load_workspace
from synapse_server.workspace.stores import Stores
from tests.support.reliability_checks import changed_paths, error_kind, forbidden_texts, source_digest
from tests.support.reliability_stdio import _LIMITED, SYNAPSE, stdio_server
from tests.support.worker_jobs import job_env

pytestmark = pytest.mark.anyio

LIMIT = 48 * 1024
OVERLAY = Path(".synapse") / "links" / "links.json"
SMALL = {"action": "build", "kind": "generic", "min_confidence": 0.95}
LARGE = {"action": "build", "kind": "generic", "min_confidence": 0.0}


def overlay_folder_names(root: Path) -> list[str]:
    return sorted(p.name for p in (root / OVERLAY).parent.iterdir())


def assert_a_full_overlay_needs_more_than_the_limit(root: Path, embedder: Embedder) -> None:
    """The precondition of the fault: without the limit, the failed build writes a file past it."""
    workspace = load_workspace(root)
    build_overlay(workspace, Stores.load(workspace), embedder, kind="generic", min_confidence=0.0)
    assert (root / OVERLAY).stat().st_size > LIMIT


def limited_cli_build(root: Path) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-c", _LIMITED, str(LIMIT), str(SYNAPSE), "build", "--root", str(root)]
    return subprocess.run(
        [*argv, "--min-confidence", "0", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
        check=False,
    )


async def test_a_full_disk_during_build_over_mcp_is_a_structured_error_and_keeps_the_previous_overlay(
    demo_copy: Path, server_log: TextIO, embedder: Embedder
) -> None:
    sources = source_digest(demo_copy)
    forbidden = forbidden_texts(demo_copy)
    async with stdio_server(demo_copy, server_log, env=job_env("echo"), file_size_limit=LIMIT) as server:
        small = await server.session.call_tool("synapse", SMALL)
        assert error_kind(small, forbidden) is None, small.structured_content
        previous = (demo_copy / OVERLAY).read_bytes()
        assert 0 < len(previous) < LIMIT
        names = overlay_folder_names(demo_copy)
        failed = await server.session.call_tool("synapse", LARGE)
        assert error_kind(failed, forbidden) is not None, failed.structured_content
        assert (demo_copy / OVERLAY).read_bytes() == previous
        assert overlay_folder_names(demo_copy) == names, "a temp file was left behind"
        still = await server.session.call_tool("synapse", {"action": "get", "id": "deci-c3d4e5f6"})
        assert error_kind(still, forbidden) is None
    assert changed_paths(sources, source_digest(demo_copy)) == []
    assert_a_full_overlay_needs_more_than_the_limit(demo_copy, embedder)


def test_a_full_disk_during_a_cli_build_keeps_the_previous_overlay_and_leaves_no_temp_file(demo_copy: Path) -> None:
    first = subprocess.run(
        [str(SYNAPSE), "build", "--root", str(demo_copy), "--min-confidence", "0.95"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert first.returncode == 0, first.stderr
    previous, names = (demo_copy / OVERLAY).read_bytes(), overlay_folder_names(demo_copy)
    done = limited_cli_build(demo_copy)
    assert done.returncode == 1, done.stderr
    assert (demo_copy / OVERLAY).read_bytes() == previous
    assert overlay_folder_names(demo_copy) == names


def test_a_full_disk_during_a_cli_build_prints_a_json_error_and_no_traceback(demo_copy: Path) -> None:
    done = limited_cli_build(demo_copy)
    assert done.returncode == 1
    assert "Traceback" not in done.stderr, done.stderr[-400:]
    error = json.loads(done.stderr.strip().splitlines()[-1])["error"]
    assert set(error) == {"kind", "message", "parameter"}
