"""Word similarity says where it cannot tell generated runs apart (issue 24 item 8).

On PGV-PII SV every generated run scored word similarity 0.845–0.848 raw under e5, and Table 3
gave no sign that those three figures rank nothing. The rule (workbench/metrics/similarity.py,
`word_spreads`): over a corpus's generated runs, max − min of the rescaled word similarity
below MIN_WORD_SPREAD of the chance-to-identity range → the caption and the CSV say so.
"""

from __future__ import annotations

import pandas as pd
import pytest

from tests.metrics.conftest import RUN_A, add_run, make_context
from workbench.metrics import compute_metrics, metric_frame
from workbench.metrics.similarity import MIN_WORD_SPREAD, word_discrimination_note, word_spreads
from workbench.reports.tables import TABLES, caption, to_csv_frame, to_latex, to_markdown
from workbench.store.signature import REFERENCE

TABLE3 = next(t for t in TABLES if t.name == "table3_quality")


def hand_table(rows: list[tuple[str, str, str, float, float]]) -> pd.DataFrame:
    """(run id, corpus, source, similarity_word, similarity_word_raw) per row."""
    return pd.DataFrame(rows, columns=["run_id", "corpus", "source", "similarity_word",
                                       "similarity_word_raw"]).set_index("run_id")


# The PGV-PII SV figures of the issue (e5, b = 0.863) beside English ones that do spread.
MEASURED = hand_table([
    ("original:pgv-pii-sv", "pgv-pii-sv", "original", 1.0, 1.0),
    ("sv-label", "pgv-pii-sv", REFERENCE, -0.336, 0.818),  # a reference: far off, by construction
    ("sv-suppress", "pgv-pii-sv", REFERENCE, 0.0, 0.0),
    ("sv-random", "pgv-pii-sv", "generated", -0.135, 0.845),
    ("sv-upos", "pgv-pii-sv", "generated", -0.114, 0.848),
    ("sv-fill", "pgv-pii-sv", "generated", -0.115, 0.848),
    ("en-random", "pgv-pii-en", "generated", -0.048, 0.186),
    ("en-fill", "pgv-pii-en", "generated", 0.025, 0.243),
    ("tab-only", "tab-test", "generated", 0.1, 0.3),  # a lone generated run: nothing to tell apart
])


def test_spread_counts_only_generated_runs_and_flags_the_flat_corpus():
    spreads = {s.corpus: s for s in word_spreads(MEASURED)}
    assert set(spreads) == {"pgv-pii-sv", "pgv-pii-en"}  # tab-test has one generated run
    sv, en = spreads["pgv-pii-sv"], spreads["pgv-pii-en"]
    # The label and suppress references would spread Swedish to 0.336 if they counted.
    assert sv.runs == ("sv-random", "sv-upos", "sv-fill")
    assert sv.spread == pytest.approx(0.021) and not sv.discriminates
    assert (sv.raw_low, sv.raw_high) == (0.845, 0.848)
    assert en.spread == pytest.approx(0.073) and en.discriminates


def test_threshold_is_a_share_of_the_rescaled_range():
    at = hand_table([("a", "c", "generated", 0.0, 0.5), ("b", "c", "generated", MIN_WORD_SPREAD, 0.6)])
    below = hand_table([("a", "c", "generated", 0.0, 0.5), ("b", "c", "generated", MIN_WORD_SPREAD * 0.99, 0.6)])
    assert word_spreads(at)[0].discriminates and not word_spreads(below)[0].discriminates


def test_note_names_each_flat_corpus_with_its_raw_range():
    note = word_discrimination_note(MEASURED)
    assert "pgv-pii-sv: 3 runs, raw 0.845–0.848, spread 0.021" in note
    assert "pgv-pii-en" not in note and "tab-test" not in note
    assert word_discrimination_note(MEASURED.drop(index=["sv-upos", "sv-fill"])) == ""


@pytest.fixture
def three_runs(store, tiny_corpus):
    """Run A (English spans partly kept) and two runs whose every replacement shares no word with
    its original: apart in English, all at 0 in Swedish under the bag-of-words embedder."""
    ids = [add_run(store, tiny_corpus, RUN_A, name="a"),
           add_run(store, tiny_corpus, {d: ["zzz"] * len(t) for d, t in RUN_A.items()}, name="z"),
           add_run(store, tiny_corpus, {d: ["qqq"] * len(t) for d, t in RUN_A.items()}, name="q")]
    table = compute_metrics(metric_frame(store, ids), make_context(), families=("similarity",), originals=False)
    return ids, table.reindex(columns=list(dict.fromkeys([*table.columns, *(c.metric for c in TABLE3.columns)])))


def test_table3_caption_and_csv_flag_the_flat_language(three_runs):
    ids, table = three_runs
    sv_corpus = str(table.loc[f"{ids[0]}@sv", "corpus"])
    for text in (to_markdown(table, TABLE3, "m"), caption(table, TABLE3, "m"), to_latex(table, TABLE3, "m")):
        assert f"between the generated runs of {sv_corpus}: 3 runs" in text
        assert "[en]: 3 runs" not in text
    csv = to_csv_frame(table, TABLE3).set_index("run_id")["similarity_word_discriminates"]
    assert [csv[f"{i}@sv"] for i in ids] == [False] * 3
    assert [csv[f"{i}@en"] for i in ids] == [True] * 3


def test_table3_labels_the_raw_cosine_as_003s_figure_beside_the_rescaled_one(three_runs):
    headers = to_markdown(three_runs[1], TABLE3, "m").splitlines()[0].split(" | ")
    rescaled = headers.index("Similarity (rescaled, 0 = chance): word↑")
    assert headers[rescaled + 2] == "Cosine (raw, 003's figure): word↑"
