"""Every command, fed a user's mistake through the real entry point: exit 2 with a message,
never a traceback, and nothing half-written."""

from __future__ import annotations

import sqlite3
import subprocess

import pytest

from tests.helpers.entry_point import wb, workbench_command
from tests.helpers.waiting import wait_until


@pytest.fixture(scope="module")
def one_run_store(tmp_path_factory):
    """A store with one finished run (random over PGV-PII EN) to make mistakes against."""
    path = tmp_path_factory.mktemp("errors") / "runs.sqlite"
    result = wb("generate", "-c", "pgv-pii-en", "-g", "random", "--tagger", "spacy", "--no-progress", store=path)
    assert result.returncode == 0, result.stderr
    return path, result.stdout.split()[1]


def files(tmp_path):
    (tmp_path / "empty.jsonl").write_text("", encoding="utf-8")
    (tmp_path / "no-spans.jsonl").write_text('{"text": "Nothing to hide here.", "label": [], "lang": "en"}\n',
                                             encoding="utf-8")
    (tmp_path / "bad-mode.toml").write_text('corpora = ["pgv-pii-en"]\n[[generators]]\nname = "random"\n'
                                            'modes = ["maskR"]\n', encoding="utf-8")
    (tmp_path / "not-json.json").write_text("{", encoding="utf-8")


# (command line with {store}, {run} and {tmp} filled in, words the message must hold)
CASES = [
    # generate: options
    ("generate -c pgv-pii-en -g random -o seed", "--option takes NAME=VALUE, not 'seed'"),
    ("generate -c pgv-pii-en -g random --option =3", "--option takes NAME=VALUE"),
    ("generate -c pgv-pii-en -g random -o temperature=1", "has no option 'temperature'"),
    ("generate -c pgv-pii-en -g ollama -o timeout=soon",
     "option 'timeout' of generator 'ollama' must be a number, not 'soon'"),
    ("generate -c pgv-pii-en -g ollama -o timeout=0", "timeout must be > 0"),
    ("generate -c pgv-pii-en -g randon", "did you mean 'random'"),
    ("generate -c pgv-pii-en -g random --mode maskR", "'maskR' is not one of 'maskL', 'repL'"),
    ("generate -c pgv-pii-en -g random --window -1", "-1 is not in the range x>=0"),
    ("generate -c pgv-pii-en -g random --lang de", "'de' is not one of 'en', 'sv'"),
    ("generate -c pgv-pii-en -g random --tagger flair", "'flair' is not one of 'auto', 'stanza', 'spacy'"),
    # generate: corpora and models
    ("generate -c {tmp}/missing.jsonl -g random", "missing.jsonl"),
    ("generate -c {tmp}/empty.jsonl -g random --tagger spacy", "has no documents"),
    ("generate -c {tmp}/no-spans.jsonl -g random --tagger spacy", "no span to replace"),
    ("generate -c pgv-pii-en -g fill-mask --model {tmp}/no-model --tagger spacy", "no-model"),
    ("generate -c pgv-pii-en -g ollama -o host=http://10.9.8.7:11434", "refusing host '10.9.8.7'"),
    ("generate -c pgv-pii-en -g ollama -o host=http://127.0.0.1:9 --tagger spacy", "cannot reach a server"),
    # benchmark, report, import-run
    ("benchmark no-such-benchmark", "no benchmark 'no-such-benchmark'"),
    ("benchmark {tmp}/bad-mode.toml --no-report", "mode must be one of maskL, repL, not 'maskR'"),
    ("report --out {tmp}/report", "name at least one run"),
    ("report nope --out {tmp}/report", "no run matching 'nope'"),
    ("report {run} --out {tmp}/report --embedder en", "--embedder takes LANG=SPEC, not 'en'"),
    ("report {run} --out {tmp}/report --utility morph_al", "unknown utility measure(s) morph_al"),
    ("report {run} --out /proc/report", "cannot use /proc/report"),
    ("import-run {tmp}/not-json.json -c pgv-pii-en --tagger spacy", "not-json.json"),
    ("import-run {tmp}/not-json.json -c pgv-pii-en --missing keep", "'keep' is not one of 'error', 'original'"),
    # looking at runs
    ("show nope", "no run matching 'nope'"),
    ("show {run} no-such-document", "no-such-document"),
    ("export nope --format csv -o {tmp}/x.csv", "no run matching 'nope'"),
    ("export {run} --format xml -o {tmp}/x.xml", "'xml' is not one of"),
    # annotation and doccano
    ("annotations sample s -r nope", "no run matching 'nope'"),
    ("doccano pull project --as admin --password x", "admin"),
]


@pytest.mark.parametrize("line, message", CASES, ids=[c[0].split(" -")[0] + f"#{n}" for n, c in enumerate(CASES)])
def test_a_mistake_exits_2_with_a_message(one_run_store, tmp_path, line, message):
    path, run_id = one_run_store
    files(tmp_path)
    before = sqlite3.connect(path).execute("SELECT COUNT(*) FROM runs").fetchone()[0]
    result = wb(*line.format(run=run_id[:8], tmp=tmp_path).split(), store=path)
    assert result.returncode == 2, (result.returncode, result.stdout[-500:], result.stderr[-2000:])
    assert "Traceback" not in result.stderr
    assert message in result.stderr, result.stderr[-2000:]
    assert sqlite3.connect(path).execute("SELECT COUNT(*) FROM runs").fetchone()[0] == before


def test_ctrl_c_during_generate_exits_130_and_the_same_command_resumes(tmp_path):
    import signal
    store = tmp_path / "runs.sqlite"
    command = workbench_command("generate", "-c", "tab-test", "-g", "random", "--batch-size", "4",
                                "--tagger", "spacy", "--no-progress", "--store", store)
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

    def stored() -> int:
        try:
            with sqlite3.connect(f"file:{store}?mode=ro", uri=True, timeout=0.05) as con:
                return con.execute("SELECT COUNT(*) FROM predictions").fetchone()[0]
        except sqlite3.Error:
            return 0

    try:  # interrupt mid-run, once batches are stored
        wait_until(lambda: proc.poll() is not None or stored() >= 40, 300, "the run to store 40 predictions",
                   interval=0.005)
    finally:
        proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    if proc.returncode == 0:
        pytest.skip("the run finished before the interrupt arrived")
    assert proc.returncode == 130 and "interrupted" in err and "Traceback" not in err, err[-3000:]
    assert 0 < stored() < 7320
    resumed = subprocess.run(command, capture_output=True, text=True)
    assert resumed.returncode == 0 and "complete: 7320 spans, 0 FAILED" in resumed.stdout
