"""The dashboard tests' login token and the digest that proves a page wrote nothing."""

from __future__ import annotations

import hashlib
from pathlib import Path

from synapse_server.dashboard.security import form_token

TOKEN = "test-token-for-this-run"
FORM_TOKEN = form_token(TOKEN)
"""What the pages' forms carry back: every POST needs it."""
BASE = "http://127.0.0.1"


def snapshot(root: Path) -> dict[str, str]:
    """A digest of every file outside the cache folder: the source stores, the config, the overlay, the code."""
    digests: dict[str, str] = {}
    for path in sorted(root.rglob("*")):
        relative = path.relative_to(root)
        if path.is_file() and relative.parts[0] not in {".angelo"}:
            digests[str(relative)] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digests
