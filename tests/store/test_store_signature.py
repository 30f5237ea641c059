"""The run signature is a record whose fields are columns; the string is only rendered
(issue 11 item 2)."""

from __future__ import annotations

import json

from tests.helpers.store import generated_run, import_replacements
from workbench.generator_contract import GenerationOptions
from workbench.store.signature import RunSignature, make_signature, run_id_of


def _previous_make_signature(*, corpus_name, corpus_hash, generator, model, config, options, tagger, versions):
    """The string builder before the record (commit 7236f56), verbatim: run ids must not change."""
    parts = [
        f"corpus={corpus_name}@{corpus_hash[:12]}",
        f"gen={generator}",
        f"model={model}",
        f"mode={options.mode}",
        f"upos={'on' if options.upos_filter else 'off'}",
        f"window={options.window}",
        f"seed={options.seed}",
        f"topk={options.top_k}",
        f"leak={'on' if options.leak_guard else 'off'}",
        f"tagger={tagger}",
    ]
    if config:
        parts.append("config=" + json.dumps(config, sort_keys=True, separators=(",", ":"), default=str))
    parts.append("v=" + ",".join(f"{k}:{v}" for k, v in sorted(versions.items())))
    return "|".join(parts)


def test_the_record_renders_exactly_the_previous_string_so_run_ids_stay():
    for options, config in ((GenerationOptions(), {}),
                            (GenerationOptions(mode="repL", upos_filter=True, window=2, seed=7, top_k=3,
                                               leak_guard=False), {"model": "x", "temperature": 0.5})):
        args = dict(corpus_name="tab-test", corpus_hash="f" * 64, generator="mlm", model="bert", config=config,
                    options=options, tagger="spacy:en=en_ud", versions={"workbench": "0.1", "torch": "2.3"})
        record = make_signature(**args)
        assert isinstance(record, RunSignature)
        assert record.render() == str(record) == _previous_make_signature(**args)
        assert record.run_id == run_id_of(record) == run_id_of(_previous_make_signature(**args))
        assert (record.window, record.seed, record.top_k, record.leak_guard) == (
            options.window, options.seed, options.top_k, options.leak_guard)


def test_an_imported_run_keeps_its_previous_signature_and_id(tmp_path, store, tiny_corpus):
    run = import_replacements(store, tmp_path, tiny_corpus, name="other-system")
    sig = run.signature_record
    assert (sig.source, sig.missing, sig.tagger) == ("imported", "error", "fake-tagger")
    previous = "|".join([f"corpus={tiny_corpus.name}@{tiny_corpus.content_hash[:12]}", "gen=other-system",
                         "model=other-system.json", "mode=external", "upos=off", "source=imported",
                         f"file_sha256={sig.file_sha256}", "missing=error", "tagger=fake-tagger",
                         "v=" + ",".join(f"{k}:{v}" for k, v in sorted(run.versions.items()))])
    assert run.signature == previous and run.run_id == run_id_of(previous)


def test_the_fields_are_columns_and_nothing_reads_the_string_back(store, tiny_corpus):
    from workbench.store.tidy_frame import run_frame
    run = generated_run(store, tiny_corpus, seed=5)
    options = GenerationOptions(seed=5)
    row = store.db.execute('SELECT tagger, "window", seed, top_k, leak_guard FROM runs WHERE run_id=?',
                           (run.run_id,)).fetchone()
    assert row == ("fake-tagger", options.window, options.seed, options.top_k, int(options.leak_guard))
    assert run.signature_record.render() == run.signature
    # A caption string that no longer says anything: the tagger still comes from its column.
    store.db.execute("UPDATE runs SET signature='(caption)' WHERE run_id=?", (run.run_id,))
    frame = run_frame(store, [run.run_id])
    assert set(frame["tagger"]) == {"fake-tagger"}
    assert frame["original_upos"].notna().any()


def _with_identifier_types(corpus, identifier_type: str):
    from dataclasses import replace

    from workbench.data_model import Corpus
    return Corpus(corpus.name, corpus.source, tuple(
        replace(d, spans=tuple(replace(s, identifier_type=identifier_type) for s in d.spans))
        for d in corpus.documents))


def test_identifier_types_reach_the_signature_only_where_a_corpus_has_them(store, tiny_corpus):
    # Slots carry the identifier type (INTACT labels DIRECT spans without a model), but it is
    # left out of the corpus hash: without it in the signature, corpora differing only in
    # DIRECT/QUASI shared a run id, and one resumed the other's run.
    direct, quasi = _with_identifier_types(tiny_corpus, "DIRECT"), _with_identifier_types(tiny_corpus, "QUASI")
    assert direct.content_hash == quasi.content_hash == tiny_corpus.content_hash
    runs = {name: generated_run(store, corpus) for name, corpus in
            (("none", tiny_corpus), ("direct", direct), ("quasi", quasi))}
    assert len({r.run_id for r in runs.values()}) == 3
    plain = runs["none"]
    # A corpus without identifier types: the signature (and run id) of before.
    assert plain.signature == _previous_make_signature(
        corpus_name=plain.corpus_name, corpus_hash=plain.corpus_hash, generator=plain.generator, model=plain.model,
        config=plain.config, options=GenerationOptions(seed=1), tagger=plain.tagger, versions=plain.versions)
    for name, corpus in (("direct", direct), ("quasi", quasi)):
        run = store.get_run(runs[name].run_id)
        assert run.identifier_types == corpus.identifier_types_hash[:16] != ""
        assert f"|identifier_types={run.identifier_types}|" in run.signature
        assert run.signature_record.render() == run.signature


def test_a_config_field_marked_out_of_the_signature_leaves_the_run_id_alone():
    from dataclasses import dataclass, field

    from workbench.generator_contract.base import Generator

    @dataclass(frozen=True)
    class Config:
        temperature: float = 0.5
        parallel: int = field(default=1, metadata={"signature": False})

    class Gen(Generator):
        name = "gen"

        def generate(self, slots):
            return []

    Gen.Config = Config
    one, four, warm = Gen(Config()), Gen(Config(parallel=4)), Gen(Config(temperature=0.9))
    assert one.signature_config() == four.signature_config() == {"temperature": 0.5}
    assert warm.signature_config() == {"temperature": 0.9}
