"""`workbench mtc …` through the real entry point, on a tiny untrained model (mechanics only)."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from workbench.cli import main

CONLLU = """\
# text = The Supreme Court met in New York City.
1	The	the	DET	DT	_	3	det	_	_
2	Supreme	Supreme	PROPN	NNP	_	3	compound	_	_
3	Court	Court	PROPN	NNP	_	4	nsubj	_	_
4	met	meet	VERB	VBD	_	0	root	_	_
5	in	in	ADP	IN	_	8	case	_	_
6	New	New	PROPN	NNP	_	8	compound	_	_
7	York	York	PROPN	NNP	_	8	compound	_	_
8	City	City	PROPN	NNP	_	4	obl	_	SpaceAfter=No
9	.	.	PUNCT	.	_	4	punct	_	_

"""


@pytest.fixture
def conllu(tmp_path):
    path = tmp_path / "np.conllu"
    path.write_text(CONLLU * 3, encoding="utf-8")
    return path


def run(args):
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    return result


def test_train_info_and_generate_with_an_mtc_checkpoint(tiny_bert, conllu, tmp_path):
    out = tmp_path / "ckpt"
    result = run(["mtc", "train", "--kind", "mtc", "--base-model", str(tiny_bert), "--conllu", str(conllu),
                  "--min-count", "1", "--test-fraction", "0", "--epochs", "2", "--out", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    assert "mtc checkpoint" in result.output and "2 phrases" in result.output
    assert "use it with" not in result.output  # English: the generators' default place
    meta = json.loads((out / "metadata.json").read_text())
    assert meta["kind"] == "mtc" and meta["source"]["conllu"] == [str(conllu)]
    phrases = [json.loads(line)["text"] for line in (out / "phrases.jsonl").read_text().splitlines()]
    assert sorted(phrases) == ["New York City", "Supreme Court"]

    info = run(["mtc", "info", str(out)])
    assert info.exit_code == 0 and "2 phrases" in info.output
    assert json.loads(run(["mtc", "info", str(out), "--json"]).output)["fingerprint"] == meta["fingerprint"]

    store = tmp_path / "runs.sqlite"
    gen = run(["generate", "-c", "pgv-pii-en", "--docs", "gv-eng-swe-66_ENG", "-g", "mtc", "-o", f"checkpoint={out}",
               "--store", str(store), "--no-progress", "--tagger", "spacy"])
    assert gen.exit_code == 0, gen.output
    assert "32 spans, 0 FAILED" in gen.output and "model=mtc:" in gen.output


def test_a_checkpoint_of_another_language_says_how_to_use_it(tiny_bert, conllu, tmp_path):
    """The generators read only the English default without -o checkpoint=DIR: a Swedish
    checkpoint's summary says how to point them at it."""
    out = tmp_path / "sv"
    result = run(["mtc", "train", "--kind", "mtc", "--lang", "sv", "--base-model", str(tiny_bert), "--conllu",
                  str(conllu), "--min-count", "1", "--test-fraction", "0", "--epochs", "1", "--out", str(out),
                  "--no-progress"])
    assert result.exit_code == 0, result.output
    assert f"use it with: workbench generate … -g mtc -o checkpoint={out}" in result.output


def test_ss_mtc_training_writes_the_document_split(tiny_bert, tmp_path):
    out = tmp_path / "ss"
    result = run(["mtc", "train", "--kind", "ss-mtc", "-c", "tab-test", "--docs",
                  "001-61807,001-61253,001-66929,001-159913", "--train-fraction", "0.5", "--base-model",
                  str(tiny_bert), "--min-count", "1", "--sentences-per-phrase", "2", "--max-phrases", "5",
                  "--epochs", "1", "--out", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    train = (out / "train_docs.txt").read_text().split()
    held = (out / "heldout_docs.txt").read_text().split()
    assert len(train) == 2 and len(held) == 2 and not set(train) & set(held)
    split = json.loads((out / "metadata.json").read_text())["split"]
    assert split["train_docs"] == train and split["heldout_docs"] == held


def test_phrases_lists_without_training(tiny_bert, conllu):
    result = run(["mtc", "phrases", "--kind", "mtc", "--base-model", str(tiny_bert), "--conllu", str(conllu),
                  "--min-count", "1"])
    assert result.exit_code == 0
    assert "2 phrases" in result.output and "Supreme Court" in result.output


def test_bad_settings_are_errors_not_tracebacks(tiny_bert, conllu, tmp_path):
    result = CliRunner().invoke(main, ["mtc", "train", "--kind", "mtc", "--base-model", str(tiny_bert),
                                       "--conllu", str(conllu), "--min-count", "99", "--out", str(tmp_path / "x"),
                                       "--no-progress"])
    assert result.exit_code == 2 and "lower --min-count" in result.output
    assert not (tmp_path / "x").exists()  # nothing half-written
    missing = CliRunner().invoke(main, ["mtc", "info", str(tmp_path)])
    assert missing.exit_code == 2 and "not an EMAT checkpoint" in missing.output


@pytest.mark.parametrize("command", ["train", "phrases", "info", "build-default"])
def test_every_command_help_has_an_example(command):
    result = run(["mtc", command, "--help"])
    assert result.exit_code == 0 and "Example:" in result.output and "workbench mtc" in result.output
