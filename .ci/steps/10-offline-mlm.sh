#!/usr/bin/env bash
# The small offline masked LMs that the fill-mask / NS3 / NAd tests, the MTC generators
# and the benchmark use (no pretrained masked LM can be installed here; docs/mlm.md).
# Trained once from UD treebank text and cached under workbench.paths.cache_dir()
# (.cache/mlm/offline-<lang>-<key>): a second run finds them and returns at once.
# About 18 minutes on 2 cores for both (a fixed number of steps, no time guard, so the
# weights do not depend on how busy the machine is: workbench/mlm/recipes.py).
set -euo pipefail
cd "$(dirname "$0")/../.."
. .venv/bin/activate
workbench mlm build-offline --lang en --lang sv
