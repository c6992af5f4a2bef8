"""The native stores' accounts: files_read counts the files that became nodes, skipped names every file left out."""

from __future__ import annotations

from pathlib import Path

from adapters.base import Skipped
from adapters.memory import MemoryAdapter
from adapters.runs import RunsAdapter
from adapters.zettelkasten import ZettelkastenAdapter
from tests.support.source_fixtures import write_files

NOTE = "---\nid: {id}\ntype: finding\ntitle: {id}\n---\n\nBody of {id}.\n"


def test_the_memory_tree_counts_each_entry_read_and_names_each_file_it_dropped(tmp_path: Path) -> None:
    entry = "---\nid: {id}\nkind: note\ntitle: T\n---\n\nBody.\n"
    write_files(
        tmp_path / ".memory/tree",
        {
            "note-a.md": entry.format(id="note-a"),
            "note-b.md": entry.format(id="note-a"),  # the same id as note-a.md: the later file is dropped
            "note-c.md": "no front matter\n",
            "note-d.md": "---\nkind: note\n---\n\nNo id.\n",
        },
    )
    (tmp_path / ".memory/tree/note-e.md").write_bytes(b"---\nid: note-e\nkind: note\n---\n\xff\n")
    result = MemoryAdapter(tmp_path / ".memory", tmp_path, "ws").load()
    assert result.files_read == 1
    assert set(result.skipped) == {
        Skipped(".memory/tree/note-b.md", "a duplicate id"),
        Skipped(".memory/tree/note-c.md", "broken front matter"),
        Skipped(".memory/tree/note-d.md", "a required field missing"),
        Skipped(".memory/tree/note-e.md", "not UTF-8"),
    }


def test_the_zettelkasten_counts_notes_sources_and_debate_maps_and_names_each_file_it_dropped(tmp_path: Path) -> None:
    project = tmp_path / ".zettelkasten/lab"
    write_files(
        project,
        {
            "notes/n1.md": NOTE.format(id="n1"),
            "notes/n2.md": NOTE.format(id="n2"),
            "notes/n3.md": NOTE.format(id="n1"),  # a second n1
            "sources/s1.yaml": "id: s1\ntitle: A source\n",
            "sources/s2.yaml": "id: [unclosed\n",
            "debate.yaml": "contested:\n  - claim: n1\n    notes: [n2]\n",
        },
    )
    (project / "notes/n4.md").write_bytes(b"---\nid: n4\n---\n\xe9\n")
    write_files(tmp_path / ".zettelkasten/broken", {"notes/b1.md": NOTE.format(id="b1"), "debate.yaml": "- [\n"})
    result = ZettelkastenAdapter(tmp_path / ".zettelkasten", None, {}, tmp_path).load()
    assert result.files_read == 5  # n1, n2, s1, b1 and lab's debate map
    assert set(result.skipped) == {
        Skipped(".zettelkasten/lab/notes/n3.md", "a duplicate id"),
        Skipped(".zettelkasten/lab/notes/n4.md", "not UTF-8"),
        Skipped(".zettelkasten/lab/sources/s2.yaml", "broken YAML"),
        Skipped(".zettelkasten/broken/debate.yaml", "broken YAML"),
    }


def test_a_project_folder_whose_name_is_no_address_is_skipped_whole(tmp_path: Path) -> None:
    write_files(tmp_path / ".zettelkasten/has space", {"notes/n1.md": NOTE.format(id="n1")})
    result = ZettelkastenAdapter(tmp_path / ".zettelkasten", None, {}, tmp_path).load()
    assert (result.files_read, result.skipped) == (
        0,
        (Skipped(".zettelkasten/has space", "an id that is not an address"),),
    )


def test_the_runs_store_counts_each_run_record_and_names_each_run_it_dropped(tmp_path: Path) -> None:
    write_files(
        tmp_path / "runs",
        {
            "run-1/run.yaml": "id: run-1\ntitle: One\n",
            "run-2/run.yaml": "id: run-1\ntitle: Again\n",  # run-1's id again
            "run-3/run.yaml": "id: [unclosed\n",
            "run-4/notes.txt": "no record here\n",
        },
    )
    result = RunsAdapter(tmp_path / "runs", tmp_path).load()
    assert result.files_read == 1
    assert set(result.skipped) == {
        Skipped("runs/run-2/run.yaml", "a duplicate id"),
        Skipped("runs/run-3/run.yaml", "broken YAML"),
        Skipped("runs/run-4/run.yaml", "no record file"),
    }
