"""The store-file reader: positions on every problem, scalars kept as written."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.frontmatter import StoreFileError, parse_front_matter, parse_yaml_record, read_text


def _error(text: str) -> tuple[str, int, str | None]:
    with pytest.raises(StoreFileError) as caught:
        parse_front_matter(text, "f.md")
    return caught.value.diagnostic.code, caught.value.diagnostic.line, caught.value.diagnostic.field


def test_front_matter_and_body_are_split_with_the_body_line() -> None:
    doc = parse_front_matter("---\nid: a\n---\n\n\nBody line.\n", "f.md")
    assert doc.record.text("id") == "a"
    assert (doc.body, doc.body_line) == ("Body line.", 6)


def test_field_lines_are_file_lines() -> None:
    doc = parse_front_matter("---\nid: a\n\ntitle: T\n---\n", "f.md")
    assert doc.record.line_of("title") == 4


def test_a_missing_or_unclosed_front_matter_is_reported() -> None:
    assert _error("no front matter\n") == ("front-matter", 1, None)
    assert _error("---\nid: a\n") == ("front-matter", 1, None)


def test_a_yaml_error_names_the_line_in_the_file() -> None:
    assert _error("---\nid: a\ntitle: : :\n  bad: [\n---\n")[:2] == ("front-matter", 3)


def test_front_matter_that_is_not_a_mapping_is_reported() -> None:
    assert _error("---\n- a\n- b\n---\n") == ("front-matter", 2, None)


def test_a_key_given_twice_is_a_bad_field() -> None:
    assert _error("---\nid: a\nid: b\n---\n") == ("bad-field", 3, "id")


def test_scalars_keep_their_written_text() -> None:
    rec = parse_yaml_record("id: 0042\ncreated: 2026-05-14T10:02:00Z\nsha: 1234567\nratio: 1.10\n", "f.yaml")
    assert [rec.text(key) for key in ("id", "created", "sha", "ratio")] == [
        "0042",
        "2026-05-14T10:02:00Z",
        "1234567",
        "1.10",
    ]
    assert rec.value("created") == "2026-05-14T10:02:00Z"
    assert rec.value("ratio") == 1.1


def test_wrong_shapes_are_bad_fields_on_their_line() -> None:
    rec = parse_yaml_record("title: [a, b]\ntags: x\n", "f.yaml")
    with pytest.raises(StoreFileError) as caught:
        rec.text("title")
    assert (caught.value.diagnostic.code, caught.value.diagnostic.line) == ("bad-field", 1)
    with pytest.raises(StoreFileError) as caught:
        rec.texts("tags")
    assert (caught.value.diagnostic.code, caught.value.diagnostic.line) == ("bad-field", 2)


def test_an_empty_required_field_is_missing() -> None:
    rec = parse_yaml_record("id: ''\ntitle: ~\n", "f.yaml")
    with pytest.raises(StoreFileError) as caught:
        rec.text("id", required=True)
    assert caught.value.diagnostic.code == "missing-field"
    assert rec.text("title") is None


def test_undecodable_and_binary_files_are_reported_with_their_line(tmp_path: Path) -> None:
    latin = tmp_path / "latin.md"
    latin.write_bytes(b"---\nid: a\ntitle: caf\xe9\n")
    with pytest.raises(StoreFileError) as caught:
        read_text(latin, "latin.md")
    assert (caught.value.diagnostic.code, caught.value.diagnostic.line) == ("encoding", 3)
    blob = tmp_path / "blob.md"
    blob.write_bytes(b"a\nb\x00")
    with pytest.raises(StoreFileError) as caught:
        read_text(blob, "blob.md")
    assert (caught.value.diagnostic.code, caught.value.diagnostic.line) == ("binary", 2)


def test_a_leading_byte_order_mark_is_dropped(tmp_path: Path) -> None:
    path = tmp_path / "bom.md"
    path.write_bytes(b"\xef\xbb\xbf---\nid: a\n---\n")
    assert parse_front_matter(read_text(path, "bom.md"), "bom.md").record.text("id") == "a"
