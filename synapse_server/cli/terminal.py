"""Terminal-safe output for every CLI command except ``serve`` (whose stdout is the protocol).

Titles, bodies, ids and snippets are project content: a note can carry ESC
or BEL sequences that retitle a terminal window, hide lines, or, on some
emulators, write to the clipboard. The CLI therefore prints through
:class:`SafeWriter`, which spells every control character (C0 except tab and
newline, DEL, C1) and the bidirectional-override marks as ``\\uXXXX``.
That spelling is also a valid escape inside a JSON string, so ``--json``
output stays parseable (JSON itself already escapes C0, but not DEL, C1 or
bidi marks).
"""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Iterator
from typing import TextIO

__all__ = ["SafeWriter", "escape_controls", "terminal_safe_output", "write_vetted"]

_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_UNSAFE_KEEP_CR = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _spelled(match: re.Match[str]) -> str:
    return f"\\u{ord(match.group()):04x}"


def escape_controls(text: str, *, keep_cr: bool = False) -> str:
    """``text`` with every control or bidi-override character written as ``\\uXXXX``; tab and newline stay."""
    return (_UNSAFE_KEEP_CR if keep_cr else _UNSAFE).sub(_spelled, text)


class SafeWriter:
    """A text stream that escapes control characters on the way to ``inner``.

    Deliberately not an ``io.IOBase``: that would close ``inner`` when the
    wrapper is garbage-collected.
    """

    def __init__(self, inner: TextIO, *, keep_cr: bool = False) -> None:
        self.inner = inner
        self.keep_cr = keep_cr

    def write(self, text: str) -> int:
        self.inner.write(escape_controls(text, keep_cr=self.keep_cr))
        return len(text)

    def write_vetted(self, text: str) -> int:
        """Write text whose every piece of content was escaped where it was built (the navigate card, through
        :func:`~synapse_server.language.safe_text.terminal_safe`), so its own colour codes reach the terminal."""
        self.inner.write(text)
        return len(text)

    def flush(self) -> None:
        self.inner.flush()

    def isatty(self) -> bool:
        return self.inner.isatty()

    def fileno(self) -> int:
        return self.inner.fileno()

    def close(self) -> None:
        self.inner.close()

    @property
    def closed(self) -> bool:
        return self.inner.closed

    @property
    def encoding(self) -> str:
        return self.inner.encoding


@contextlib.contextmanager
def terminal_safe_output() -> Iterator[None]:
    """Route ``print`` and stderr writes through :class:`SafeWriter` for the duration (stderr keeps ``\\r``,
    which the build's progress line uses)."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = SafeWriter(out), SafeWriter(err, keep_cr=True)
    try:
        yield
    finally:
        with contextlib.suppress(ValueError, OSError):
            sys.stdout.flush()
        sys.stdout, sys.stderr = out, err


def write_vetted(text: str) -> None:
    """Print text built from escaped content plus its own SGR colour codes: past :class:`SafeWriter` when stdout
    is one (the codes would be spelled out as ``\\u001b``), as it is otherwise."""
    out = sys.stdout
    if isinstance(out, SafeWriter):
        out.write_vetted(text)
    else:
        out.write(text)
