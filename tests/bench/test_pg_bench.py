"""The pure parts of the PostgreSQL benchmark: its REPORT.md section survives a perf rewrite and is replaced in place."""

from __future__ import annotations

from pathlib import Path

from dev.synapse_bench.pg_bench import BEGIN, END, keep_section, write_report


def test_a_perf_rewrite_keeps_the_postgres_section() -> None:
    previous = f"# old report\n\n{BEGIN}\npg figures\n{END}\n"
    kept = keep_section(previous, "# new report\n")
    assert kept.startswith("# new report\n") and f"{BEGIN}\npg figures\n{END}" in kept
    assert keep_section("# no section\n", "# new report\n") == "# new report\n"


def test_writing_the_section_replaces_it_in_place_or_appends_it(tmp_path: Path) -> None:
    report = tmp_path / "REPORT.md"
    report.write_text("# report\n\nbody\n", encoding="utf-8")
    write_report(report, f"{BEGIN}\nfirst\n{END}\n")
    write_report(report, f"{BEGIN}\nsecond\n{END}\n")
    text = report.read_text(encoding="utf-8")
    assert text.count(BEGIN) == 1 and "second" in text and "first" not in text and text.startswith("# report")
