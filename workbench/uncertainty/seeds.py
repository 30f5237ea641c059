"""A metric over runs that differ only in their seed: mean ± standard deviation, with n."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, slots=True)
class AcrossSeeds:
    mean: float
    sd: float  # sample standard deviation (ddof = 1); NaN with fewer than two seeds
    n: int  # seeds with a value
    n_dropped: int = 0  # seeds whose value was NaN

    def format(self, digits: int = 3) -> str:
        """'0.512 ± 0.013 (n = 5)'; the mean alone, with its n, where there is no spread to give."""
        if math.isnan(self.sd):
            return f"{self.mean:.{digits}f} (n = {self.n})"
        return f"{self.mean:.{digits}f} ± {self.sd:.{digits}f} (n = {self.n})"


def across_seeds(values: Sequence[float] | np.ndarray) -> AcrossSeeds:
    """Mean and sample standard deviation (ddof = 1: the seeds are a sample of the seeds one could
    have run) of one value per seed; NaN values left out and counted."""
    array = np.asarray(values, dtype=np.float64).reshape(-1)
    kept = array[~np.isnan(array)]
    mean = float(kept.mean()) if len(kept) else float("nan")
    sd = float(kept.std(ddof=1)) if len(kept) >= 2 else float("nan")
    return AcrossSeeds(mean, sd, len(kept), len(array) - len(kept))
