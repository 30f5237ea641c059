"""Every number with its uncertainty (issue 40): bootstrap intervals over the unit a metric averages
(documents; spans clustered by document), paired tests between runs on the same corpus (paired
bootstrap, approximate randomisation), Holm / Benjamini–Hochberg corrections and the runs not
significantly different from the best, mean ± sd across seeds, and stable cache keys.
Pure numpy (scipy only in the tests); the defaults live in `defaults.py`. docs/metrics.md,
"Uncertainty", says which unit each kind of metric resamples and how each p-value is defined.
"""

from workbench.uncertainty.best import compare_with_best
from workbench.uncertainty.bootstrap import (
    DOCUMENT,
    SPAN_BY_DOCUMENT,
    Interval,
    aggregate_interval,
    document_interval,
    per_row,
    span_interval,
)
from workbench.uncertainty.cache_keys import interval_key, paired_key
from workbench.uncertainty.corrections import (
    BestMarks,
    adjust,
    benjamini_hochberg,
    holm,
    not_different_from_best,
)
from workbench.uncertainty.defaults import ALPHA, AR_TRIALS, LEVEL, RESAMPLES, SEED
from workbench.uncertainty.paired import PairedResult, approximate_randomisation, paired_bootstrap
from workbench.uncertainty.seeds import AcrossSeeds, across_seeds

__all__ = [
    "ALPHA", "AR_TRIALS", "DOCUMENT", "LEVEL", "RESAMPLES", "SEED", "SPAN_BY_DOCUMENT", "AcrossSeeds", "BestMarks",
    "Interval", "PairedResult", "across_seeds", "adjust", "aggregate_interval", "approximate_randomisation",
    "benjamini_hochberg", "compare_with_best", "document_interval", "holm", "interval_key",
    "not_different_from_best", "paired_bootstrap", "paired_key", "per_row", "span_interval",
]
