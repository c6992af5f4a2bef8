"""A ``command:`` model that counts its calls: ``python counting_model.py LOG`` appends one line to LOG per call.

It reads the prompt, records the call, and answers with a short plain sentence,
so a test can tell from LOG alone whether (and how often) the model ran.
"""

from __future__ import annotations

import sys
from pathlib import Path


def main() -> int:
    prompt = sys.stdin.read()
    with Path(sys.argv[1]).open("a", encoding="utf-8") as log:
        log.write(f"{len(prompt)}\n")
    print("The practice and the claim were compared.")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
