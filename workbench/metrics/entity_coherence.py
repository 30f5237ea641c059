"""Entity-level coherence of a run (beyond 003; its SEM:CONTRADICTORY / MERGED-ENTITY errors).

Entities are the frame's entity_id within one document (mentions of one real-world
entity; formats without ids group identical mention texts, see workbench.loaders.entity_grouping).
Pseudonyms are compared case- and space-insensitively. A pseudonym reused by `--consistent`
(workbench.generation.consistency) is a pick like any other here, so such a run scores 1.0 unless a
mention FAILED; consistency is measured within documents (where a corpus's entity ids hold),
so a `--consistent corpus` run is scored as a `document` one is.
    consistency   of the entities mentioned at least twice, the share whose mentions all
                  got the same pseudonym (a FAILED mention breaks consistency)
    merged rate   of all entities with a pseudonym, the share that share a pseudonym with
                  a different entity of the same document (003's SEM:MERGED-ENTITY)
Suppression (an empty replacement) on purpose: it is one treatment like a pseudonym for
consistency (an entity whose mentions are all suppressed is consistent; suppressed in one
mention and named in another is not), but it names no entity, so suppressed mentions never
merge entities and an entity suppressed everywhere is left out of the merged rate (a fully
suppressed run has no merged rate: n/a).
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from workbench.metrics.base import HIGHER, LOWER, MetricInfo
from workbench.metrics.metric_frame import runs_of
from workbench.text.compare import normalise

FAMILY = "entities"
# Computed for the original spans too: their `original:<corpus>` rows (003 Table 2 / Figure 1).
DESCRIBES_ORIGINALS = True
METRICS = (
    MetricInfo("consistency", "consist.", FAMILY, 0, 1, HIGHER, "beyond 003 (SEM:CONTRADICTORY)",
               "share of entities mentioned twice or more whose mentions all got one pseudonym"),
    MetricInfo("merged_entity_rate", "merged", FAMILY, 0, 1, LOWER, "beyond 003 (SEM:MERGED-ENTITY)",
               "share of entities whose pseudonym is also given to a different entity of the document"),
)


def _normal(text: str) -> str:
    # Two pseudonyms are one when they read alike: NFC, case and white space ignored.
    return normalise(text, casefold=True)


def entity_values(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per entity of each run: run_id, doc_id, entity, label (of its first mention),
    consistency (1/0 for an entity mentioned twice or more, else NaN) and merged_entity_rate
    (1/0 for an entity with a named mention, else NaN). The means of these columns over a run's
    entities are the run's metrics, over one label's entities its per-label metrics."""
    data = pd.DataFrame({"run_id": frame["run_id"], "doc_id": frame["doc_id"], "entity": frame["entity_id"],
                         "label": frame["label"],
                         "form": [None if f else _normal(p) for p, f in zip(frame["pseudonym"], frame["failed"])]})
    parts = []
    for run_id, run in data.groupby("run_id", sort=False):
        per_entity = run.groupby(["doc_id", "entity"], sort=False)
        sizes = per_entity.size()
        # nunique ignores None, so a FAILED mention is checked separately.
        ok = (per_entity["form"].nunique(dropna=True) == 1) & (per_entity["form"].count() == sizes)
        entities = pd.DataFrame({"label": per_entity["label"].first(),
                                 "consistency": ok.astype(float).where(sizes >= 2)})
        # Suppressed mentions (empty replacement) name no entity, so they merge none.
        named = run[run["form"].notna() & (run["form"] != "")]
        owners = named.groupby(["doc_id", "form"], sort=False)["entity"].nunique()
        shared = owners[owners >= 2].index
        shared_rows = named.set_index(["doc_id", "form"]).index.isin(shared)
        merged = pd.Series(shared_rows, index=pd.MultiIndex.from_frame(named[["doc_id", "entity"]])) \
            .groupby(level=[0, 1], sort=False).any()
        entities["merged_entity_rate"] = merged.astype(float).reindex(entities.index)
        parts.append(entities.reset_index().assign(run_id=run_id))
    columns = ["run_id", "doc_id", "entity", "label", "consistency", "merged_entity_rate"]
    if not parts:
        return pd.DataFrame(columns=columns)
    return pd.concat(parts, ignore_index=True)[columns]


def compute(frame: pd.DataFrame, context=None) -> pd.DataFrame:
    values = entity_values(frame)
    means = values.groupby("run_id", sort=False)[["consistency", "merged_entity_rate"]].mean()
    return means.reindex(runs_of(frame)).astype(np.float64)
