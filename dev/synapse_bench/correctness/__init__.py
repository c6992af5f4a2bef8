"""Answer correctness of the offline navigator on realistic decision records, not only its safety.

The canonical corpus checks that the engine never certifies what the evidence
does not say. It cannot see a true, pinned quote that does not answer the
question. This harness can: a fictional project's architecture decision records
(``data/adrs.yaml``, Nygard and MADR layouts) become a real git repository with
memory decisions pinned to it, and ``data/questions.yaml`` says, per question,
which sentences answer it (correct), which answer it in part (partial), or that
nothing may (a false premise or an absent topic). See docs/benchmark.md.
"""
