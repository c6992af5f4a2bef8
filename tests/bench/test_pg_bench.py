"""The harnesses' own REPORT.md sections survive a perf rewrite and are replaced in place."""

from __future__ import annotations

from pathlib import Path

from dev.synapse_bench import host_bench, pg_bench
from dev.synapse_bench.report_sections import SECTIONS, keep_sections, write_section


def test_a_perf_rewrite_keeps_every_harness_section_in_order() -> None:
    pg = f"{pg_bench.BEGIN}\npg figures\n{pg_bench.END}"
    host = f"{host_bench.BEGIN}\nhost figures\n{host_bench.END}"
    kept = keep_sections(f"# old report\n\n{pg}\n\n{host}\n", "# new report\n")
    assert kept.startswith("# new report\n") and kept.index(pg) < kept.index(host)
    assert keep_sections("# no section\n", "# new report\n") == "# new report\n"
    assert {(pg_bench.BEGIN, pg_bench.END), (host_bench.BEGIN, host_bench.END)} <= set(SECTIONS)


def test_writing_a_section_replaces_it_in_place_or_appends_it(tmp_path: Path) -> None:
    report = tmp_path / "REPORT.md"
    report.write_text("# report\n\nbody\n", encoding="utf-8")
    begin, end = pg_bench.BEGIN, pg_bench.END
    write_section(report, f"{begin}\nfirst\n{end}\n", begin, end)
    write_section(report, f"{begin}\nsecond\n{end}\n", begin, end)
    text = report.read_text(encoding="utf-8")
    assert text.count(begin) == 1 and "second" in text and "first" not in text and text.startswith("# report")
