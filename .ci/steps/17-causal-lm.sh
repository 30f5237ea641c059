#!/usr/bin/env bash
# The causal-LM stand-in of the perplexity metrics (paper 000 §4 fine-tunes distilgpt2, which
# cannot be installed here): a 2-layer GPT-2 with a byte-level BPE vocabulary, trained once
# from UD treebank text (EWT, Talbanken) and cached under workbench.paths.cache_dir()
# (.cache/causal_lm/standin-gpt2-<key>): a second run finds it and returns at once.
# Budget: about 2 minutes on 2 idle cores (a fixed step count, never a time: one key, one model).
set -euo pipefail
cd "$(dirname "$0")/../.."
. .venv/bin/activate
workbench mlm build-causal-lm
