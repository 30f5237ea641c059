"""Only the package list lives here; all other metadata is in pyproject.toml.

workbench.* is discovered as usual; the adapters/ folder is mapped to workbench.adapters
(see pyproject.toml) and its sub-packages are added under that name; the data folders
corpora/ and annotations/ are mapped to workbench.corpora and workbench.annotations.
"""

from setuptools import find_namespace_packages, find_packages, setup

# Namespace discovery: data folders (benchmark/suites/, dashboard/pages/) travel with the code.
setup(packages=find_namespace_packages(include=["workbench", "workbench.*"], exclude=["*.__pycache__"])
      + ["workbench.adapters"] + [f"workbench.adapters.{p}" for p in find_packages("adapters")]
      # Data folders mapped in pyproject.toml (package-dir); their files are package data.
      + ["workbench.corpora", "workbench.annotations"])
