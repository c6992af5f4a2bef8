"""Ids made from file names: percent-encoded in one place, parsed by the protocol as it stands, decoded exactly.

A path with a space (``My Notes/a b.md``) or a name outside ASCII
(``Über Notizen.md``) is a file a user keeps; its address must parse in a
claim, in a rendered node line and in ``get``, and must lead back to the file.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from adapters.code import CodeAdapter
from adapters.ids import BadAddress, check_id, decode_id, encode_id, path_address
from adapters.memory import MemoryAdapter
from adapters.zettelkasten import ZettelkastenAdapter
from memdsl import Answer, parse_address, parse_output, parse_render
from synapse_server.actions.deps import ServerSettings
from synapse_server.mcp.server import build_server
from tests.support.source_fixtures import commit_all, make_repo, write_files
from tests.support.store_builders import front_matter, write

NAMES = ["My Notes/a b.md", "notes/Über Notizen.md", "100% (draft).md", "tab\there.py", "quote's \"=`.md", "a:b{c},d"]


@pytest.mark.parametrize("name", NAMES)
def test_an_id_made_from_a_name_decodes_to_exactly_that_name(name: str) -> None:
    assert decode_id(encode_id(name)) == name


@given(st.text(min_size=1))
def test_every_non_empty_name_becomes_an_address_that_parses_and_decodes_back(name: str) -> None:
    address = parse_address(path_address("repo", "demo", name))
    assert (address.store, address.source, decode_id(address.id)) == ("repo", "demo", name)


def test_letters_outside_ascii_stay_as_written_and_only_what_an_address_cannot_hold_is_encoded() -> None:
    assert encode_id("notes/Über Notizen.md") == "notes/Über%20Notizen.md"
    assert encode_id("models/costs.py") == "models/costs.py"
    assert encode_id("100% (draft)") == "100%25%20%28draft%29"


def test_an_id_written_in_a_store_file_is_still_refused_when_it_holds_a_separator() -> None:
    with pytest.raises(BadAddress):
        check_id("a b")


def test_an_encoded_address_is_a_bare_ref_in_a_claim_and_an_address_in_a_rendered_node() -> None:
    address = path_address("repo", "demo", "My Notes/Über (a) b.md")
    output = parse_output(
        f"@memdsl.out/1\n@answer\nclaim c1 [restatement] cites {address} :: The notes say so.\nconclude c1\n"
    )
    assert isinstance(output.terminal, Answer) and output.terminal.claims[0].cites == (address,)
    render = parse_render(f"@memdsl/1\nnode n1 {address} file grounded\ntitle My Notes/Über (a) b.md\n")
    assert str(render.nodes[0].address) == address


def test_a_memory_pin_or_a_note_file_with_a_space_is_an_edge_to_the_listed_address_not_a_lost_store(
    tmp_path: Path,
) -> None:
    write(
        tmp_path,
        ".memory/tree/note-00000001.md",
        front_matter('id: note-00000001\nkind: note\ntitle: T\npins: ["My Notes/a b.md@abcdef1"]', "Pinned."),
    )
    write(tmp_path, ".memory/tree/note-00000002.md", front_matter("id: note-00000002\nkind: note\ntitle: U", "Other."))
    memory = {n.address: n for n in MemoryAdapter(tmp_path / ".memory", tmp_path, "demo").load().nodes}
    assert [e.dst for e in memory["mem:tree:note-00000001"].edges] == ["repo:demo:My%20Notes/a%20b.md"]
    assert "mem:tree:note-00000002" in memory
    write(
        tmp_path,
        ".zettelkasten/research/notes/n1.md",
        front_matter("id: n1\ntype: claim\ntitle: T\nfiles: [My Notes/a b.md]", "Claim."),
    )
    zk = ZettelkastenAdapter(tmp_path / ".zettelkasten", None, {}, tmp_path, "demo").load()
    (note,) = [n for n in zk.nodes if n.address == "zk:research:n1"]
    assert ("files", "repo:demo:My%20Notes/a%20b.md") in {(e.rel, e.dst) for e in note.edges}


def _payload(result: Any) -> dict[str, Any]:
    assert result.structured_content is not None, result
    return dict(result.structured_content)


@pytest.mark.anyio
async def test_get_reads_a_code_file_with_a_space_by_its_listed_address_its_typed_path_or_its_file_name(
    tmp_path: Path,
) -> None:
    from mcp import Client

    root = make_repo(tmp_path / "repo")
    write_files(root, {"My Notes/a b.txt": "hello from a spaced path\n", "Über Notizen.txt": "grüße\n"})
    commit_all(root, "files whose names hold spaces and umlauts")
    listed = {n.path: n.address for n in CodeAdapter(root, "repo").load().nodes}
    assert listed == {
        "My Notes/a b.txt": "repo:repo:My%20Notes/a%20b.txt",
        "Über Notizen.txt": "repo:repo:Über%20Notizen.txt",
    }
    server = build_server(ServerSettings(root=root, prespawn=False))
    async with Client(server) as client:
        for spelled in ("repo:repo:My%20Notes/a%20b.txt", "repo:repo:My Notes/a b.txt", "My Notes/a b.txt"):
            got = _payload(await client.call_tool("synapse", {"action": "get", "id": spelled}))
            assert (got["address"], got["path"], got["body"]) == (
                "repo:repo:My%20Notes/a%20b.txt",
                "My Notes/a b.txt",
                "hello from a spaced path\n",
            )
        for spelled in ("repo:repo:Über%20Notizen.txt", "repo:repo:Über Notizen.txt", "Über Notizen.txt"):
            umlaut = _payload(await client.call_tool("synapse", {"action": "get", "id": spelled}))
            assert (umlaut["path"], umlaut["body"]) == ("Über Notizen.txt", "grüße\n")
