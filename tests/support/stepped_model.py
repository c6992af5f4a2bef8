"""A ``command:`` chat model in steps: ``python stepped_model.py DIR``.

Call n (counted in DIR/calls) answers with the text of DIR/reply-n.txt. When
DIR/gate-n exists as a name in DIR/gates, the call first waits until that file
exists (bounded, so a broken test ends), which lets a test hold the model in the
middle of its reply for as long as it likes without any sleeps of its own.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

BOUND_S = 120.0


def main() -> int:
    folder = Path(sys.argv[1])
    sys.stdin.read()
    counter = folder / "calls"
    call = int(counter.read_text(encoding="utf-8")) + 1 if counter.exists() else 1
    counter.write_text(str(call), encoding="utf-8")
    gate = folder / f"gate-{call}"
    gated = (folder / "gates").read_text(encoding="utf-8").split() if (folder / "gates").exists() else []
    deadline = time.monotonic() + BOUND_S
    while gate.name in gated and not gate.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    print((folder / f"reply-{call}.txt").read_text(encoding="utf-8"))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
