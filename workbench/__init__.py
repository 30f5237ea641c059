"""Pseudonym Workbench: generate and evaluate replacements for personal-information spans."""

__version__ = "0.1.0"
