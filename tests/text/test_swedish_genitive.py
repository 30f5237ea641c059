"""The Swedish genitive rule (workbench.text.swedish_genitive), by hand from Språkrådet's rule."""

from __future__ import annotations

import pytest

from workbench.text.swedish_genitive import genitive


@pytest.mark.parametrize("base, expected", [
    ("Eva", "Evas"),                    # the plain -s
    ("Anna Berg", "Anna Bergs"),        # only the last word of the phrase
    ("Lars", "Lars"),                   # ends in s: nothing added
    ("Max", "Max"),                     # ends in x
    ("Inez", "Inez"),                   # ends in z
    ("MARCUS", "MARCUS"),               # the rule ignores case
    ("Evas", "Evas"),                   # already in the genitive: not doubled
    ("DPP:s", "DPP:s"),                 # an abbreviation already in the genitive
    ("BBC", "BBC:s"),                   # an abbreviation in capitals takes a colon
    ("Karl XII", "Karl XII:s"),         # so does a regnal number
    ("G7", "G7:s"),                     # and a word ending in a digit
    ("Jr.", "Jr."),                     # ends in punctuation: left as it is
    ("Eva ", "Evas "),                  # trailing white space stays after the s
    ("", ""),
])
def test_genitive(base, expected):
    assert genitive(base) == expected
