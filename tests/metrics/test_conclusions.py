"""The report's "what you can conclude" block (issue 42 item 1): computed from the table's figures,
marks and intervals, on a hand-made table whose answer is known."""

from __future__ import annotations

import math

import pandas as pd

from workbench.reports.conclusions import conclusions, conclusions_markdown

NAN = math.nan


def table(**privacy) -> pd.DataFrame:
    """One corpus, three runs: UPOS accuracy tells them apart (random significantly worse), ATS Rouge 1
    does not (all within the best's uncertainty, suppress best), FAILED is 0 for all."""
    rows = {
        "original:c": dict(corpus="c", lang="en", generator="original", source="original", model=NAN, name=NAN,
                           upos_accuracy=NAN, rouge_1=NAN, failed_rate=NAN),
        "r1": dict(corpus="c", lang="en", generator="random", source="generated", model="", name="random maskL",
                   upos_accuracy=0.2, upos_accuracy_mark="", rouge_1=0.40, rouge_1_mark="†",
                   failed_rate=0.0, failed_rate_mark="*"),
        "r2": dict(corpus="c", lang="en", generator="upos", source="generated", model="", name="upos maskL +UPOS",
                   upos_accuracy=0.9, upos_accuracy_mark="*", rouge_1=0.41, rouge_1_mark="†",
                   failed_rate=0.0, failed_rate_mark="*"),
        "r3": dict(corpus="c", lang="en", generator="suppress", source="reference", model="",
                   name="suppress (reference)",
                   upos_accuracy=NAN, upos_accuracy_mark="", rouge_1=0.45, rouge_1_mark="*",
                   failed_rate=0.0, failed_rate_mark="*"),
    }
    frame = pd.DataFrame.from_dict(rows, orient="index")
    for column, values in privacy.items():
        frame[column] = [NAN, *values]
    return frame


def test_measures_that_separate_the_runs_and_those_that_do_not():
    (line, reference, _generators, _) = conclusions(table())  # the last: no TRIR (test below)
    assert line.startswith("- **c** (en, 3 runs): separate the runs beyond their uncertainty: UPOS acc.% "
                           "(best: upos maskL +UPOS)")
    assert "do not separate them (no run significantly worse than the best): ATS Rouge 1" in line
    assert "read the same for every run: FAILED % (0)" in line
    # suppression is best on ATS Rouge 1: the reader is told it writes no pseudonym and what ATS Rouge 1 is
    assert reference.startswith("  - ATS Rouge 1: `suppress` is best, though it writes no pseudonym; the measure is")


def test_the_privacy_side_says_whether_the_attacker_tells_the_runs_apart():
    overlapping = table(trir_retrieval=[0.55, 0.56, 0.50], trir_retrieval_low=[0.45, 0.46, 0.40],
                        trir_retrieval_high=[0.65, 0.66, 0.60])
    (privacy,) = conclusions(overlapping)[3:]
    assert privacy == ("- **c**, retrieval re-identification: TRIR 0.500 (suppress (reference)) to 0.560 over 3 runs; "
                       "the attacker cannot tell the runs apart (every 95 % interval overlaps the lowest's).")
    apart = table(trir_retrieval=[0.90, 0.56, 0.20], trir_retrieval_low=[0.85, 0.46, 0.12],
                  trir_retrieval_high=[0.95, 0.66, 0.28])
    assert conclusions(apart)[3].endswith("; 2 of 2 others clearly riskier.")


def test_the_inference_disclosure_is_read_like_the_trir():
    attacked = table(disclosure_mlm=[0.10, 0.30, 0.00], disclosure_mlm_low=[0.05, 0.25, 0.00],
                     disclosure_mlm_high=[0.15, 0.35, 0.00])
    lines = conclusions(attacked)
    assert ("- **c**, mlm inference attack: disclosure 0.000 (suppress (reference)) to 0.300 over 3 runs; 2 of 2 "
            "others clearly riskier.") in lines
    # among the generators, random discloses less than upos, beyond both intervals
    assert lines[2].endswith("best on privacy: `random maskL` on 1 of 1 (clearly, beyond both intervals, on 1: "
                             "mlm inference disclosure).")


def test_a_weak_attacker_is_named_and_the_block_has_its_heading():
    weak = table(trir_retrieval=[0.55, 0.56, 0.50])
    weak.attrs["weak"] = {"retrieval": "original text of c: TRIR 0.717"}
    text = conclusions_markdown(weak)
    assert text.startswith("## What you can conclude")
    assert ("- The retrieval attacker is weak (original text of c: TRIR 0.717, below 0.9 on the original text): "
            "its TRIR understates the risk of every run.") in text


def test_the_generators_alone_are_ranked_on_each_side_with_how_sure():
    # Reference runs left out (suppress is best on ATS Rouge 1, but it is no pseudonymisation): upos
    # wins UPOS accuracy beyond both intervals and Rouge 1 within them; random has the lower TRIR.
    ranked = table(upos_accuracy_low=[0.15, 0.85, NAN], upos_accuracy_high=[0.25, 0.95, NAN],
                   rouge_1_low=[0.35, 0.36, 0.40], rouge_1_high=[0.45, 0.46, 0.50],
                   trir_ensemble=[0.50, 0.60, 0.40], trir_ensemble_low=[0.40, 0.50, 0.30],
                   trir_ensemble_high=[0.60, 0.70, 0.50])
    generators = conclusions(ranked)[2]
    assert generators == (
        "  - Among the generators alone (reference runs are bounds, not pseudonymisations): best on utility: "
        "`upos maskL +UPOS` on 2 of 2 (clearly, beyond both intervals, on 1: UPOS acc.%); best on privacy: "
        "`random maskL` on 1 of 1 (none clearly: within the next generator's interval).")
    apart = ranked.copy()
    apart.loc["r2", ["trir_ensemble", "trir_ensemble_low", "trir_ensemble_high"]] = [0.90, 0.85, 0.95]
    assert conclusions(apart)[2].endswith("best on privacy: `random maskL` on 1 of 1 (clearly, beyond both "
                                          "intervals, on 1: headline TRIR).")


def test_a_corpus_with_one_run_has_nothing_to_compare():
    one = table().loc[["original:c", "r1"]]
    assert conclusions(one)[0] == "- **c** (en, 1 run): one run, nothing to compare it with."


def test_a_corpus_without_any_trir_says_why():
    lines = conclusions(table())  # no TRIR column at all
    assert lines[-1].startswith("- **c**: no re-identification figure: the corpus ships no background knowledge")
    tab = table(trir_retrieval=[NAN, NAN, NAN])
    tab["corpus"] = "tab-test"
    assert lines and conclusions(tab)[-1].startswith("- **tab-test**: no re-identification attack stored for its runs")
