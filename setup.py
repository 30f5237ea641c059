"""Only the package list lives here; all other metadata is in pyproject.toml.

workbench.* is discovered as usual; the adapters/ folder is mapped to workbench.adapters
(see pyproject.toml) and its sub-packages are added under that name.
"""

from setuptools import find_packages, setup

setup(packages=find_packages(include=["workbench", "workbench.*"])
      + ["workbench.adapters"] + [f"workbench.adapters.{p}" for p in find_packages("adapters")])
