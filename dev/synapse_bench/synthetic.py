"""A synthetic workspace of any size, written to disk in the real store formats (DESIGN §2).

``generate(root, nodes=10_000, seed=0)`` writes a memory tree
(``.memory/tree/<id>.md``), zettelkasten projects (``.zettelkasten/<project>/notes``
and ``sources``, some sources with a cached full text and its sha256 so quotes
can be checked) and ``.synapse/config.yaml``. The node count (entries + notes +
sources) is exact and everything is a pure function of ``(nodes, seed)``, so a
benchmark run on 1k, 10k or 100k nodes is repeatable across machines.

The text is built from a trading-research vocabulary sampled with Zipf weights
plus a long tail of rarer jargon, so BM25 sees realistic term statistics: a few
words in most docs, most words in few. It reads like notes, not like prose.

Run: ``python -m dev.synapse_bench.synthetic OUT_DIR --nodes 10k [--seed 0]``.
"""

from __future__ import annotations

import argparse
import hashlib
import itertools
import random
import sys
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import yaml

PROJECTS = ("research", "methods", "markets")
MEMORY_SHARE = 0.4
SOURCE_SHARE = 0.05  # of the zettelkasten nodes


def _words(text: str) -> list[str]:
    return text.split()


_NOUNS = _words("""
cost costs spread slippage turnover commission fee impact liquidity volume order fill execution broker venue
return returns sharpe ratio drawdown volatility variance beta alpha factor premium momentum value carry quality size
backtest simulation sample window horizon rebalance portfolio position weight leverage exposure hedge risk budget
signal forecast model estimate parameter regression residual correlation covariance shrinkage benchmark universe
equity bond currency future option commodity index sector stock market regime crash rally trend reversal yield
dataset vendor price close split dividend survivorship bias lookahead overfitting validation decision experiment
""")
_VERBS = _words("""
reduces increases lowers raises explains predicts dominates offsets amplifies dampens drives erodes improves
degrades stabilises inflates biases confirms contradicts replicates underestimates overstates tracks
""")
_ADJECTIVES = _words("""
higher lower net gross annualised realised implied daily weekly monthly quarterly cross-sectional time-series
out-of-sample in-sample robust fragile persistent transient significant marginal large small liquid illiquid
""")
_PREFIXES = ("alpha", "beta", "gamma", "delta", "kappa", "sigma", "omega", "theta", "zeta", "lambda")
_SUFFIXES = ("flow", "tilt", "skew", "drift", "gap", "lag", "roll", "basis", "curve", "band", "mix", "score")
_SYLLABLES = ("ka", "ro", "mi", "tu", "ve", "lo", "sa", "ne", "di", "po", "ga", "ze", "bu", "fi")
# A long tail of rare jargon (factor names, tickers, dataset codes) so most words sit in few docs.
_TAIL = (
    [f"{p}{s}" for p, s in itertools.product(_PREFIXES, _SUFFIXES)]
    + [f"{a}{b}" for a, b in itertools.product("ABCDEFGHIJKLMNOPQRSTUVWXYZ", repeat=2)]
    + ["".join(t) for t in itertools.product(_SYLLABLES, repeat=3)]
)
_VOCAB = _NOUNS + _TAIL
_WEIGHTS = [1.0 / (rank + 1) ** 1.05 for rank in range(len(_VOCAB))]

MEMORY_KINDS = ("decision", "experiment", "checkpoint", "anti-pattern", "note", "annotation")
NOTE_TYPES = (
    "claim",
    "claim",
    "claim",
    "finding",
    "finding",
    "method",
    "quote",
    "concept",
    "concept",
    "question",
    "synthesis",
)
_EPOCH = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class Summary:
    """What was written: node counts per store and the project names."""

    memory: int
    notes: int
    sources: int
    projects: tuple[str, ...]

    @property
    def nodes(self) -> int:
        return self.memory + self.notes + self.sources


def parse_size(text: str) -> int:
    """``1k`` -> 1000, ``100k`` -> 100000, ``2m`` -> 2000000, ``250`` -> 250."""
    value = text.strip().lower()
    scale = {"k": 1_000, "m": 1_000_000}.get(value[-1:], 1)
    return int(float(value[:-1] if scale > 1 else value) * scale)


def generate(root: Path, nodes: int, seed: int = 0) -> Summary:
    """Write a workspace of exactly ``nodes`` nodes under ``root`` (which should be empty or absent)."""
    if nodes < 10:
        raise ValueError("a synthetic workspace needs at least 10 nodes")
    rng = random.Random(seed)
    memory = max(3, round(nodes * MEMORY_SHARE))
    zk_total = nodes - memory
    sources = max(len(PROJECTS), round(zk_total * SOURCE_SHARE))
    notes = zk_total - sources
    (root / ".synapse").mkdir(parents=True, exist_ok=True)
    config = {"projects": list(PROJECTS), "memory": ".memory", "zettelkasten": ".zettelkasten", "cache": ".angelo"}
    _write(root / ".synapse" / "config.yaml", yaml.safe_dump(config, sort_keys=False))
    source_ids = _write_sources(root, rng, sources)
    note_ids = _write_notes(root, rng, notes, source_ids)
    _write_memory(root, rng, memory, note_ids)
    return Summary(memory, notes, sources, PROJECTS)


def sample_queries(count: int, seed: int = 1) -> list[str]:
    """``count`` search queries in the workspace's vocabulary: 2-4 words, drawn like the text (deterministic)."""
    rng = random.Random(seed)
    queries = []
    for _ in range(count):
        words = [_word(rng) for _ in range(rng.randint(2, 3))]
        if rng.random() < 0.4:
            words.insert(0, rng.choice(_ADJECTIVES))
        queries.append(" ".join(dict.fromkeys(words)))
    return queries


def _write_sources(root: Path, rng: random.Random, count: int) -> dict[str, list[tuple[str, str | None]]]:
    """project -> [(source id, a sentence of its cached text or None)]."""
    out: dict[str, list[tuple[str, str | None]]] = {p: [] for p in PROJECTS}
    for i in range(count):
        project = PROJECTS[i % len(PROJECTS)]
        ident = f"paper-{i:05d}"
        folder = root / ".zettelkasten" / project / "sources"
        record: dict[str, Any] = {
            "id": ident,
            "title": _title(rng).title(),
            "year": 1990 + rng.randrange(36),
            "authors": [f"Author {rng.randrange(500)}" for _ in range(rng.randint(1, 3))],
        }
        quote: str | None = None
        if i % 3 == 0:
            sentences = [_sentence(rng) for _ in range(rng.randint(8, 20))]
            text = " ".join(sentences) + "\n"
            _write(folder / "texts" / f"{ident}.txt", text)
            record["text"] = f"texts/{ident}.txt"
            record["sha256"] = hashlib.sha256(text.encode("utf-8")).hexdigest()
            quote = rng.choice(sentences)
        _write(folder / f"{ident}.yaml", yaml.safe_dump(record, sort_keys=False, allow_unicode=True))
        out[project].append((ident, quote))
    return out


def _write_notes(
    root: Path, rng: random.Random, count: int, sources: dict[str, list[tuple[str, str | None]]]
) -> list[str]:
    """Returns the notes' addresses (``zk:<project>:<id>``)."""
    addresses: list[str] = []
    by_project: dict[str, list[str]] = {p: [] for p in PROJECTS}
    for i in range(count):
        project = PROJECTS[rng.randrange(len(PROJECTS))]
        note_type = NOTE_TYPES[rng.randrange(len(NOTE_TYPES))]
        stamp = _EPOCH + timedelta(minutes=i)
        ident = f"{stamp:%Y%m%d-%H%M}-{note_type}"
        meta: dict[str, Any] = {"id": ident, "type": note_type, "title": _title(rng)}
        if note_type in ("claim", "finding"):
            meta["claim_strength"] = rng.choice(("strong", "moderate", "weak"))
            if rng.random() < 0.15:
                meta["cross"] = True
        pool = sources[project]
        if pool and note_type != "question":
            cited = [pool[rng.randrange(len(pool))] for _ in range(rng.randint(1, 2))]
            meta["citations"] = [_citation(rng, src, quote) for src, quote in dict(cited).items()]
        earlier = by_project[project]
        if earlier and rng.random() < 0.6:
            targets = sorted({earlier[rng.randrange(len(earlier))] for _ in range(rng.randint(1, 3))})
            meta["links"] = [
                {"to": t, "rel": rng.choice(("supports", "contradicts", "refines", "related"))} for t in targets
            ]
        if rng.random() < 0.2:
            meta["files"] = [f"models/{rng.choice(_NOUNS)}.py"]
        meta["tags"] = sorted({rng.choice(_NOUNS) for _ in range(rng.randint(1, 3))})
        body = _paragraphs(rng, 1, 3)
        _write(root / ".zettelkasten" / project / "notes" / f"{ident}.md", _front_matter(meta, body))
        earlier.append(ident)
        addresses.append(f"zk:{project}:{ident}")
    return addresses


def _write_memory(root: Path, rng: random.Random, count: int, notes: list[str]) -> None:
    """A root, plans (~2%), phases (~8%) and leaf entries hanging off phases and plans."""
    folder = root / ".memory" / "tree"
    plans: list[str] = []
    phases: list[str] = []
    leaves: list[str] = []
    for i in range(count):
        if i == 0:
            kind, parent = "root", None
        elif i == 1 or rng.random() < 0.02:
            kind, parent = "plan", "root-00000000"
        elif len(phases) < 1 or rng.random() < 0.08:
            kind, parent = "phase", plans[rng.randrange(len(plans))]
        else:
            kind = MEMORY_KINDS[rng.randrange(len(MEMORY_KINDS))]
            parent = phases[rng.randrange(len(phases))]
        ident = "root-00000000" if kind == "root" else f"{kind[:4]}-{i * 2654435761 % 2**32:08x}"
        created = _EPOCH + timedelta(hours=i)
        meta: dict[str, Any] = {
            "id": ident,
            "kind": kind,
            "title": _title(rng).capitalize(),
            "status": rng.choice(("active", "active", "done", "superseded", "abandoned")),
        }
        if parent is not None:
            meta["parent"] = parent
        meta["created"] = created.strftime("%Y-%m-%dT%H:%M:%SZ")
        if kind in ("decision", "experiment", "checkpoint") and rng.random() < 0.5:
            meta["pins"] = [f"models/{rng.choice(_NOUNS)}.py@{rng.getrandbits(28):07x}"]
        if notes and rng.random() < 0.3:
            meta["cites"] = sorted({notes[rng.randrange(len(notes))] for _ in range(rng.randint(1, 2))})
        if leaves and rng.random() < 0.2:
            meta["related"] = [leaves[rng.randrange(len(leaves))]]
        meta["tags"] = sorted({rng.choice(_NOUNS) for _ in range(rng.randint(1, 3))})
        _write(folder / f"{ident}.md", _front_matter(meta, _paragraphs(rng, 1, 4)))
        if kind != "root":
            {"plan": plans, "phase": phases}.get(kind, leaves).append(ident)


def _citation(rng: random.Random, source: str, quote: str | None) -> dict[str, str]:
    cite = {"source": source, "locator": f"p{rng.randint(1, 40)}"}
    if quote is not None:
        cite["quote"] = quote
    return cite


def _word(rng: random.Random) -> str:
    return rng.choices(_VOCAB, _WEIGHTS)[0]


def _title(rng: random.Random) -> str:
    return f"{rng.choice(_ADJECTIVES)} {_word(rng)} {rng.choice(_VERBS)} {_word(rng)}"


def _sentence(rng: random.Random) -> str:
    """One note-like sentence, sometimes with a figure (bps, %, a before/after pair)."""
    parts = [
        rng.choice(_ADJECTIVES),
        _word(rng),
        _word(rng),
        rng.choice(_VERBS),
        "the",
        rng.choice(_ADJECTIVES),
        _word(rng),
    ]
    roll = rng.random()
    if roll < 0.2:
        parts += ["by", f"{rng.randint(1, 40)} bps"]
    elif roll < 0.35:
        parts += ["from", f"{rng.uniform(0.2, 2.5):.1f}", "to", f"{rng.uniform(0.2, 2.5):.1f}"]
    elif roll < 0.5:
        parts += ["in", "the", rng.choice(("backtest", "sample", "live", "holdout")), "after", _word(rng)]
    elif roll < 0.6:
        parts += ["by", f"{rng.randint(1, 60)}%"]
    text = " ".join(parts)
    return text[0].upper() + text[1:] + "."


def _paragraphs(rng: random.Random, low: int, high: int) -> str:
    paragraphs = []
    for _ in range(rng.randint(low, high)):
        if rng.random() < 0.2:
            paragraphs.append("\n".join(f"- {_sentence(rng)}" for _ in range(rng.randint(2, 4))))
        else:
            paragraphs.append(" ".join(_sentence(rng) for _ in range(rng.randint(2, 5))))
    return "\n\n".join(paragraphs)


def _front_matter(meta: dict[str, Any], body: str) -> str:
    head = yaml.safe_dump(meta, sort_keys=False, allow_unicode=True, default_flow_style=None, width=1000)
    return f"---\n{head}---\n\n{body}\n"


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("out", type=Path, help="directory to write the workspace into")
    parser.add_argument("--nodes", default="1k", help="total nodes: 1k, 10k, 100k or a number")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    summary = generate(args.out, parse_size(args.nodes), args.seed)
    print(
        f"{args.out}: {summary.nodes} nodes ({summary.memory} memory, {summary.notes} notes, {summary.sources} sources)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
