"""The README's table of real action summaries is what the actions return today (dev/readme_examples.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from dev import readme_examples


def test_the_readme_quotes_the_summaries_the_actions_return_on_the_demo(capsys: pytest.CaptureFixture[str]) -> None:
    code = readme_examples.main(["--check"])
    assert code == 0, capsys.readouterr().out  # the diff, and the command that fixes it


def test_a_stale_readme_fails_the_check_and_names_the_fix(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    readme = tmp_path / "README.md"
    stale = readme_examples.README.read_text(encoding="utf-8").replace("72 cells", "70 cells")
    readme.write_text(stale, encoding="utf-8")
    assert readme_examples.main(["--check", "--readme", str(readme)]) == 1
    assert "python -m dev.readme_examples" in capsys.readouterr().out and readme.read_text(encoding="utf-8") == stale


def test_the_rewrite_replaces_only_the_text_between_the_markers() -> None:
    before = f"intro\n{readme_examples.BEGIN}\nold table\n{readme_examples.END}\nrest\n"
    after = readme_examples.regenerated(before, "new table")
    assert after == f"intro\n{readme_examples.BEGIN}\nnew table\n{readme_examples.END}\nrest\n"
    with pytest.raises(ValueError, match="actions-table"):
        readme_examples.regenerated("no markers here", "new table")


def test_the_readme_still_opens_with_the_two_set_up_commands() -> None:
    text = readme_examples.README.read_text(encoding="utf-8")
    assert text.index("<!-- demo-command -->") < text.index("<!-- test-command -->") < text.index(readme_examples.BEGIN)
