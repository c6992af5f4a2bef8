"""A ``command:`` model for the live harness's own test: the offline extractive navigator behind stdin/stdout.

It reads the navigation prompt on stdin and prints the artifact the
``extractive`` navigator writes for it, so the live harness drives a real
external process exactly as it would drive ``claude -p``.
"""

from __future__ import annotations

import sys

from synapse_server.models import resolve_model


def main() -> int:
    prompt = sys.stdin.read()
    sys.stdout.write(resolve_model("extractive").complete(prompt).text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
