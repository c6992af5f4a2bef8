"""The one error type of the wire protocol.

Every parse failure in every direction is a ``MemDSLParseError`` with a stable
``code`` (what rule was broken), and the 1-based ``line`` and ``column`` where
it was detected. Tests pin the code and the position, never the message text.
"""

from __future__ import annotations


class MemDSLParseError(ValueError):
    """A MemDSL text (or a value about to be serialized) broke a protocol rule."""

    def __init__(self, code: str, message: str, line: int = 1, column: int = 1) -> None:
        self.code = code
        self.message = message
        self.line = line
        self.column = column
        super().__init__(f"{line}:{column}: [{code}] {message}")

    def __reduce__(self) -> tuple[type[MemDSLParseError], tuple[str, str, int, int]]:
        return (type(self), (self.code, self.message, self.line, self.column))


def fail(code: str, message: str, line: int = 1, column: int = 1) -> MemDSLParseError:
    """Build the error; callers ``raise fail(...)`` so the raise site stays visible."""
    return MemDSLParseError(code, message, line, column)
