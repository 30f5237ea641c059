"""`--model offline` over a corpus of English and Swedish documents (issue 10 item 15).

`offline` names a different model per language; the generators once cached loaded models
under the name asked for, so every document got the model of the language seen first
(Swedish spans filled with "com", "Thanks", "January"). Tiny untrained models stand in
for the offline ones (placed where workbench.mlm.offline looks), so this runs in seconds.
"""

from __future__ import annotations

import shutil

import pytest

from workbench.generator_contract import GenerationOptions, create_generator
from workbench.loaders import shipped_corpus
from workbench.text.slots import SlotBuilder


@pytest.fixture
def tiny_offline_models(tmp_path, monkeypatch, tiny_bert, tiny_roberta_sv):
    """The tiny models installed as the offline models of a fresh cache: en = tiny BERT, sv = tiny RoBERTa."""
    from workbench.mlm.offline import BUILD_FILE, model_dir
    monkeypatch.setenv("WORKBENCH_CACHE", str(tmp_path / "cache"))
    for lang, source in (("en", tiny_bert), ("sv", tiny_roberta_sv)):
        target = model_dir(lang)
        shutil.copytree(source, target)
        (target / BUILD_FILE).write_text("{}")
    return {"en": tiny_bert, "sv": tiny_roberta_sv}


def _slots(name: str, n: int = 6):
    doc = shipped_corpus(name).documents[0]
    builder = SlotBuilder(doc)
    return [builder.slot(i) for i in doc.masked_spans[:n]]


def _candidates(config: dict, slots) -> list[tuple[str, ...]]:
    gen = create_generator("fill-mask", config, GenerationOptions(mode="maskL", top_k=5))
    gen.load()
    return [p.candidates for p in gen.generate(slots)]


@pytest.mark.parametrize("first", ["en", "sv"])
def test_each_language_is_filled_by_its_own_offline_model(tiny_offline_models, first):
    en, sv = _slots("pgv-pii-en"), _slots("pgv-pii-sv")
    mixed = en + sv if first == "en" else sv + en
    got = _candidates({"model": "offline"}, mixed)
    got_en, got_sv = (got[:len(en)], got[len(en):]) if first == "en" else (got[len(sv):], got[:len(sv)])
    # The same as naming each language's model directory explicitly ...
    assert got_en == _candidates({"model": str(tiny_offline_models["en"])}, en)
    assert got_sv == _candidates({"model": str(tiny_offline_models["sv"])}, sv)
    # ... and not what the other language's model gives (the two models differ on these slots).
    assert got_sv != _candidates({"model": str(tiny_offline_models["en"])}, sv)
    assert got_en != _candidates({"model": str(tiny_offline_models["sv"])}, en)


def test_one_model_for_every_language_loads_once(tiny_offline_models):
    gen = create_generator("fill-mask", {"model": str(tiny_offline_models["en"])}, GenerationOptions())
    gen.load()
    assert gen.lm("en") is gen.lm("sv")
    offline = create_generator("fill-mask", {"model": "offline"}, GenerationOptions())
    offline.load()
    assert offline.lm("en") is not offline.lm("sv")
