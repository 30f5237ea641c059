"""Surrogates (paper 002 §3.2): shape-kept numbers, per-document date shifts, dictionary words.

    from workbench.adapters.surrogate import SurrogateMaker, load_table
    maker = SurrogateMaker(load_table(), seed=13, keep_gender=True)
    maker.from_original("Anna Berg", "PERSON", "en", "doc-1").text

The modules, one job each: table (the label -> kind table, table.toml), dictionaries (Faker
word draws), mapping (the per-document word mapping as a seeded function), dates (the
per-document shift, written back in the original's format), shapes (digits and letters
redrawn by class), numbers (number words), pieces (a span's letter/digit runs and case),
draws (seeded generators), spans (a whole span by its label's kind). The generator over
slots is workbench.adapters.surrogate.generator; docs/surrogates.md says what each kind does.
"""

from workbench.adapters.surrogate.spans import ORIGINAL_LEVEL, SHAPE_LEVEL, SpanSurrogate, SurrogateMaker
from workbench.adapters.surrogate.table import LabelRule, SurrogateTable, load_table

__all__ = ["ORIGINAL_LEVEL", "SHAPE_LEVEL", "LabelRule", "SpanSurrogate", "SurrogateMaker", "SurrogateTable",
           "load_table"]
