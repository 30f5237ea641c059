"""TAE's weaker attackers: the same attacker knowing only the first 10, 25 or 50 % of each background text.

TAE ships them as files cut from the public background (TAB_test_BK=Public10%.json …): each
text is the whole text's first int(len(text) * share) characters, the leading byte-order mark
counted. `--background-share` cuts the same way; the share is part of the attack key only when
it is below 1, so the keys of whole-background attacks stay as pinned (tests/project/test_pinned_ids.py).
"""

from __future__ import annotations

import json

import pytest

from tests.helpers.entry_point import wb_ok
from tests.privacy.reid_helpers import PEOPLE, corpus, write_run
from workbench.infra.errors import InvalidValue

# The same opening for every individual; what tells them apart comes after it.
PREAMBLE = "JUDGMENT. This judgment will become final in the circumstances set out in Article 44 of the Convention. " \
           "It may be revised."


# The same closing for every individual, so that half of each text reaches past its details.
CLOSING = ("The Court held that there had been a violation of Article 5 of the Convention and awarded the applicant "
           "just satisfaction in respect of non-pecuniary damage, costs and expenses, to be paid within three months.")


def _late_details(path):
    """A background where each text opens with the shared preamble and names its individual only after it:
    the whole text and its first half tie each document to its individual; its first 10 % does not."""
    people = {**PEOPLE, "doc-z": dict(name="Oskar Lindqvist", year="1990", city="Luleå", date="2 May 2010",
                                      org="Norrbotten Harbour Police")}
    texts = {d: f"{PREAMBLE} {p['name']}, born in {p['year']}, lives in {p['city']}; the {p['org']} detained "
                f"{p['name']} on {p['date']}. {CLOSING}" for d, p in people.items()}
    for d, text in texts.items():
        assert people[d]["city"] in text[:int(len(text) * 0.5)] and int(len(text) * 0.1) <= len(PREAMBLE)
    path.write_text(json.dumps(texts, ensure_ascii=False), encoding="utf-8")
    return path


def test_the_first_share_of_each_text_is_cut_by_characters_counting_the_byte_order_mark(tmp_path):
    from workbench.privacy.reid_attacks.background import load_background
    path = tmp_path / "bk.json"
    path.write_text(json.dumps({"a": "\ufeffabcdefghij", "b": "0123456789abcdefghij"}), encoding="utf-8")
    whole = load_background(path)
    quarter, half = load_background(path, 0.25), load_background(path, 0.5)
    assert whole.texts == ("abcdefghij", "0123456789abcdefghij")
    # a: 11 characters with the mark, int(2.75) = 2 -> "\ufeffa"; b: 20 characters, int(5.0) = 5
    assert quarter.texts == ("a", "01234")
    assert half.texts == ("abcd", "0123456789")  # a: int(5.5) = 5 -> "\ufeffabcd"
    assert quarter.sha256 == whole.sha256 and quarter.individuals == whole.individuals  # the same file
    assert whole.share_setting() == {} and quarter.share_setting() == {"background_share": 0.25}
    assert quarter.label == f"bk.json@{whole.sha256[:12]} first 25 %" and whole.label == f"bk.json@{whole.sha256[:12]}"


@pytest.mark.parametrize("share", [0, -0.1, 1.5, "0.1", True])
def test_a_share_outside_zero_to_one_is_refused(tmp_path, share):
    from workbench.privacy.reid_attacks.background import load_background
    path = tmp_path / "bk.json"
    path.write_text(json.dumps({"a": "text"}), encoding="utf-8")
    with pytest.raises(InvalidValue, match="background share must be a number above 0 and at most 1"):
        load_background(path, share)


def test_the_share_is_in_the_attack_key_only_below_one(tmp_path):
    pytest.importorskip("bm25s")
    from workbench.privacy.reid_attacks.attackers import make_attacker
    from workbench.privacy.reid_attacks.background import load_background
    from workbench.privacy.reid_attacks.reid_contract import attack_key, attack_settings
    path = _late_details(tmp_path / "bk.json")
    whole = make_attacker("retrieval", load_background(path), {}, "en")
    at_one = make_attacker("retrieval", load_background(path, 1.0), {}, "en")
    tenth = make_attacker("retrieval", load_background(path, 0.1), {}, "en")
    assert attack_key(whole) == attack_key(at_one) != attack_key(tenth)
    assert attack_settings(whole) == whole.describe()
    assert attack_settings(tenth) == {**whole.describe(), "background_share": 0.1}


def test_a_weaker_trained_attacker_is_trained_apart(tmp_path, tiny_bert):
    from workbench.privacy.reid_attacks.attackers import make_attacker
    from workbench.privacy.reid_attacks.background import load_background
    path = _late_details(tmp_path / "bk.json")
    base = {"base_model": str(tiny_bert)}  # where the model is cached, not what it learns: any encoder does
    whole = make_attacker("trained", load_background(path), base, "en")
    tenth = make_attacker("trained", load_background(path, 0.1), base, "en")
    assert whole.model_dir != tenth.model_dir  # never the whole background's cached model for a weaker one


def test_trir_of_a_weaker_attacker_is_computed_on_the_cut_background(store, tmp_path):
    pytest.importorskip("bm25s")
    from workbench.privacy.reid_attacks.reid import reid_documents, reid_risk
    path = _late_details(tmp_path / "bk.json")
    run = write_run(store, corpus(), "original", lambda s: s.text)
    whole = reid_risk(store, [run], background=path).iloc[0]
    tenth = reid_risk(store, [run], background=path, background_share=0.1).iloc[0]
    assert whole.trir == 1.0 and whole.background_share == 1.0
    # The first 10 % of every text is the same preamble: all 6 individuals tie, 1/6 each in expectation.
    assert tenth.trir == pytest.approx(1 / 6) and tenth.mean_rank == pytest.approx(3.5)
    assert tenth.background_share == 0.1 and tenth.background.endswith(" first 10 %")
    assert tenth.attack_key != whole.attack_key
    docs = reid_documents(store, run, tenth.attack_key)
    assert (docs.n_tied == 5).all() and len(docs) == 5
    stored = store.db.execute("SELECT DISTINCT config FROM reid_results WHERE attack_key = ?",
                              (tenth.attack_key,)).fetchall()
    assert [json.loads(c)["background_share"] for (c,) in stored] == [0.1]


def test_the_command_asks_for_a_weaker_attacker_and_names_it(store, tmp_path):
    pytest.importorskip("bm25s")
    path = _late_details(tmp_path / "bk.json")
    run = write_run(store, corpus(), "original", lambda s: s.text)
    out = wb_ok("privacy", "reid", run, "--background", str(path), "--background-share", "0.1",
                store=tmp_path / "runs.sqlite")
    line = next(line for line in out.splitlines() if line.startswith(run[:12]))
    assert "retrieval 10 %" in line and " 0.167 " in line
    assert "first 10 %" in out.splitlines()[-1]  # the background it read


def test_the_report_keeps_whole_background_trir_apart_from_the_weaker_attackers(store, tmp_path):
    pytest.importorskip("bm25s")
    from workbench.privacy.reid_attacks.reid import reid_risk
    from workbench.reports.privacy import attacks_caption, privacy_measures
    path = _late_details(tmp_path / "bk.json")
    run = write_run(store, corpus(), "original", lambda s: s.text)
    whole = reid_risk(store, [run], background=path).attack_key[0]
    tenth = reid_risk(store, [run], background=path, background_share=0.1).attack_key[0]
    half = reid_risk(store, [run], background=path, background_share=0.5).attack_key[0]
    measures = privacy_measures(store, [run])
    assert measures.at[run, "trir_retrieval"] == 1.0  # the whole background's, whichever key sorts first
    assert measures.at[run, "trir_retrieval_bk10"] == pytest.approx(1 / 6)
    # with the stored attack's interval (issue 40): every document ties its individual with all six
    # (the preamble alone), each contributes 1/6, so every resample of the documents reads 1/6
    assert measures.at[run, "trir_retrieval_bk10_low"] == pytest.approx(1 / 6)
    assert measures.at[run, "trir_retrieval_bk10_high"] == pytest.approx(1 / 6)
    assert measures.at[run, "trir_retrieval_bk50"] == 1.0  # half of each text names the individual
    assert measures.attrs["attack_keys"]["retrieval"] == whole
    assert list(measures.attrs["attack_keys"])[0] == "retrieval"  # the caption names the whole-background attack first
    assert measures.attrs["attack_keys"]["retrieval 10 %"] == tenth
    assert f"retrieval 50 %:{half}" in attacks_caption(measures)
