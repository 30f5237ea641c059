"""Real runs through the stand-in (SmolLM2-135M-Instruct via llama.cpp behind Ollama's API):
PGV-PII EN and SV, maskL and repL, UPOS tags on and off, stored with their FAILED rate.

To keep within the time budget each run covers the opening of one document per language
(gv-eng-swe-66, up to the sentence of its 8th span); the CLI run reads the same opening. A
135M model fails often; these tests check that what happened is measured and stored
honestly, not that the pseudonyms are good.
"""

from __future__ import annotations

import json
import re

import pytest
from click.testing import CliRunner

from workbench.cli import main
from workbench.generation.engine import run_generation
from workbench.generator_contract import FAILED, GenerationOptions, create_generator
from workbench.llm.stats import run_failures
from workbench.store import RunStore
from workbench.store.tidy_frame import run_frame
from workbench.text.slots import SlotBuilder
from workbench.upos import get_tagger

pytestmark = pytest.mark.slow
MODEL = "smollm2:135m-instruct"
TAGGED = re.compile(r"\[MASK\.[A-Z]+\.\d+\]")
PLAIN = re.compile(r"\[MASK\.\d+\]")
EXCERPT_SPANS = 8  # conftest.OPENING_SPANS


@pytest.fixture(scope="module")
def run_store(tmp_path_factory):
    s = RunStore(tmp_path_factory.mktemp("llm-runs") / "runs.sqlite")
    yield s
    s.close()


@pytest.mark.parametrize("lang", ["en", "sv"])
@pytest.mark.parametrize("mode", ["maskL", "repL"])
@pytest.mark.parametrize("upos", [False, True], ids=["plain", "upos"])
def test_run_through_the_standin(standin, run_store, opening, lang, mode, upos):
    standin.fault("none")
    corpus = opening(lang)
    gen = create_generator("ollama", {"model": MODEL, "host": standin.url},
                           GenerationOptions(mode=mode, upos_filter=upos))
    before = standin.chat_requests()
    record = run_generation(run_store, corpus, gen, get_tagger("spacy", quiet=True), progress=False)
    sent = standin.chat_requests() - before
    preds = run_store.predictions(record.run_id)
    assert record.status == "complete" and len(preds) == corpus.n_slots

    # Every request the server saw is attributed to exactly one span's count.
    assert sum(p.requests for p in preds) == sent
    if mode == "repL":
        assert corpus.n_slots <= sent <= corpus.n_slots * gen.config.client.attempts  # re-prompted after every pick
    else:
        doc = corpus.documents[0]
        windows = len({SlotBuilder(doc).slot(i).window_key for i in doc.masked_spans})
        assert windows < corpus.n_slots and windows <= sent <= windows * gen.config.client.attempts  # one per window

    prompts = [r["messages"][-1]["content"] for r in standin.recent()[-sent:]]
    masks = [m for p in prompts for m in re.findall(r"\[MASK[^\]]*\]", p)]
    if upos:  # every tagged span carries its tag; a span the tagger could not tag stays [MASK.n]
        assert any(TAGGED.fullmatch(m) for m in masks) and all(TAGGED.fullmatch(m) or PLAIN.fullmatch(m)
                                                               for m in masks)
    else:
        assert masks and all(PLAIN.fullmatch(m) for m in masks)
    assert all(r["format"]["required"] for r in standin.recent()[-sent:])  # the JSON schema was sent

    for p in preds:
        if p.failed:
            assert p.pseudonym == FAILED and p.note  # every FAILED says why
        else:
            assert p.pseudonym.strip() and p.note in ("", "copied-from-context")
    f = run_failures(run_store, record.run_id)
    assert f.failed == sum(p.failed for p in preds) and 0.0 <= f.failed_rate <= 1.0
    print(f"\n{corpus.name} {mode} upos={upos}: FAILED {f.failed}/{f.spans} = {f.failed_rate:.1%}, "
          f"copied {f.copied}, requests {f.requests}, reasons {f.reasons}")


def test_failed_rates_are_stored_for_every_run(standin, run_store):
    # `standin`: the runs above need it; without it they are skipped, and so is this.
    runs = [r for r in run_store.runs() if r.generator == "ollama"]
    assert len(runs) == 8
    frame = run_frame(run_store, [r.run_id for r in runs])
    by_run = frame.groupby("run_id")["pseudonym"].apply(lambda s: (s == FAILED).mean())
    for r in runs:
        assert by_run[r.run_id] == pytest.approx(run_failures(run_store, r.run_id).failed_rate)
    assert {(r.mode, r.upos_filter) for r in runs} == {(m, u) for m in ("maskL", "repL") for u in (False, True)}


def test_cli_generates_through_the_standin(standin, opening, tmp_path):
    standin.fault("none")
    doc = opening("sv").documents[0]
    corpus_file = tmp_path / "opening.jsonl"  # the excerpt as a doccano export, the CLI's corpus format
    corpus_file.write_text(json.dumps({"doc_id": doc.doc_id, "lang": "sv", "text": doc.text,
                                       "label": [[s.start, s.end, s.label] for s in doc.spans]}) + "\n")
    store = tmp_path / "runs.sqlite"
    args = ["generate", "-c", str(corpus_file), "-g", "ollama", "--model", MODEL, "-o", f"host={standin.url}",
            "-o", "attempts=2", "--mode", "repL", "--upos-filter", "--store", str(store), "--no-progress"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    found = re.search(r"complete: (\d+) spans, (\d+) FAILED", result.output)
    assert found and int(found.group(1)) == EXCERPT_SPANS
    s = RunStore(store)
    [run] = s.runs()
    assert (run.model, run.mode, run.upos_filter, run.config["attempts"]) == (MODEL, "repL", True, 2)
    assert int(found.group(2)) == sum(p.failed for p in s.predictions(run.run_id))
    s.close()
