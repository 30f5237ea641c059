"""Causal language models for the perplexity metrics (paper 000 §4): which model, and the stand-in.

Users' default is `distilgpt2` (000 §4 fine-tunes DistilGPT2); any local model directory is
accepted. No pretrained causal LM can be installed here, so the set-up builds a small GPT-2
stand-in from UD treebank text (standin.py says where it lives, standin_build.py trains it,
`workbench mlm build-causal-lm`, or on first use); loading.py resolves a model id.
"""
