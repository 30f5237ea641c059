#!/usr/bin/env bash
# The Swedish stand-in NER tagger of NER-type consistency (paper 000 §4; docs/metrics.md): no
# Swedish NER model is installable here, so a spaCy NER tagger is trained on the Swedish PGV-PII
# corpus's own labels, about a minute on 2 cores (at most 4 minutes: its time guard). English
# uses en_core_web_sm from PyPI (the metrics extra). Cached under workbench.paths.cache_dir()
# (.cache/ner-tagger/sv-<key>): a second run finds it and returns at once.
set -euo pipefail
cd "$(dirname "$0")/../.."
. .venv/bin/activate
workbench metrics build-ner-tagger --lang sv
