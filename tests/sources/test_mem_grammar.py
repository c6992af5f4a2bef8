"""The memdsl grammar users write (0.4 and 0.9), read by our own parser: what each construct yields, and recovery."""

from __future__ import annotations

import pytest

from adapters.mem_parse import parse_mem


def test_module_and_use_lines_are_statements_and_each_declaration_knows_its_module() -> None:
    decls, errors = parse_mem(
        "# a header comment\nmodule projects.aurora\n\nuse User\nuse Project.Aurora\n\n"
        'fact a.b {\n  claim: "x"\n}\n\nmodule projects.other\nfact c.d {\n  claim: "y"\n}\n'
    )
    assert errors == []
    assert [(d.id, d.module, d.line) for d in decls] == [("a.b", "projects.aurora", 7), ("c.d", "projects.other", 12)]


def test_call_form_values_are_kept_verbatim_as_one_atom() -> None:
    (decl,), errors = parse_mem(
        'decision a.b {\n  scope: project("Aurora")\n  about: work("User.DayJob", "x) y")\n  as_of: 2026-06-20\n}\n'
    )
    assert errors == []
    assert decl.fields == {
        "scope": 'project("Aurora")',
        "about": 'work("User.DayJob", "x) y")',
        "as_of": "2026-06-20",
    }


def test_namespaced_kinds_and_nested_blocks_of_0_9_parse() -> None:
    (decl,), errors = parse_mem(
        "coding.project_rule git.no_force_push {\n"
        '  claim: "Never force-push the main branch."\n'
        "  access_policy {\n    readers: [developer, coding_agent]\n    export: internal\n  }\n"
        "  lifecycle { status: active }\n"
        '  relations { supersedes: "coding.project_rule:git.old" }\n'
        "}\n"
    )
    assert errors == [] and (decl.kind, decl.id) == ("coding.project_rule", "git.no_force_push")
    assert decl.fields["access_policy"] == {"readers": ["developer", "coding_agent"], "export": "internal"}
    assert decl.fields["lifecycle"] == {"status": "active"}
    assert decl.fields["relations"] == {"supersedes": "coding.project_rule:git.old"}


def test_strings_may_span_lines_and_keep_their_escapes_and_lines_stay_right_after_them() -> None:
    decls, errors = parse_mem(
        'fact a.b {\n  claim: "one\n  two \\"quoted\\" \\\\ end"\n}\nfact c.d {\n  x: [a b, [c]]\n}\n'
    )
    assert errors == []
    assert decls[0].fields["claim"] == 'one\n  two "quoted" \\ end'
    assert (decls[1].line, decls[1].fields["x"]) == (5, ["a", "b", ["c"]])


def test_text_between_declarations_is_one_error_and_costs_neither_neighbour() -> None:
    decls, errors = parse_mem('fact a.b {\n  claim: "x"\n}\nstray words here\nfact c.d {\n  claim: "y"\n}\n')
    assert [d.id for d in decls] == ["a.b", "c.d"]
    assert [(e.line, e.column, e.message) for e in errors] == [(4, 1, "unexpected 'stray' outside any declaration")]


def test_a_broken_header_costs_only_the_declaration_it_starts() -> None:
    text = 'fact a.b {\n  claim: "x"\n}\nfact broken header {\n  claim: "lost"\n}\nfact c.d { claim: "y" }\n'
    decls, errors = parse_mem(text)
    assert [d.id for d in decls] == ["a.b", "c.d"]
    assert [(e.line, e.column) for e in errors] == [(4, 1)]


@pytest.mark.parametrize(
    ("text", "line", "column"),
    [
        ("module\nfact a.b {}\n", 1, 1),  # a module line without a name
        ('fact a.b {\n  scope: project("Aurora"\n}\n', 2, 17),  # a call form not closed on its line
        ('fact a.b {\n  claim: "never closed\n}\n', 2, 10),
    ],
)
def test_each_broken_statement_is_one_positioned_error_and_the_next_declaration_still_reads(
    text: str, line: int, column: int
) -> None:
    decls, errors = parse_mem(text + 'fact ok.one { claim: "kept" }\n')
    assert [(e.line, e.column) for e in errors] == [(line, column)]
    assert decls[-1].id == "ok.one" and decls[-1].fields == {"claim": "kept"}


def test_an_indented_declaration_is_still_a_declaration() -> None:
    decls, errors = parse_mem('fact a.b {\n  claim: "x"\n}\n  fact c.d {\n    claim: "y"\n  }\n')
    assert errors == [] and [(d.id, d.line) for d in decls] == [("a.b", 1), ("c.d", 4)]
