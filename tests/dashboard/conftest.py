"""The dashboard tests' fixtures are shared with the annotation tests: tests/conftest.py (annotated_store)."""
