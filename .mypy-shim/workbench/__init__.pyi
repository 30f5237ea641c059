# Only for mypy (see [tool.mypy] in pyproject.toml). setuptools installs the top-level adapters/
# folder as workbench.adapters (package-dir); mypy cannot read that mapping, so this folder lays
# the package out as it is installed: workbench/adapters here links to ../../adapters. mypy_path
# lists the checkout first, so `workbench` itself is still ./workbench and this stub is never read.
