"""Reading store files: text decoding, YAML front matter, and typed field access with line numbers.

Every store (memory, zettelkasten, runs) is YAML written by people and agents,
so each problem has to name its file, line and field. The YAML is composed to
a node tree (which keeps positions) and fields are read from it through
:class:`Record`, which raises :class:`StoreFileError` carrying a ready
:class:`Diagnostic`. Scalars are read as the text that was written: an id such
as ``0042`` or a timestamp stays exactly as typed instead of becoming an int
or a datetime.

Diagnostic codes raised here: ``unreadable``, ``binary``, ``encoding``,
``front-matter``, ``yaml``, ``missing-field``, ``bad-field``, ``body-too-large``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from adapters.base import Diagnostic, Severity
from adapters.paths import read_regular_bytes


class StoreFileError(Exception):
    """A store file (or one field of it) that cannot be used; carries the diagnostic to report."""

    def __init__(self, diagnostic: Diagnostic) -> None:
        self.diagnostic = diagnostic
        super().__init__(diagnostic.format())


_SafeBase: type = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
"""libyaml's parser when installed: reading the stores dominates a warm start, and it is several times faster."""


class _Loader(_SafeBase):
    """SafeLoader without the implicit timestamp, merge and value types.

    Dates stay the strings that were written; a plain ``<<`` or ``=`` is text
    too (SafeLoader resolves ``=`` to a type it then cannot build).
    """


_UNTYPED = frozenset({"tag:yaml.org,2002:timestamp", "tag:yaml.org,2002:merge", "tag:yaml.org,2002:value"})
_Loader.yaml_implicit_resolvers = {
    first: [(tag, rx) for tag, rx in resolvers if tag not in _UNTYPED]
    for first, resolvers in yaml.SafeLoader.yaml_implicit_resolvers.items()
}


_NULL = "tag:yaml.org,2002:null"
_BOOL = "tag:yaml.org,2002:bool"
_STR = "tag:yaml.org,2002:str"
_BUILT = frozenset({_BOOL, "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"})
"""Scalar tags whose text must parse: ``!!int abc`` cannot be built."""
_PLAIN_TAGS = _BUILT | {_NULL, _STR, "tag:yaml.org,2002:seq", "tag:yaml.org,2002:map"}
"""The only tags a store file may carry: any other (``!foo``, ``!!python/…``, ``!!set``) is refused by name."""


def read_text(path: Path, display: str) -> str:
    """The file's text as UTF-8 (a leading BOM is dropped); binary and undecodable files are errors.

    Only a regular file is read: a FIFO or device in a store is ``unreadable``, never a blocking read.
    """
    try:
        data = read_regular_bytes(path)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise StoreFileError(Diagnostic(display, 1, "unreadable", f"cannot read file: {reason}")) from None
    if b"\x00" in data:
        line = data[: data.index(b"\x00")].count(b"\n") + 1
        raise StoreFileError(Diagnostic(display, line, "binary", "binary file (NUL byte) where text was expected"))
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise StoreFileError(Diagnostic(display, line, "encoding", f"not UTF-8: byte {data[exc.start]:#04x}")) from None


MAX_BODY_BYTES = 256_000
"""Memory and zettelkasten bodies past this many UTF-8 bytes are cut (as the code store caps its blobs):
a 50 MB note would otherwise dominate every index sync and snippet."""


def capped_body(body: str, display: str, line: int, warnings: list[Diagnostic]) -> str:
    """``body`` cut to :data:`MAX_BODY_BYTES` at a character boundary, with a ``body-too-large`` warning."""
    if len(body) * 4 <= MAX_BODY_BYTES:  # cannot exceed the cap: skip the encode on ordinary bodies
        return body
    data = body.encode("utf-8")
    if len(data) <= MAX_BODY_BYTES:
        return body
    message = f"body is {len(data)} bytes; only the first {MAX_BODY_BYTES} are read"
    warnings.append(Diagnostic(display, line, "body-too-large", message, "warning"))
    return data[:MAX_BODY_BYTES].decode("utf-8", "ignore").rstrip()


@dataclass(frozen=True, slots=True)
class FrontMatterDoc:
    """A Markdown store file: its front matter as a :class:`Record`, the body, and the body's first line.

    Blank lines between the front matter and the text, and trailing
    whitespace, are not part of the body; ``body_line`` is the file line of
    the body's first character (for spans and diagnostics).
    """

    record: Record
    body: str
    body_line: int


def parse_front_matter(text: str, display: str) -> FrontMatterDoc:
    """Split ``---`` front matter from the Markdown body and compose the YAML with file line numbers."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].rstrip() != "---":
        raise StoreFileError(Diagnostic(display, 1, "front-matter", "file does not start with '---' front matter"))
    for index in range(1, len(lines)):
        if lines[index].rstrip() in ("---", "..."):
            break
    else:
        raise StoreFileError(Diagnostic(display, 1, "front-matter", "front matter is not closed by '---'"))
    record = _compose_mapping("".join(lines[1:index]), display, 2, "front-matter")
    body_start = index + 1
    while body_start < len(lines) and not lines[body_start].strip():
        body_start += 1
    return FrontMatterDoc(record, "".join(lines[body_start:]).rstrip(), body_start + 1)


def parse_yaml_record(text: str, display: str) -> Record:
    """A whole-file YAML mapping (run.yaml, a source record, debate.yaml)."""
    return _compose_mapping(text, display, 1, "yaml")


MAX_DEPTH = 64
"""Store YAML nests a few levels (``code: {commit: …}``, ``citations: [{…}]``); deeper is hostile or broken."""


def load_yaml(text: str, display: str) -> Any:
    """A whole YAML document as plain values, refusing aliases and deep nesting (for ``.synapse/config.yaml``).

    Raises :class:`StoreFileError` (code ``yaml``) for invalid YAML and for
    the shapes :func:`_check_shape` refuses; an empty document is ``None``.
    """
    try:
        node = yaml.compose(text, Loader=_Loader)
    except RecursionError:
        raise StoreFileError(Diagnostic(display, 1, "yaml", "invalid YAML: nested too deeply")) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = 1 + (mark.line if mark is not None else 0)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise StoreFileError(Diagnostic(display, line, "yaml", f"invalid YAML: {problem}")) from None
    if node is None:
        return None
    _check_shape(node, display, 1, "yaml")
    return _Loader("").construct_document(node)


def _compose_mapping(text: str, display: str, first_line: int, code: str) -> Record:
    try:
        node = yaml.compose(text, Loader=_Loader)
    except RecursionError:
        raise StoreFileError(Diagnostic(display, first_line, code, "invalid YAML: nested too deeply")) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None) or getattr(exc, "context_mark", None)
        line = first_line + (mark.line if mark is not None else 0)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise StoreFileError(Diagnostic(display, line, code, f"invalid YAML: {problem}")) from None
    if node is None:
        raise StoreFileError(Diagnostic(display, first_line, code, "YAML document is empty"))
    if not isinstance(node, yaml.MappingNode):
        line = first_line + node.start_mark.line
        raise StoreFileError(Diagnostic(display, line, code, "YAML document is not a mapping of fields"))
    _check_shape(node, display, first_line, code)
    return Record(node, display, first_line - 1, [])


def _check_shape(root: yaml.Node, display: str, first_line: int, code: str) -> None:
    """Refuse aliases, deep nesting and values that cannot be built, before any value is built.

    An alias makes one node appear many times, so a few lines can expand into
    gigabytes once a field is rendered (the "billion laughs" shape). Store
    files are data written by people and agents and need no aliases, so any
    reuse of a node is an error naming its line. A tag outside the plain
    types, or ``!!int abc``, would fail (or worse) only when a field is read,
    far from the file; it is refused here, so one bad file costs only itself.
    A plain scalar PyYAML types but cannot build (``0b_``) becomes text. The
    walk is iterative and visits every node once.
    """
    seen: set[int] = set()
    stack: list[tuple[yaml.Node, int]] = [(root, 1)]
    loader: Any = None
    while stack:
        node, depth = stack.pop()
        line = first_line + node.start_mark.line
        if id(node) in seen:
            message = "YAML aliases (*name) are not allowed in store files; write the value out"
            raise StoreFileError(Diagnostic(display, line, code, message))
        seen.add(id(node))
        if depth > MAX_DEPTH:
            raise StoreFileError(Diagnostic(display, line, code, f"YAML nested deeper than {MAX_DEPTH} levels"))
        if node.tag not in _PLAIN_TAGS:
            message = f"YAML tag {_shown_tag(node.tag)} is not allowed in store files; write the plain value"
            raise StoreFileError(Diagnostic(display, line, code, message))
        if node.tag in _BUILT:
            loader = loader or _Loader("")
            try:
                loader.construct_object(node)
            except (ValueError, KeyError, yaml.YAMLError):
                plain = isinstance(node, yaml.ScalarNode) and not node.style
                if not plain or loader.resolve(yaml.ScalarNode, node.value, (True, False)) != node.tag:
                    message = f"{node.value!r} is not a valid {_shown_tag(node.tag)}"
                    raise StoreFileError(Diagnostic(display, line, code, message)) from None
                node.tag = _STR
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                stack.extend(((key, depth + 1), (value, depth + 1)))
        elif isinstance(node, yaml.SequenceNode):
            stack.extend((item, depth + 1) for item in node.value)


class Record:
    """Typed, position-aware access to one YAML mapping.

    Readers raise :class:`StoreFileError` (``missing-field`` / ``bad-field``)
    for a problem that makes the record unusable, and append warnings to the
    shared ``warnings`` list for problems the adapter can survive.
    """

    def __init__(self, node: yaml.MappingNode, path: str, line_offset: int, warnings: list[Diagnostic]) -> None:
        self.path = path
        self.line = line_offset + node.start_mark.line + 1
        self.warnings = warnings
        self._offset = line_offset
        self._keys: dict[str, yaml.Node] = {}
        self._values: dict[str, yaml.Node] = {}
        for key, value in node.value:
            if not isinstance(key, yaml.ScalarNode):
                raise self._fail(key, None, "bad-field", "a field name must be a plain scalar")
            if key.value in self._values:
                raise self._fail(key, key.value, "bad-field", f"field {key.value!r} is given twice")
            self._keys[key.value] = key
            self._values[key.value] = value

    def __contains__(self, key: str) -> bool:
        return key in self._values and self._values[key].tag != _NULL

    def fields(self) -> Iterator[str]:
        """The field names, in file order."""
        return iter(self._values)

    def line_of(self, key: str) -> int:
        node = self._keys.get(key)
        return self.line if node is None else self._offset + node.start_mark.line + 1

    def error(self, key: str | None, code: str, message: str) -> StoreFileError:
        """A diagnostic for ``key`` (or the record itself) ready to raise."""
        line = self.line if key is None else self.line_of(key)
        return StoreFileError(Diagnostic(self.path, line, code, message, "error", key))

    def warn(self, key: str | None, code: str, message: str, severity: Severity = "warning") -> None:
        line = self.line if key is None else self.line_of(key)
        self.warnings.append(Diagnostic(self.path, line, code, message, severity, key))

    def text(self, key: str, *, required: bool = False) -> str | None:
        """A scalar field as written; ``required`` turns absence or emptiness into ``missing-field``."""
        node = self._values.get(key)
        if node is None or node.tag == _NULL or (isinstance(node, yaml.ScalarNode) and node.value == ""):
            if required:
                raise self.error(key, "missing-field", f"required field {key!r} is missing or empty")
            return None
        if not isinstance(node, yaml.ScalarNode):
            raise self._fail(node, key, "bad-field", f"field {key!r} must be a single value, not a {_shape(node)}")
        return str(node.value)

    def texts(self, key: str) -> tuple[str, ...]:
        """A list of scalars (``[a, b]``); absent means empty."""
        node = self._values.get(key)
        if node is None or node.tag == _NULL:
            return ()
        if not isinstance(node, yaml.SequenceNode):
            raise self._fail(node, key, "bad-field", f"field {key!r} must be a list, not a {_shape(node)}")
        items: list[str] = []
        for item in node.value:
            if not isinstance(item, yaml.ScalarNode) or item.tag == _NULL or item.value == "":
                raise self._fail(item, key, "bad-field", f"each entry of {key!r} must be a non-empty single value")
            items.append(str(item.value))
        return tuple(items)

    def records(self, key: str) -> tuple[Record, ...]:
        """A list of mappings (``[{to: x, rel: supports}]``), each a :class:`Record` sharing the warnings."""
        node = self._values.get(key)
        if node is None or node.tag == _NULL:
            return ()
        if not isinstance(node, yaml.SequenceNode):
            raise self._fail(node, key, "bad-field", f"field {key!r} must be a list, not a {_shape(node)}")
        out: list[Record] = []
        for item in node.value:
            if not isinstance(item, yaml.MappingNode):
                raise self._fail(item, key, "bad-field", f"each entry of {key!r} must be a mapping of fields")
            out.append(Record(item, self.path, self._offset, self.warnings))
        return tuple(out)

    def record(self, key: str) -> Record | None:
        """A nested mapping (``code: {commit: ...}``)."""
        node = self._values.get(key)
        if node is None or node.tag == _NULL:
            return None
        if not isinstance(node, yaml.MappingNode):
            raise self._fail(node, key, "bad-field", f"field {key!r} must be a mapping, not a {_shape(node)}")
        return Record(node, self.path, self._offset, self.warnings)

    def flag(self, key: str) -> bool | None:
        node = self._values.get(key)
        if node is None or node.tag == _NULL:
            return None
        if not isinstance(node, yaml.ScalarNode) or node.tag != _BOOL:
            raise self._fail(node, key, "bad-field", f"field {key!r} must be true or false")
        return bool(self.value(key))

    def value(self, key: str) -> Any:
        """The field as a plain Python value (str, int, float, bool, None, list, dict)."""
        node = self._values.get(key)
        if node is None:
            return None
        return _Loader("").construct_document(node)

    def raw(self, key: str) -> yaml.Node | None:
        """The composed node, for callers that render a value as it was written."""
        return self._values.get(key)

    def _fail(self, node: yaml.Node, key: str | None, code: str, message: str) -> StoreFileError:
        line = self._offset + node.start_mark.line + 1
        return StoreFileError(Diagnostic(self.path, line, code, message, "error", key))


def _shown_tag(tag: str) -> str:
    return "!!" + tag.removeprefix("tag:yaml.org,2002:") if tag.startswith("tag:yaml.org,2002:") else tag


def _shape(node: yaml.Node) -> str:
    if isinstance(node, yaml.MappingNode):
        return "mapping"
    if isinstance(node, yaml.SequenceNode):
        return "list"
    return "single value"
