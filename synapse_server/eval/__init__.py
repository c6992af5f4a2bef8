"""The evaluation harness: does connection expansion help retrieval, and are the typed edges right?

``python -m synapse_server.eval --root DIR [--queries FILE]`` compares search
with and without 1-hop overlay expansion on a labelled query set (recall@k and
MRR for both) and prints a deterministic sample of typed edges with their
evidence for a human to judge. See :mod:`synapse_server.eval.harness`.
"""

from synapse_server.eval.harness import EvalReport, Figures, QueryScore, SpotCheckEdge
from synapse_server.eval.queries import LabelledQuery, QuerySet, load_queries
from synapse_server.eval.run import format_report, run_eval

__all__ = [
    "EvalReport",
    "Figures",
    "LabelledQuery",
    "QueryScore",
    "QuerySet",
    "SpotCheckEdge",
    "format_report",
    "load_queries",
    "run_eval",
]
