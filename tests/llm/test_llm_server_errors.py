"""A server that answers, but with errors (issue 37), played by a tiny scripted Ollama on 127.0.0.1
(tests/helpers/fake_ollama_http.ScriptedOllama): HTTP 500 and garbage are server errors, not "unreachable";
a run that met them for most spans, or whose every span FAILED, ends `generate` with exit 4 and its
causes named; and the server's address is recorded, not hashed, so `--retry-failed` at another
port resumes the same run, also one stored before issue 37 under an id that named its address.
The same against the stand-in: tests/llm/test_llm_faults.py."""

from __future__ import annotations

import json
import sqlite3

import pytest

from tests.helpers.entry_point import wb, wb_ok
from tests.helpers.fake_ollama_http import ANSWER, GARBAGE, HTTP500, MODEL, scripted_ollama
from workbench.adapters.ollama import OllamaGenerator
from workbench.generator_contract import GenerationOptions
from workbench.llm.config import DEFAULT_HOST, OllamaConfig, OllamaSettings, flat_settings
from workbench.pipeline import generate_run
from workbench.store import RunStore
from workbench.text.slots import Gap, Slot

SLOTS = [Slot("d", "en", n, "PERSON", "PROPN", (f"Window {n}: ", Gap(n, "PERSON", "PROPN"), " flew to Rome."))
         for n in range(4)]
TEXTS = ["Anna went to the shop.", "Olle stayed at home.", "Karin wrote a letter.", "Erik read it twice."]


def generator(url, **config) -> OllamaGenerator:
    settings = OllamaSettings(**{"model": MODEL, "host": url, "backoff": 0.0, "attempts": 1, **config})
    return OllamaGenerator(OllamaConfig(settings), GenerationOptions())


@pytest.fixture
def corpus(tmp_path):
    """Four one-sentence documents with one name each: one request per span in maskL."""
    path = tmp_path / "four.jsonl"
    path.write_text("".join(json.dumps({"id": n, "text": t, "lang": "en", "label": [[0, t.index(" "), "PERSON"]]})
                            + "\n" for n, t in enumerate(TEXTS)), encoding="utf-8")
    return path


def cli_generate(corpus, store, url, *extra):
    return wb("generate", "-c", corpus, "-g", "ollama", "--model", MODEL, "-o", f"host={url}", "-o", "attempts=1",
              "-o", "backoff=0", "--tagger", "spacy", "--no-progress", *extra, store=store, timeout=300)


# -- the client: whose failure it was --------------------------------------------------------

@pytest.mark.parametrize("action, note", [
    (HTTP500, "server error: HTTP 500: llama runner process has terminated (after 2 requests)"),
    (GARBAGE, "server error: malformed response stream (after 2 requests)"),
])
def test_http_500_and_garbage_are_server_errors_not_unreachable(action, note, capfd):
    with scripted_ollama(default=action) as server:
        gen = generator(server.url, attempts=2, give_up_after=0)
        gen.load()
        [p] = gen.generate(SLOTS[:1])
    assert p.failed and p.note == note and p.requests == 2 == server.chats
    assert f"failed ({note.split(': ', 1)[1].split(' (after')[0]})" in capfd.readouterr().err  # said once


def test_garbage_counts_towards_giving_up_and_the_skipped_say_server_error():
    with scripted_ollama(default=GARBAGE) as server:
        gen = generator(server.url, give_up_after=2)
        gen.load()
        preds = gen.generate(SLOTS)
    assert [p.note for p in preds[:2]] == ["server error: malformed response stream (after 1 request)"] * 2
    assert all(p.note == f"server error: skipped ({server.url} failed 2 requests in a row)" for p in preds[2:])
    assert server.chats == 2


def test_http_500_does_not_give_up_a_server_that_answers():
    """An HTTP error is an answer (a 500 for one over-long prompt): later windows are still asked."""
    with scripted_ollama([HTTP500, HTTP500, HTTP500], default=ANSWER) as server:
        gen = generator(server.url, give_up_after=2)
        gen.load()
        preds = gen.generate(SLOTS)
    assert [p.failed for p in preds] == [True, True, True, False] and server.chats == 4


# -- the command: exit 4 with the causes named ------------------------------------------------

@pytest.mark.parametrize("action, cause", [(HTTP500, "HTTP 500 × 4"), (GARBAGE, "malformed response stream × 4")])
def test_generate_exits_4_naming_the_cause_when_the_server_answered_only_errors(corpus, tmp_path, action, cause):
    with scripted_ollama(default=action) as server:
        result = cli_generate(corpus, tmp_path / "runs.sqlite", server.url, "-o", "give_up_after=0")
    assert result.returncode == 4, result.stderr
    assert f"4 spans, 4 FAILED ({cause})" in result.stdout
    assert f"error: all 4 span(s) FAILED ({cause}); check the server and its model" in result.stderr
    assert "--retry-failed" in result.stderr and "could not be reached" not in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize("actions, code", [
    ([HTTP500, HTTP500, ANSWER, ANSWER], 0),  # half: FAILED spans are a measurement, the run stands
    ([HTTP500, GARBAGE, HTTP500, ANSWER], 4),  # more than half met server errors
])
def test_more_than_half_of_the_spans_with_server_errors_fails_the_run(corpus, tmp_path, actions, code):
    with scripted_ollama(actions) as server:
        result = generate_run(str(corpus), generator(server.url, give_up_after=0), store=tmp_path / "runs.sqlite",
                              tagger="spacy", quiet_tagger=True, progress=False)
    assert result.failed == actions.count(HTTP500) + actions.count(GARBAGE) and result.verdict.exit_code == code
    assert result.run.status == "complete"  # every span has its outcome: what --retry-failed reopens


def test_benchmark_exits_4_naming_the_run_whose_server_answered_errors(corpus, tmp_path):
    config = tmp_path / "broken.toml"
    with scripted_ollama(default=HTTP500) as server:
        config.write_text(f'''name = "broken"
corpora = ["{corpus}"]
[[generators]]
name = "ollama"
options = {{ model = "{MODEL}", host = "{server.url}", attempts = 1, backoff = 0 }}
''', encoding="utf-8")
        result = wb("benchmark", config, "--no-report", "--no-progress", "--tagger", "spacy",
                    store=tmp_path / "runs.sqlite", timeout=300)
    assert result.returncode == 4, result.stderr
    assert "(ollama, four): all 4 span(s) FAILED (HTTP 500 × 4)" in result.stderr
    assert "--retry-failed" in result.stderr and "Traceback" not in result.stderr


# -- the server's address: recorded, not hashed ------------------------------------------------

def test_retry_failed_after_the_server_moved_to_another_port_resumes_the_same_run(corpus, tmp_path):
    store = tmp_path / "runs.sqlite"
    with scripted_ollama(default=HTTP500) as broken:
        first = cli_generate(corpus, store, broken.url, "-o", "give_up_after=0")
    assert first.returncode == 4, first.stderr
    run_id = first.stdout.split()[1]
    with scripted_ollama() as mended:
        assert mended.url != broken.url
        again = cli_generate(corpus, store, mended.url, "-o", "give_up_after=0", "--retry-failed")
    assert again.returncode == 0, again.stderr
    assert again.stdout.split()[1] == run_id and "4 spans, 0 FAILED" in again.stdout
    assert f"server: {broken.url} then {mended.url}" in again.stdout
    with sqlite3.connect(store) as db:
        assert db.execute("SELECT run_id FROM runs").fetchall() == [(run_id,)]
        assert sorted(r[0] for r in db.execute("SELECT pseudonym FROM predictions")) == ["Fake 1"] * 4
    listed = wb_ok("runs", "--signatures", store=store)
    assert f"server: {broken.url} then {mended.url}" in listed and f'"host":"{DEFAULT_HOST}"' in listed


class Before37(OllamaGenerator):
    """The ollama generator as it was before issue 37: its signature hashed the server's address,
    and nothing recorded the address apart."""

    def signature_config(self) -> dict:
        return flat_settings(self.config)

    def server(self) -> str | None:
        return None


def test_a_run_stored_before_issue_37_under_an_id_naming_its_address_is_found_from_another(corpus, tmp_path):
    store = RunStore(tmp_path / "runs.sqlite")
    with scripted_ollama(default=HTTP500) as broken:
        settings = OllamaSettings(model=MODEL, host=broken.url, backoff=0.0, attempts=1, give_up_after=0)
        old = generate_run(str(corpus), Before37(OllamaConfig(settings)), store=store, tagger="spacy",
                           quiet_tagger=True, progress=False)
    assert old.failed == 4 and broken.url in old.run.signature  # the old id hashed this address
    with scripted_ollama() as mended:
        now = generate_run(str(corpus), generator(mended.url, give_up_after=0), store=store, tagger="spacy",
                           quiet_tagger=True, progress=False, retry_failed=True)
    assert now.run_id == old.run_id and now.failed == 0 and [r.run_id for r in store.runs()] == [old.run_id]
    assert now.run.signature == old.run.signature  # its signature, and so its id, stay as they were
    assert now.run.servers == (mended.url,)  # stored before the column: only the address asked now


def test_a_run_made_at_the_default_address_keeps_its_id(corpus):
    """The address is hashed as the default one, so a run made there has the id it always had."""
    from workbench.generation.engine import plan_run
    from workbench.loaders import load_corpus
    from workbench.upos import get_tagger

    loaded, tagger = load_corpus(str(corpus)), get_tagger("spacy", quiet=True)
    at_default = plan_run(loaded, Before37(OllamaConfig(OllamaSettings(model=MODEL))), tagger)
    elsewhere = plan_run(loaded, OllamaGenerator(OllamaConfig(OllamaSettings(model=MODEL, host="http://127.0.0.1:11500"))),
                         tagger)
    assert elsewhere.run_id == at_default.run_id and elsewhere.signature == at_default.signature
    assert elsewhere.servers == ("http://127.0.0.1:11500",)
