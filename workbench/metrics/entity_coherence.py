"""Entity-level coherence of a run (beyond 003; its SEM:CONTRADICTORY / MERGED-ENTITY errors).

Entities are the frame's entity_id within one document (mentions of one real-world
entity; formats without ids group identical mention texts, see workbench.loaders.entity_grouping).
Pseudonyms are compared case- and space-insensitively. A pseudonym reused by `--consistent`
(workbench.consistency) is a pick like any other here, so such a run scores 1.0 unless a
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

import re

import numpy as np
import pandas as pd

from workbench.metrics.base import HIGHER, LOWER, MetricInfo
from workbench.metrics.metric_frame import runs_of

FAMILY = "entities"
METRICS = (
    MetricInfo("consistency", "consist.", FAMILY, 0, 1, HIGHER, "beyond 003 (SEM:CONTRADICTORY)",
               "share of entities mentioned twice or more whose mentions all got one pseudonym"),
    MetricInfo("merged_entity_rate", "merged", FAMILY, 0, 1, LOWER, "beyond 003 (SEM:MERGED-ENTITY)",
               "share of entities whose pseudonym is also given to a different entity of the document"),
)


def _normal(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip().casefold()


def compute(frame: pd.DataFrame, context=None) -> pd.DataFrame:
    data = pd.DataFrame({"run_id": frame["run_id"], "doc_id": frame["doc_id"], "entity": frame["entity_id"],
                         "form": [None if f else _normal(p) for p, f in zip(frame["pseudonym"], frame["failed"])]})
    consistency, merged = {}, {}
    for run_id, run in data.groupby("run_id", sort=False):
        per_entity = run.groupby(["doc_id", "entity"], sort=False)["form"]
        sizes = per_entity.size()
        repeated = sizes[sizes >= 2].index
        if len(repeated):
            # nunique ignores None, so a FAILED mention is checked separately.
            ok = (per_entity.nunique(dropna=True) == 1) & (per_entity.count() == sizes)
            consistency[run_id] = float(ok.loc[repeated].mean())
        # Suppressed mentions (empty replacement) name no entity, so they merge none.
        named = run[run["form"].notna() & (run["form"] != "")]
        if len(named):
            owners = named.groupby(["doc_id", "form"], sort=False)["entity"].nunique()
            shared = owners[owners >= 2].index
            shared_rows = named.set_index(["doc_id", "form"]).index.isin(shared)
            entities = named[["doc_id", "entity"]].drop_duplicates()
            merged_entities = named.loc[shared_rows, ["doc_id", "entity"]].drop_duplicates()
            merged[run_id] = len(merged_entities) / len(entities)
    runs = runs_of(frame)
    return pd.DataFrame({"consistency": pd.Series(consistency, dtype=float),
                         "merged_entity_rate": pd.Series(merged, dtype=float)}).reindex(runs).astype(np.float64)
