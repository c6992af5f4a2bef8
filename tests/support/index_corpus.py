"""A small labelled trading-research corpus shared by the index tests.

Fifteen short docs from a realistic practice/canon workspace and the query that
should find each labelled one first. Two queries pin one channel each: a
paraphrase sharing no word with its target (only meaning can find it) and a
bare decision id (only keywords can).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence

import numpy as np

from adapters.index import IndexDoc, TextEncoder

DOCS: tuple[IndexDoc, ...] = (
    IndexDoc(
        "mem:tree:deci-e17103e8",
        "memory",
        None,
        "decision",
        "Cost-model decision",
        "We charge 8 bps per side on every simulated fill. Costs are applied before computing the equity curve.",
    ),
    IndexDoc(
        "mem:tree:expe-9f8e7d6c",
        "memory",
        None,
        "experiment",
        "Backtest with doubled costs",
        "Raising assumed costs from 4 to 8 bps lowered the backtest Sharpe ratio from 1.4 to 1.1 in run-042.",
    ),
    IndexDoc(
        "zk:research:20260706-1832-claim",
        "zk",
        "research",
        "claim",
        "Higher costs reduce net returns",
        "Higher transaction costs reduce net returns of high-turnover strategies.",
    ),
    IndexDoc(
        "zk:research:20260701-0900-finding",
        "zk",
        "research",
        "finding",
        "Momentum premium",
        "Twelve-month minus one-month price momentum earns positive excess returns across equity markets.",
    ),
    IndexDoc(
        "zk:research:20260702-1100-finding",
        "zk",
        "research",
        "finding",
        "Momentum crashes",
        "Momentum portfolios suffer sudden severe drawdowns when markets rebound after a bear market.",
    ),
    IndexDoc(
        "mem:tree:deci-5b6c7d8e",
        "memory",
        None,
        "decision",
        "Volatility targeting",
        "Scale positions inversely to trailing 20-day realised volatility to keep portfolio risk stable.",
    ),
    IndexDoc(
        "zk:methods:20260510-0800-method",
        "zk",
        "methods",
        "method",
        "Walk-forward validation",
        "Fit parameters on a rolling in-sample window and evaluate on the next out-of-sample window to avoid"
        " look-ahead bias.",
    ),
    IndexDoc(
        "mem:tree:anti-0a1b2c3d",
        "memory",
        None,
        "anti-pattern",
        "Survivorship bias in the universe",
        "The stock universe only held companies that are still listed today; delisted names were missing.",
    ),
    IndexDoc(
        "zk:research:20260703-1400-concept",
        "zk",
        "research",
        "concept",
        "Market impact",
        "Large orders move prices against the trader; impact grows roughly with the square root of order size"
        " relative to daily volume.",
    ),
    IndexDoc(
        "mem:tree:note-11223344",
        "memory",
        None,
        "note",
        "Data vendor switch",
        "Moved daily price data to a new vendor; adjusted close handling for splits and dividends differs.",
    ),
    IndexDoc(
        "zk:research:20260704-0930-claim",
        "zk",
        "research",
        "claim",
        "Value and momentum diversify",
        "Value and momentum returns are negatively correlated, so combining them smooths performance.",
    ),
    IndexDoc(
        "mem:tree:chec-55667788",
        "memory",
        None,
        "checkpoint",
        "Rebalancing frequency",
        "Monthly rebalancing instead of daily cut turnover by 70% with little loss of gross return.",
    ),
    IndexDoc(
        "zk:methods:20260511-1000-quote",
        "zk",
        "methods",
        "quote",
        "Overfitting",
        "Testing many strategy variants on the same history inflates the best in-sample Sharpe ratio.",
    ),
    IndexDoc(
        "mem:tree:plan-1a2b3c4d",
        "memory",
        None,
        "plan",
        "Currency carry research plan",
        "Investigate FX carry: go long high-yield and short low-yield currencies, hedged for crash risk.",
    ),
    IndexDoc(
        "mem:tree:note-99aa88bb",
        "memory",
        None,
        "note",
        "Loader bug ticket",
        "Ticket XK-7731 tracks the timezone bug in the intraday bar loader.",
    ),
)

LABELLED: tuple[tuple[str, str], ...] = (
    ("transaction costs and net returns", "zk:research:20260706-1832-claim"),
    ("momentum crash after a bear market rebound", "zk:research:20260702-1100-finding"),
    ("avoid look-ahead bias with out-of-sample validation", "zk:methods:20260510-0800-method"),
    ("size positions by trailing realised volatility", "mem:tree:deci-5b6c7d8e"),
    ("bankrupt firms were absent from the dataset", "mem:tree:anti-0a1b2c3d"),  # meaning only: no shared word
    ("deci-e17103e8", "mem:tree:deci-e17103e8"),  # keywords only: an exact identifier
)
MEANING_ONLY = LABELLED[4]
KEYWORD_ONLY = LABELLED[5]


def by_address(address: str) -> IndexDoc:
    return next(d for d in DOCS if d.address == address)


class CountingEncoder:
    """Wraps a real encoder and records every text it is asked to embed."""

    def __init__(self, inner: TextEncoder) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.texts: list[str] = []

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        self.texts.extend(texts)
        return self.inner.encode(texts)


class HashEncoder:
    """A deterministic bag-of-words encoder for tests that need many processes but no model (64-d, unit length).

    It stands in for the third-party model only; ``zlib.crc32`` (not ``hash``) keeps vectors identical across
    processes.
    """

    model_id = "test/hash-bag-of-words"
    dimension = 64

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for i, text in enumerate(texts):
            for word in text.lower().split():
                out[i, zlib.crc32(word.encode("utf-8")) % self.dimension] += 1.0
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-9)


def generated_docs(n: int, salt: str = "") -> list[IndexDoc]:
    """``n`` distinct docs, each findable by its own keyword ``uniq<i>``."""
    words = ("costs", "momentum", "backtest", "sharpe", "turnover", "volatility", "carry", "value")
    return [
        IndexDoc(
            f"mem:tree:gen-{i:05d}",
            "memory",
            None,
            "note",
            f"Generated note {i}",
            f"uniq{i} {words[i % len(words)]} {words[(i * 3) % len(words)]} {salt}",
        )
        for i in range(n)
    ]


class WideHashEncoder(HashEncoder):
    """The same stand-in at 384 dimensions, the width the PostgreSQL backend's vector column holds."""

    model_id = "test/hash-bag-of-words-384"
    dimension = 384
