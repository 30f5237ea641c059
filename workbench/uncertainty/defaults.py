"""The uncertainty defaults, one home each (docs/metrics.md, "Uncertainty").

RESAMPLES: bootstrap resamples for a report's intervals and paired bootstraps (sacrebleu's
paired_bs default too); the Monte Carlo error of a 95 % percentile endpoint at 1,000 is
about 0.5 % of the interval's width, below what a table prints.
AR_TRIALS: approximate-randomisation trials (sacrebleu's default): the smallest p-value it can
give is 1/(AR_TRIALS + 1), small enough for Holm over a few dozen comparisons.
SEED: the seed every draw starts from unless the caller gives one (the project's usual 13).
LEVEL: the interval's coverage.
"""

from __future__ import annotations

RESAMPLES = 1000
AR_TRIALS = 10_000
SEED = 13
LEVEL = 0.95
ALPHA = 0.05  # the significance level for "not significantly different from the best"
# Bumped whenever a change would move a cached interval or p-value (draws, quantile rule, BCa).
VERSION = 1
