"""Terminal-safe output for every CLI command except ``serve`` (whose stdout is the protocol).

Titles, bodies, ids and snippets are project content: a note can carry ESC
or BEL sequences that retitle a terminal window, hide lines, or, on some
emulators, write to the clipboard. The CLI therefore prints through
:class:`SafeWriter`, which spells every control character (C0 except tab and
newline, DEL, C1), the line separators and the bidirectional-override marks
as ``\\uXXXX``, through the one escaping in ``language/safe_text.py``.
That spelling is also a valid escape inside a JSON string, so ``--json``
output stays parseable (JSON itself already escapes C0, but not DEL, C1 or
bidi marks).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from typing import TextIO

from synapse_server.language.safe_text import escape_unsafe

__all__ = ["SafeWriter", "escape_controls", "terminal_safe_output", "write_vetted"]


def escape_controls(text: str, *, keep_cr: bool = False) -> str:
    """``text`` with every unsafe character (:func:`~synapse_server.language.safe_text.escape_unsafe`) written
    as ``\\uXXXX``; tab and newline stay, and ``\\r`` on request (the build's progress line)."""
    return escape_unsafe(text, keep="\t\n\r" if keep_cr else "\t\n", spelling="json")


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
