#!/usr/bin/env bash
# The lemmatisers of the inference attack's matching function (004 §3.2; docs/privacy.md):
# spaCy's trainable_lemmatizer trained on the gold lemmas of the UD treebanks in
# ../shared/corpora/ud-train, English and Swedish, about a minute each on 2 cores.
# Cached under workbench.paths.cache_dir() (.cache/lemmatiser/<lang>-<key>): a second run
# finds them and returns at once. Their lexicon check needs spacy-lookups-data (privacy extra).
set -euo pipefail
cd "$(dirname "$0")/../.."
. .venv/bin/activate
workbench privacy build-lemmatiser --lang en --lang sv
