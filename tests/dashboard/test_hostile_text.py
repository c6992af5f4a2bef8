"""Pages of the installed ``synapse dashboard`` over hostile text: bidirectional controls show as escapes."""

from __future__ import annotations

from pathlib import Path

from tests.support.live_dashboard import Session, live_dashboard

RLO = "\u202e"
NOTE_ID = "20260501-0900-invoice"
NOTE = f"""---
id: {NOTE_ID}
type: concept
title: Invoice {RLO}fdp.exe
---
Open the attachment {RLO}gpj.exe and \u2066isolated\u2069 text.
"""


def test_a_right_to_left_override_in_a_note_renders_as_a_visible_escape(demo: Path) -> None:
    (demo / ".zettelkasten" / "research" / "notes" / f"{NOTE_ID}.md").write_text(NOTE, encoding="utf-8")
    with live_dashboard(demo) as live:
        session = Session(live).login()
        note = session.get(f"/note?address=zk:research:{NOTE_ID}")
        found = session.get("/search?q=invoice+attachment")
    assert note.status == 200 and found.status == 200
    for page in (note.text, found.text):
        assert RLO not in page and "\u2066" not in page
        assert "Invoice \\u202efdp.exe" in page
    assert "attachment \\u202egpj.exe and \\u2066isolated\\u2069 text" in note.text
