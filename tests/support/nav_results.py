"""Navigate results built field by field, for rendering tests (the same pydantic models the engine returns)."""

from __future__ import annotations

from typing import Any

from synapse_server.navigation.surfaces import NavigateResult

FLAGS_OFF = {
    "stale": False,
    "unresolved": False,
    "refuted": False,
    "extrapolation": False,
    "contested": False,
    "outdated": False,
}
MODEL = {"provider": "extractive", "id": "extractive-v1 (offline restatement navigator, not an LLM)"}
TELEMETRY = {"hops": 1, "renavigations": 0, "parse_repairs": 0, "tokens_spent": 4901, "loop_break": ""}


def claim(cid: str, text: str, *, premises: tuple[str, ...] = (), cites: tuple[str, ...] = (), **flags: bool) -> dict:
    return {
        "id": cid,
        "text": text,
        "inference_form": "conjunction" if premises else "restatement",
        "premise_claim_ids": list(premises),
        "status": "grounded",
        "flags": {**FLAGS_OFF, **flags},
        "citation_addresses": list(cites),
    }


def answer(
    text: str = "Sharpe fell from 1.4 to 1.1.",
    *,
    disclosure: str | None = None,
    citation_changes: tuple[dict[str, Any], ...] = (),
    **extra: Any,
) -> NavigateResult:
    """A grounded answer: conclusion c1 built from premises c2 and c3, each citing one address."""
    claims = [
        claim("c1", text, premises=("c2", "c3")),
        claim("c2", "The baseline Sharpe was 1.4.", cites=("mem:tree:expe-0a1b2c3d",)),
        claim("c3", "At 8 bps the Sharpe was 1.1.", cites=("zk:research:20260505-0945-sharpe-ratio",), stale=True),
    ]
    citations = [
        {
            "address": "mem:tree:expe-0a1b2c3d",
            "claim_ids": ["c2"],
            "status": "grounded",
            "outdated": False,
            "title": "Baseline backtest",
            "store": "mem",
            "quotes": ["The baseline Sharpe was 1.4."],
        },
        {
            "address": "zk:research:20260505-0945-sharpe-ratio",
            "claim_ids": ["c3"],
            "status": "grounded",
            "outdated": False,
            "title": "Sharpe ratio after costs",
            "store": "zk",
            "quotes": [],
        },
    ]
    outdated = disclosure is not None
    for row, changes in zip(citations, citation_changes, strict=False):
        row.update(changes)
    values: dict[str, Any] = {
        "verdict": "answer",
        "status": "grounded",
        "reasons": [],
        "halted_reason": "answer",
        "conclusion": "c1",
        "outdated": outdated,
        "detail": "answer licensed by verified cited claims",
        "answer_surface": {
            "text": text,
            "conclusion_claim_id": "c1",
            "inference_form": "conjunction",
            "status": "grounded",
            "premise_claim_ids": ["c2", "c3"],
            "citations": citations,
            "outdated": outdated,
            "disclosure": disclosure,
        },
        "trace_surface": {
            "verdict": "answer",
            "status": "grounded",
            "conclusion_claim_id": "c1",
            "claims": claims,
            "citations": [
                {"address": c["address"], "claim_ids": c["claim_ids"], "status": "grounded", "flags": FLAGS_OFF}
                for c in citations
            ],
            "assertions": [{"text": text, "claim_id": "c1"}],
            "disclosures": [disclosure] if disclosure else [],
            "abstention": None,
            "telemetry": TELEMETRY,
        },
        "envelope": "node n1 SOURCE BODY THAT MUST NEVER BE SHOWN",
        "hops": 1,
        "renavigations": 0,
        "tokens_spent": 4901,
        "loop_break": "",
        "model": MODEL,
    }
    values.update(extra)
    return NavigateResult.model_validate(values)


def abstention(
    reasons: tuple[str, ...] = ("false-premise",), detail: str = "a verifier refuted a cited ground"
) -> NavigateResult:
    refuted = {**FLAGS_OFF, "refuted": True}
    return NavigateResult.model_validate(
        {
            "verdict": "abstain",
            "status": None,
            "reasons": list(reasons),
            "halted_reason": "abstain",
            "conclusion": "c1",
            "outdated": False,
            "detail": detail,
            "answer_surface": None,
            "trace_surface": {
                "verdict": "abstain",
                "status": None,
                "conclusion_claim_id": "c1",
                "claims": [claim("c1", "The breakeven cost is 10 bps.", cites=("zk:research:breakeven",))],
                "citations": [
                    {"address": "zk:research:breakeven", "claim_ids": ["c1"], "status": "inferred", "flags": refuted}
                ],
                "assertions": [],
                "disclosures": [],
                "abstention": {"reasons": list(reasons), "detail": detail},
                "telemetry": {**TELEMETRY, "renavigations": 1},
            },
            "envelope": "node n1 SOURCE BODY THAT MUST NEVER BE SHOWN",
            "hops": 1,
            "renavigations": 1,
            "tokens_spent": 8755,
            "loop_break": "",
            "model": MODEL,
        }
    )
