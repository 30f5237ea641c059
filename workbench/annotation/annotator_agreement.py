"""Inter-annotator agreement over error tags: Cohen's kappa per pair, Fleiss' kappa, confusion.

An LLM judge (annotator `judge:<model>`, workbench.annotation.judge) is measured against the
people, pair by pair (judge_pairs); the people's own pairs and Fleiss' kappa leave it out, so
adding a judge never changes the agreement between people.

All are pure functions of a wide frame: one row per annotated item (run, document, span),
one column per annotator, the tag as value (missing where that annotator did not tag
the item). Kappa ranges over [-1, 1]: 1 perfect agreement, 0 what chance gives, below 0
worse than chance; higher is better. Where chance agreement is already 1 (everyone used
one and the same tag on every item) kappa is undefined and returned as NaN, as
scikit-learn does.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from itertools import combinations

import pandas as pd

ITEM = ["run_id", "doc_id", "span_index"]


def wide_tags(long: pd.DataFrame, annotators: Sequence[str] | None = None) -> pd.DataFrame:
    """Long frame (ITEM + annotator + tag) → items × annotators."""
    if long.empty:
        return pd.DataFrame(columns=list(annotators or []))
    wide = long.pivot_table(index=ITEM, columns="annotator", values="tag", aggfunc="first")
    wide.columns.name = None
    if annotators is not None:
        wide = wide.reindex(columns=list(annotators))
    return wide


def cohen_kappa(a: Sequence[str], b: Sequence[str]) -> float:
    """Cohen (1960): (p_o - p_e) / (1 - p_e) for two annotators over the same items."""
    if len(a) != len(b):
        raise ValueError("both annotators must tag the same items")
    n = len(a)
    if n == 0:
        return math.nan
    p_o = sum(x == y for x, y in zip(a, b)) / n
    ca, cb = Counter(a), Counter(b)
    p_e = sum(ca[k] * cb[k] for k in ca) / (n * n)
    return math.nan if p_e == 1 else (p_o - p_e) / (1 - p_e)


def fleiss_kappa(rows: Sequence[Sequence[str]]) -> float:
    """Fleiss (1971) for m >= 2 annotators who all tagged every item (rows: one tag per annotator)."""
    if not rows:
        return math.nan
    m = len(rows[0])
    if m < 2 or any(len(r) != m for r in rows):
        raise ValueError("Fleiss' kappa needs the same number (>= 2) of tags on every item")
    n_items = len(rows)
    totals: Counter = Counter()
    p_bar = 0.0
    for r in rows:
        counts = Counter(r)
        totals.update(counts)
        p_bar += (sum(c * c for c in counts.values()) - m) / (m * (m - 1))
    p_bar /= n_items
    p_e = sum((c / (n_items * m)) ** 2 for c in totals.values())
    return math.nan if p_e == 1 else (p_bar - p_e) / (1 - p_e)


@dataclass(frozen=True, slots=True)
class PairAgreement:
    a: str
    b: str
    n_items: int  # items both tagged
    observed: float  # share of those with the same tag, in [0, 1]
    kappa: float


def pair_agreement(wide: pd.DataFrame, a: str, b: str) -> PairAgreement:
    """Agreement of annotators a and b over the items both tagged."""
    both = wide[[a, b]].dropna()
    x, y = both[a].tolist(), both[b].tolist()
    observed = sum(p == q for p, q in zip(x, y)) / len(x) if x else math.nan
    return PairAgreement(a, b, len(x), observed, cohen_kappa(x, y))


def pairwise(wide: pd.DataFrame) -> list[PairAgreement]:
    return [pair_agreement(wide, a, b) for a, b in combinations(list(wide.columns), 2)]


def split_judges(names: Sequence[str]) -> tuple[list[str], list[str]]:
    """(people, LLM judges) among annotator names (a judge is `judge:<model>`, workbench.annotation.judge)."""
    from workbench.annotation.storage import is_judge
    return [n for n in names if not is_judge(n)], [n for n in names if is_judge(n)]


def judge_pairs(wide: pd.DataFrame) -> list[PairAgreement]:
    """Each LLM judge (a) against every person, then against every other judge (b)."""
    people, judges = split_judges(list(wide.columns))
    return [pair_agreement(wide, j, other) for n, j in enumerate(judges) for other in people + judges[n + 1:]]


def pairs_frame(pairs: Sequence[PairAgreement]) -> pd.DataFrame:
    return pd.DataFrame([{"annotator A": p.a, "annotator B": p.b, "items": p.n_items,
                          "observed agreement": p.observed, "Cohen's kappa": p.kappa} for p in pairs],
                        columns=["annotator A", "annotator B", "items", "observed agreement", "Cohen's kappa"])


def pairwise_frame(wide: pd.DataFrame) -> pd.DataFrame:
    return pairs_frame(pairwise(wide))


def fleiss_of(wide: pd.DataFrame) -> tuple[float, int]:
    """Fleiss' kappa over the items every annotator tagged, and how many those are."""
    complete = wide.dropna()
    if complete.shape[1] < 2:
        return math.nan, len(complete)
    return fleiss_kappa(complete.values.tolist()), len(complete)


def confusion(wide: pd.DataFrame, a: str, b: str, labels: Sequence[str]) -> pd.DataFrame:
    """Counts: rows = annotator a's tag, columns = annotator b's, over the items both tagged."""
    both = wide[[a, b]].dropna()
    table = pd.crosstab(pd.Categorical(both[a], categories=list(labels)),
                        pd.Categorical(both[b], categories=list(labels)), dropna=False)
    table.index = pd.Index(list(labels), name=f"{a} \\ {b}")
    table.columns = pd.Index(list(labels))
    return table


@dataclass(frozen=True, slots=True)
class AgreementSummary:
    pairs: list[PairAgreement]  # between people
    fleiss: float  # NaN when undefined; over the people only
    n_complete: int  # pseudonyms every person tagged (Fleiss' kappa is over these)
    n_annotators: int  # people
    judges: list[PairAgreement] = field(default_factory=list)  # each LLM judge against each annotator


def summarise(frame: pd.DataFrame, annotators: Sequence[str] | None = None) -> AgreementSummary:
    """Cohen's kappa per pair and Fleiss' kappa of a long annotation frame (`workbench annotations agreement`)."""
    if frame.empty:
        from workbench.infra.errors import WorkbenchError
        raise WorkbenchError("no annotations" + (f" by {', '.join(annotators)}" if annotators else "")
                             + " to compare; tag pseudonyms first (dashboard Annotate page, or "
                             "`workbench annotations import`)")
    wide = wide_tags(frame, annotators)
    people, _ = split_judges(list(wide.columns))
    fleiss, n = fleiss_of(wide[people])
    return AgreementSummary(pairwise(wide[people]), fleiss, n, len(people), judge_pairs(wide))
