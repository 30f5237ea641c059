"""The models behind the metric families, apart from the families themselves (workbench/metrics/):
sentence embedders (embedders.py, EMBEDDERS), summarisers (summarisers.py, SUMMARISERS), text
classifiers (classifiers.py, CLASSIFIERS), the NER models and the Swedish stand-in (ner_models.py,
ner_standin.py), the perplexity metrics' torch side (perplexity_model.py), the downstream CRF tagger
(downstream_model.py), and the on-disk caches of what these models derive (cache.py)."""
