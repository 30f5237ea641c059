"""Fixtures of the masked-LM tests.

`tiny_bert` / `tiny_roberta`: untrained two-layer models with real tokenizers (MiniLM's
WordPiece; a byte-level BPE learned from a few Swedish PUD sentences; tests/tiny_models.py),
built in seconds, for mechanics: mask positions, cropping, piece tables, batching.
Behaviour that needs real words uses `offline_en` / `offline_sv` (tests/conftest.py): the
trained offline test MLMs, built once by .ci/steps/10-offline-mlm.sh and cached.
"""

from __future__ import annotations

import pytest
from tiny_models import build_tiny_bert, build_tiny_roberta


@pytest.fixture(scope="session")
def tiny_bert(tmp_path_factory):
    return build_tiny_bert(tmp_path_factory.mktemp("tiny-bert"))


@pytest.fixture(scope="session")
def tiny_roberta(tmp_path_factory):
    return build_tiny_roberta(tmp_path_factory.mktemp("tiny-roberta"), "sv")

