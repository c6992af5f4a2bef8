"""A claim's flags are read as typed attributes: a citation's flag is the claim's, its own flags are its own."""

from __future__ import annotations

from synapse_server.navigation.claims import CitationFinding, ClaimFinding
from synapse_server.navigation.projector import claim_flags


def _claim(*citations: CitationFinding, outdated: bool = False) -> ClaimFinding:
    return ClaimFinding(
        id="c1",
        form="deduction",
        text="t",
        premises=(),
        citations=citations,
        status="grounded",
        licensed=True,
        reasons=(),
        extrapolation=True,
        outdated=outdated,
    )


def test_a_flag_on_any_citation_is_a_flag_on_the_claim() -> None:
    plain = CitationFinding("n1", "mem:tree:a", "grounded", True)
    contested = CitationFinding("n2", "mem:tree:b", "grounded", True, contested=True, stale=True)
    claim = _claim(plain, contested, outdated=True)
    assert (claim.stale, claim.unresolved, claim.refuted, claim.contested) == (True, False, False, True)
    flags = claim_flags(claim)
    assert flags.model_dump() == {
        "stale": True,
        "unresolved": False,
        "refuted": False,
        "extrapolation": True,
        "contested": True,
        "outdated": True,
        "superseded": False,
    }


def test_a_claim_without_citations_has_no_citation_flags() -> None:
    claim = _claim()
    assert not (claim.stale or claim.unresolved or claim.refuted or claim.contested)
