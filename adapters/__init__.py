"""Generators, one per module, installed as workbench.adapters (see pyproject.toml)."""
