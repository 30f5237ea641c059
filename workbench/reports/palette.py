"""One colour per generator, the same in every report figure and on the dashboard.

A colour depends on the generator's name only, never on which runs a report or page shows,
so `fill-mask` is the same green in two reports over different runs and on the dashboard.
The known generators have fixed colours: the registry's generators in registry order take
matplotlib's tab10 (the colours readers know from most papers), the reference
anonymisations (workbench.exchange.reference) take dark, muted ones. Any other name (an imported
system, a generator added later) gets a colour from a second list, picked by a CRC-32 of its
name: deterministic across processes and machines (Python's hash() is salted per process).

Variants of one generator (+UPOS, +consistent, another model or seed) share its colour; the
run's name beside each bar or box tells them apart. The Original rows (the corpus's own
text, no run) are light grey.
"""

from __future__ import annotations

import zlib

ORIGINAL_COLOUR = "#bdbdbd"  # the Original pseudo-rows (003 Table 2 / Figure 1)

# The registry's order (workbench.generator_contract.registry), written out so listing colours
# imports nothing; tests/metrics/test_palette.py checks that every registered generator has one.
KNOWN = {
    "random": "#1f77b4",
    "upos": "#ff7f0e",
    "fill-mask": "#2ca02c",
    "ns3": "#d62728",
    "nad": "#9467bd",
    "mtc": "#8c564b",
    "ss-mtc": "#e377c2",
    "ollama": "#bcbd22",
    "surrogate": "#17becf",
    "intact": "#393b79",
    # Reference anonymisations (`workbench reference --kind`): dark and muted, so they read as
    # baselines beside the generators.
    "original": "#252525",
    "suppress": "#843c39",
    "label": "#637939",
    "label-numbered": "#7b4173",
}

# For names not in KNOWN: tab20b/tab20c colours unlike the ones above and unlike the grey.
FALLBACK = ("#5254a3", "#6b6ecf", "#8ca252", "#b5cf6b", "#bd9e39", "#e7ba52", "#ad494a", "#d6616b",
            "#a55194", "#ce6dbd", "#3182bd", "#e6550d", "#31a354", "#756bb1", "#fd8d3c", "#74c476")


def generator_colour(generator: str) -> str:
    """The colour of a generator, as '#rrggbb'."""
    name = str(generator)
    if name in KNOWN:
        return KNOWN[name]
    return FALLBACK[zlib.crc32(name.encode("utf-8")) % len(FALLBACK)]
