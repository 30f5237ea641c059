"""Fixtures of the masked-LM tests live in tests/conftest.py.

Mechanics (mask positions, cropping, piece tables, batching) use `tiny_bert` and
`tiny_roberta_sv`: untrained two-layer models with real tokenizers (MiniLM's WordPiece; a
byte-level BPE learned from a few Swedish PUD sentences), built in seconds. Behaviour that
needs real words uses `offline_en` / `offline_sv`: the trained offline test MLMs, built once
by .ci/steps/10-offline-mlm.sh and cached.
"""
