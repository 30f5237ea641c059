#!/usr/bin/env bash
# The default EMAT checkpoints of the mtc / ss-mtc generators (docs/mtc.md): SS-MTC on
# half of the TAB test documents, MTC on UD English-EWT noun phrases, both over the
# offline English MLM of 10-offline-mlm.sh. Cached under workbench.paths.cache_dir()
# (.cache/mtc/<kind>-en) with a key over recipe, base model, data and code: a second run
# finds them up to date and returns at once. About 2-4 minutes on 2 cores when building.
set -euo pipefail
cd "$(dirname "$0")/../.."
. .venv/bin/activate
workbench mtc build-default --kind ss-mtc --kind mtc --no-progress
