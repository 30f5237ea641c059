"""Offline masked LMs for tests and benchmarks on a machine without a model hub.

Users run the paper's models (FacebookAI/roberta-large, AI-Sweden-Models/roberta-large-1160k);
the small models built here exist only so tests see real words (see docs/mlm.md).
"""
