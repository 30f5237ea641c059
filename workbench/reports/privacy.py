"""Privacy beside utility (issue 12 item 5): the report's privacy table and the privacy–utility figure.

Read-only over what the privacy attacks stored: nothing here attacks. `privacy_measures`
collects, per run, the re-identification results (workbench.privacy.reid_attacks.reid.stored_reid_risk:
TRIR, mean rank, share within rank k, per attacker; and paper 001 §6's ensemble TRIR over the
re-identification attacks shown, workbench.privacy.reid_attacks.reid.ensemble_trir) and the inference disclosure
(workbench.privacy.inference_attacks.inference.stored_disclosure, per attacker) and the known-pair recovery of
dates and other values (workbench.privacy.known_pair_runs, caption key "known-pair:v1"). Where a run was attacked
under several attack keys of one attacker (another background, other settings), the key
most of the reported runs share is shown, so every row of a column comes from the same
attack; the caption names the keys. A re-identification attack that has not reached every
document of a run is not shown for it; an inference attack that has not reached every replaced
span is, with what it covers ("0.127 (230 of 1802 spans)"). Every TRIR (each attacker's, the
weaker attackers', the ensemble's) and every disclosure rate has its 95 % bootstrap interval
beside it (`<measure>_low` / `_high`; documents resampled, a span with its document), written as
the utility tables write theirs (reports.tables.metric_cell).

The headline (issue 39 item 4): `trir_ensemble` (HEADLINE) is the strongest attack shown, 001's
ensemble of every re-identification attacker run over one background (a document counts as
re-identified when any of them ranks its individual first; an ensemble of one attacker is its
TRIR), with every attacker's own TRIR beside it and `candidates`, the individuals that background
holds (a background may hold more than the corpus protects: TAE's TAB_testdev_BK=Public10%.json,
254 for 127 documents). Where attackers were run over different backgrounds, the headline takes
the background most of them used (ties: the one most runs were attacked over, then the
strongest, then by name); `attrs["headline"]` and
the caption name its attackers and background. The headline figure, the privacy–utility figure
and the conclusions read that one column.

`privacy_utility_points` puts each run at (TRIR, utility) for utility = TPS and word
similarity (docs/metrics.md), per corpus, and marks the Pareto front: the runs no other run
of the corpus beats on both axes (lower TRIR and higher utility, at least as good on both
and better on one). `privacy_figure.privacy_utility_fig` draws it; the report and the dashboard's
Metrics page both call these, so they show the same figure.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

import numpy as np
import pandas as pd

from workbench.metrics.base import HIGHER, LOWER, MetricInfo
from workbench.metrics.intervals import HIGH, LOW
from workbench.privacy.inference_attacks.inference_attackers import INFERENCE_ATTACKERS
from workbench.privacy.reid_attacks.attackers import ATTACKERS as REID_ATTACKERS
from workbench.privacy.reid_attacks.attackers import transductive
from workbench.privacy.reid_attacks.background import share_text
from workbench.privacy.reid_attacks.reid_contract import DEFAULT_K
from workbench.reports.privacy_aware import aware_caption, aware_counterparts, aware_measure, secrecy_measure
from workbench.reports.privacy_inference import coverage_texts, sample_caption
from workbench.reports.table_specs import Column, TableSpec
from workbench.reports.tables import COVERAGE

UTILITY = ("tps", "similarity_word")
WEAKER_SHARES = (0.5, 0.25, 0.1)  # TAE's files TAB_test_BK=Public50%/25%/10%.json


def weaker_measure(attacker: str, share: float) -> str:
    """The measure of a weaker attacker's TRIR: trir_retrieval_bk10 for the first 10 %."""
    return f"trir_{attacker}_bk{share * 100:g}"


FAMILY = "privacy"
INFOS = {
    **{f"trir_{a}": MetricInfo(f"trir_{a}", f"TRIR {a}", FAMILY, 0, 1, LOWER, "TAE / 004 §4.2",
                               f"accuracy@1 of the {a} re-identification attacker (share of documents re-identified)")
       for a in REID_ATTACKERS},
    **{f"rank_le_k_{a}": MetricInfo(f"rank_le_k_{a}", f"rank≤k {a}", FAMILY, 0, 1, LOWER, "001 (k-anonymity view)",
                                    f"share of documents whose individual the {a} attacker ranks within k")
       for a in REID_ATTACKERS},
    **{f"mean_rank_{a}": MetricInfo(f"mean_rank_{a}", f"mean rank {a}", FAMILY, 1, None, HIGHER, "001",
                                    f"mean rank of the true individual under the {a} attacker (higher = safer)")
       for a in REID_ATTACKERS},
    # The attacker that knows the method (reports.privacy_aware), and what the method's secrecy is worth.
    **{aware_measure(a): MetricInfo(aware_measure(a), f"TRIR {a}+method", FAMILY, 0, 1, LOWER, "Kerckhoffs (issue 39)",
                                    f"accuracy@1 of the {a} attacker that knows the run's method (its background "
                                    "as the method rewrites it)")
       for a in REID_ATTACKERS},
    **{secrecy_measure(a): MetricInfo(secrecy_measure(a), f"Δ aware {a}", FAMILY, -1, 1, LOWER, "issue 39",
                                      f"TRIR of the method-aware {a} attacker minus the method-blind one's: what "
                                      "the method's secrecy is worth (an evaluation should not rely on it)")
       for a in REID_ATTACKERS},
    # TAE's weaker attackers: the same attacker knowing only the first 50, 25 or 10 % of each background text.
    **{weaker_measure(a, share): MetricInfo(weaker_measure(a, share), f"TRIR {a} {share_text(share)}", FAMILY, 0, 1,
                                            LOWER, "TAE (weaker attackers)",
                                            f"accuracy@1 of the {a} re-identification attacker that knows only the "
                                            f"first {share_text(share)} of each background text")
       for a in REID_ATTACKERS for share in WEAKER_SHARES},
    "trir_ensemble": MetricInfo("trir_ensemble", "TRIR (strongest attacker)", FAMILY, 0, 1, LOWER, "001 §6",
                                "the headline TRIR: share of documents that at least one re-identification attack "
                                "of the ensemble (every attacker shown over one background, method-blind and, where "
                                "stored, method-aware) ranks first; ties in expectation"),
    "candidates": MetricInfo("candidates", "candidates", FAMILY, 1, None, HIGHER, "TAE / 004 §5.6",
                             "individuals the headline's background holds, among whom each document's attacker "
                             "picks (more than the corpus protects where the background is a superset)"),
    **{f"disclosure_{a}": MetricInfo(f"disclosure_{a}", f"disclosure {a}", FAMILY, 0, 1, LOWER, "004 §3.2",
                                     f"share of replaced spans whose original the {a} inference attack discloses")
       for a in INFERENCE_ATTACKERS},
    # workbench.privacy.known_pair: `workbench privacy known-pair` stores the counts with the run.
    **{f"known_pair_{kind}": MetricInfo(f"known_pair_{kind}", f"known pair {kind}", FAMILY, 0, 1, LOWER,
                                        "beyond the seeds (issue 27)",
                                        f"share of other {what} of a document recovered from one known "
                                        "original-pseudonym pair, every pair in turn")
       for kind, what in (("date", "calendar dates"), ("other", "values (entity mentions and the spans reached)"))},
}
MEASURES = tuple(INFOS)

# The headline TRIR: the strongest attack shown (001's ensemble over every attacker run on one background).
HEADLINE = "trir_ensemble"
HEADLINE_GROUP = "Headline re-id.: any attacker (001)"
# The attackers a privacy table shows when none was run: their columns read "–" (the dashboard: how to run them).
FIRST_ATTACKERS = ("retrieval", "trained")


def _attacker_group(attacker: str) -> str:
    return f"{attacker[0].upper()}{attacker[1:]} re-id."


TABLE = TableSpec("table_privacy", "Privacy: re-identification risk (TRIR, rank ≤ k), inference disclosure, "
                  "originals kept verbatim and PII overlap (lower is safer)", (
    # 001 §6: re-identified when any attacker beside it ranks the individual first (caption: headline=).
    Column(HEADLINE, "TRIR↓", HEADLINE_GROUP, digits=3),
    Column("candidates", "candidates", HEADLINE_GROUP, digits=0),
    *(column for a in REID_ATTACKERS for column in (Column(f"trir_{a}", "TRIR↓", _attacker_group(a), digits=3),
                                                     Column(f"rank_le_k_{a}", "rank≤k↓", _attacker_group(a),
                                                            digits=3),
                                                     # the attacker that knows the method, and aware − blind
                                                     Column(aware_measure(a), "+method↓", _attacker_group(a),
                                                            digits=3),
                                                     Column(secrecy_measure(a), "Δ method", _attacker_group(a),
                                                            digits=3))),
    # TAE's weaker attackers: the retrieval attacker knowing only the start of each background text.
    *(Column(weaker_measure("retrieval", share), f"{share_text(share)}↓", "Retrieval re-id., weaker (TAE)",
             digits=3) for share in WEAKER_SHARES),
    Column("disclosure_mlm", "MLM↓", "Inference disclosure", digits=3),
    Column("disclosure_ollama", "LLM↓", "Inference disclosure", digits=3),
    Column("known_pair_date", "dates↓", "Known pair", digits=3),
    Column("known_pair_other", "other↓", "Known pair", digits=3),
    # Numbers, codes and dates included (003's overlap, beside it, leaves numerals out): the
    # `original` reference run reads 100 %, `suppress` and `label` 0 % (workbench.text.overlap_rules.verbatim_leak).
    Column("leak_verbatim", "verbatim", "Kept %", scale=100, digits=2),  # the table adds the arrow
    Column("overlap_partial", "part.", "PII overlap %", scale=100, digits=2),
    Column("overlap_absolute", "abs.", "PII overlap %", scale=100, digits=2),
    Column("overlap_partial_content", "part. content", "PII overlap %", scale=100, digits=2),
))


def table_spec(measures: pd.DataFrame) -> TableSpec:
    """TABLE with the columns of the re-identification attackers run for these measures (the
    headline's and the others shown); where none was, those of FIRST_ATTACKERS, reading "–"; an
    attacker's method-aware columns where some run has its method-aware attack."""
    keys = measures.attrs.get("attack_keys", {})
    run = [a for a in REID_ATTACKERS if a in keys] or list(FIRST_ATTACKERS)
    dropped = {f"{m}_{a}" for a in REID_ATTACKERS if a not in run for m in ("trir", "rank_le_k")}
    aware = measures.attrs.get("method_aware", {})
    dropped |= {m(a) for a in REID_ATTACKERS if a not in aware for m in (aware_measure, secrecy_measure)}
    return TableSpec(TABLE.name, TABLE.title, tuple(c for c in TABLE.columns if c.metric not in dropped),
                     TABLE.originals)


def _stored_reid(store, run_ids: Sequence[str], k: int) -> pd.DataFrame:
    try:
        from workbench.privacy.reid_attacks.reid import stored_reid_risk
    except ImportError:  # the privacy part of an install is missing: no results to show
        return pd.DataFrame()
    return stored_reid_risk(store, run_ids, k=k)


def _stored_ensemble_by_run(store, keys_by_run: dict[str, list[str]]) -> pd.DataFrame:
    from workbench.privacy.reid_attacks.reid import (
        stored_ensemble_by_run,  # importable wherever _stored_reid found results
    )
    return stored_ensemble_by_run(store, keys_by_run)  # trir, trir_low, trir_high


def _aware_measures(out: pd.DataFrame, reid: pd.DataFrame, keys: dict[str, str]) -> dict[str, dict[str, str]]:
    """Each shown attacker's method-aware TRIR (with its interval) and aware − blind into `out`, for
    the runs that have one (reports.privacy_aware); returns attacker -> run -> its aware attack key."""
    found: dict[str, dict[str, str]] = {}
    for attacker, key in keys.items():
        rows = aware_counterparts(reid, attacker, key).reindex(out.index)
        rows = rows[rows["attack_key"].notna()]
        if rows.empty:
            continue
        found[attacker] = rows["attack_key"].astype(str).to_dict()
        for bound in ("", LOW, HIGH):
            out[aware_measure(attacker) + bound] = rows[f"trir{bound}"].reindex(out.index).astype(float)
        out[secrecy_measure(attacker)] = out[aware_measure(attacker)] - out[f"trir_{attacker}"]
    return found


def strongest_background(reid: pd.DataFrame) -> str | None:
    """The background of the headline (001's ensemble ranks one set of individuals): the one the
    most attackers were run over, then the one over which the most runs were attacked (a background
    attacked for one run only would give the others no headline), ties to the strongest (the highest
    mean TRIR of its attacks over the runs), then by name. reid: the stored attacks of the runs (one
    row per run and key)."""
    if reid.empty:
        return None
    grouped = reid.groupby("background")
    rank = pd.DataFrame({"attackers": grouped["attacker"].nunique(), "runs": grouped["run_id"].nunique(),
                         "trir": grouped["trir"].mean()})
    rank["name"] = rank.index
    return str(rank.sort_values(["attackers", "runs", "trir", "name"],
                                ascending=[False, False, False, True]).index[0])


def ensemble_keys(reid: pd.DataFrame, keys: dict[str, str]) -> dict[str, str]:
    """The re-identification attacks the headline combines: every attacker's key shown (keys) over
    one background, strongest_background of the keys shown."""
    shown = {a: keys[a] for a in REID_ATTACKERS if a in keys}
    attacks = reid[reid["attack_key"].isin(list(shown.values()))]
    chosen = strongest_background(attacks)
    background = attacks.drop_duplicates("attack_key").set_index("attack_key")["background"]
    return {a: key for a, key in shown.items() if background[key] == chosen}


def headline_of(reid: pd.DataFrame, combined: dict[str, str], aware: dict[str, dict[str, str]] | None = None) -> dict:
    """What produced the headline: its attackers, their background (file@hash) and its candidates;
    where method-aware attacks join it (aware: attacker -> run -> key, of the attackers combined),
    "method_aware": attacker -> the number of runs it joins for."""
    if not combined:
        return {}
    first = reid[reid["attack_key"] == next(iter(combined.values()))].iloc[0]
    out = {"attackers": list(combined), "background": str(first["background"]),
           "candidates": int(first["n_candidates"])}
    joined = {a: len(runs) for a, runs in (aware or {}).items() if a in combined and runs}
    if joined:
        out["method_aware"] = joined
    return out


def headline_text(measures: pd.DataFrame) -> str:
    """"any of retrieval, retrieval-ids over TAB_test_BK_public.json@4f0c… (127 candidates)", or
    "none stored"; what the report, the dashboard and the figures say produced the headline TRIR."""
    return describe_headline(measures.attrs.get("headline", {}))


def describe_headline(headline: dict) -> str:
    """headline_text of a headline_of dict."""
    if not headline:
        return "none stored"
    attackers = headline["attackers"]
    who = attackers[0] if len(attackers) == 1 else "any of " + ", ".join(attackers)
    aware = headline.get("method_aware", {})
    if aware:  # "any of retrieval, trained, with retrieval+method (2 runs)"
        who = (f"any of {', '.join(attackers)}" if len(attackers) > 1 else attackers[0]) + ", with " + ", ".join(
            f"{a}+method ({n} run{'s' if n != 1 else ''})" for a, n in aware.items())
    return f"{who} over {headline['background']} ({headline['candidates']} candidates)"


def _stored_disclosure(store, run_ids: Sequence[str]) -> pd.DataFrame:
    try:
        from workbench.privacy.inference_attacks.inference import stored_disclosure
    except ImportError:
        return pd.DataFrame()
    return stored_disclosure(store, run_ids)


def _stored_known_pair(store, out: pd.DataFrame, keys: dict[str, str]) -> None:
    """The known-pair recovery of the runs that were attacked (NaN for the others) into `out`."""
    from workbench.privacy.known_pair_runs import KIND, VERSION, recovery_by_kind, stored_counts
    counts = stored_counts(store, out.index.tolist())
    if counts.empty:
        return
    recovery = recovery_by_kind(counts)
    for kind in ("date", "other"):
        out[f"known_pair_{kind}"] = recovery[kind].reindex(out.index).astype(float)
    keys[KIND] = f"v{VERSION}"


def shared_key(frame: pd.DataFrame, attacker: str) -> str | None:
    """The attack key of this attacker that most runs of the frame have (ties: the first in
    sorted order, so the choice never depends on storage order)."""
    if frame.empty:
        return None
    keys = Counter(frame.loc[frame["attacker"] == attacker, "attack_key"])
    if not keys:
        return None
    return sorted(keys.items(), key=lambda kv: (-kv[1], kv[0]))[0][0]


def privacy_measures(store, run_ids: Sequence[str], *, k: int = DEFAULT_K) -> pd.DataFrame:
    """One row per run (index run_id, in the order given), a column per measure (NaN where not
    stored); `.attrs["attack_keys"]`: attacker -> the attack key shown."""
    records = {record.run_id: record for record in (store.resolve_run(r) for r in run_ids)}
    ids = list(records)
    out = pd.DataFrame(index=pd.Index(ids, name="run_id"), columns=list(MEASURES), dtype=float)
    keys: dict[str, str] = {}
    reid = _stored_reid(store, out.index.tolist(), k)
    if not reid.empty:
        reid = reid[reid["complete"].astype(bool)] if "complete" in reid else reid
        weaker = reid[reid["background_share"] != 1]
        reid = reid[reid["background_share"] == 1]  # the main columns: attackers that know every background text
        # Each attacker's column over the headline's background where it was run over it, so that
        # the headline combines every attacker it can (a user may attack over several backgrounds).
        over = reid[reid["background"] == strongest_background(reid)]
        for attacker in REID_ATTACKERS:
            key = shared_key(over, attacker) or shared_key(reid, attacker)
            if key is None:
                continue
            keys[attacker] = key
            rows = reid[reid["attack_key"] == key].set_index("run_id")
            for measure in ("trir", "rank_le_k", "mean_rank"):
                out[f"{measure}_{attacker}"] = rows[measure].reindex(out.index).astype(float)
            for bound in (LOW, HIGH):  # the table writes the interval beside TRIR (reports.tables.metric_cell)
                out[f"trir_{attacker}{bound}"] = rows[f"trir{bound}"].reindex(out.index).astype(float)
        aware = _aware_measures(out, reid, keys)
        combined = ensemble_keys(reid, keys)
        out.attrs["ensemble"] = combined
        out.attrs["method_aware"] = aware
        out.attrs["headline"] = headline_of(reid, combined, aware)
        if combined:
            # each run's ensemble: the blind attacks combined and, where stored, their method-aware ones
            by_run = {run_id: [*combined.values(), *(aware[a][run_id] for a in combined
                                                     if run_id in aware.get(a, {}))]
                      for run_id in out.index}
            ensemble = _stored_ensemble_by_run(store, by_run)
            for bound in ("", LOW, HIGH):
                out[f"{HEADLINE}{bound}"] = ensemble[f"trir{bound}"].to_numpy(dtype=float)
            # Each run's candidates under the headline's background (NaN where the headline has no figure).
            rows = reid[reid["attack_key"] == next(iter(combined.values()))].set_index("run_id")
            counts = rows["n_candidates"].reindex(out.index).astype(float)
            out["candidates"] = counts.where(out[HEADLINE].notna())
        _weaker_measures(out, weaker, keys)  # after the main attacks: the caption names those first
    inference, samples = _stored_disclosure(store, out.index.tolist()), {}
    if not inference.empty:
        for attacker in INFERENCE_ATTACKERS:
            key = shared_key(inference, attacker)
            if key is None:
                continue
            keys[attacker] = key
            rows = inference[inference["attack_key"] == key].set_index("run_id")
            # with its interval (spans resampled with their documents: privacy.inference.disclosure_rates)
            for bound in ("", LOW, HIGH):
                out[f"disclosure_{attacker}{bound}"] = rows[f"disclosure{bound}"].reindex(out.index).astype(float)
            # An attack over part of a run (`privacy infer --docs`, a benchmark's sample): its rate is
            # over the spans attacked, and the cell says so, "0.127 (16 of 127 documents)"; the caption
            # names a benchmark's sample (reports.privacy_inference).
            coverage = coverage_texts(store, rows, key)
            if coverage:
                out[f"disclosure_{attacker}{COVERAGE}"] = pd.Series(coverage).reindex(out.index)
            samples[attacker] = sample_caption(store, records, attacker, key, rows.index.tolist())
    out.attrs["inference_samples"] = {a: text for a, text in samples.items() if text}
    _stored_known_pair(store, out, keys)
    out.attrs["attack_keys"] = keys
    out.attrs["k"] = k
    out.attrs["weak"] = weak_attackers(out, records)
    return out


# An attacker that does not re-identify nearly every document of the original text, the easiest
# case there is, is weaker than the field's (TAE's attacker re-identifies the original TAB test
# split almost completely): its TRIR on an anonymisation understates the risk (issue 39).
WEAK_BELOW = 0.9


def weak_attackers(out: pd.DataFrame, records: dict) -> dict[str, str]:
    """attacker -> where it is weak ("original text of CORPUS: TRIR 0.717"), for every attacker
    shown whose TRIR on an `original` reference run of the report is below WEAK_BELOW, and the
    headline itself ("headline") where even the strongest attack shown is."""
    weak: dict[str, str] = {}
    originals = [r for r, record in records.items() if record.generator == "original"]
    for attacker in (*REID_ATTACKERS, "headline"):
        column = HEADLINE if attacker == "headline" else f"trir_{attacker}"
        if column not in out:
            continue
        for run_id in originals:
            trir = out.at[run_id, column]
            if not np.isnan(trir) and trir < WEAK_BELOW:
                weak[attacker] = f"original text of {records[run_id].corpus_name}: TRIR {trir:.3f}"
    return weak


def _weaker_measures(out: pd.DataFrame, weaker: pd.DataFrame, keys: dict[str, str]) -> None:
    """TRIR of TAE's weaker attackers into `out` (their keys into `keys`, named "retrieval 10 %")."""
    for attacker in REID_ATTACKERS:
        for share in WEAKER_SHARES:
            key = shared_key(weaker[weaker["background_share"] == share], attacker)
            if key is not None:
                keys[f"{attacker} {share_text(share)}"] = key
                rows = weaker[weaker["attack_key"] == key].set_index("run_id")
                for bound in ("", LOW, HIGH):
                    out[weaker_measure(attacker, share) + bound] = rows[f"trir{bound}"].reindex(out.index).astype(float)


def with_privacy(table: pd.DataFrame, measures: pd.DataFrame) -> pd.DataFrame:
    """The metric table (compute_metrics) with the privacy measures as columns; the Original
    pseudo-rows get none (they were never attacked)."""
    joined = table.join(measures, how="left")
    joined.attrs.update(measures.attrs)
    return joined


def attacks_caption(measures: pd.DataFrame) -> str:
    keys = measures.attrs.get("attack_keys", {})
    if not keys:
        return ("attacks=none stored (run `workbench privacy reid` / `workbench privacy infer` / "
                "`workbench privacy known-pair` first)")
    caption = f"k={measures.attrs.get('k', DEFAULT_K)}|attacks=" + ",".join(f"{a}:{key}" for a, key in keys.items())
    combined = measures.attrs.get("ensemble", {})
    if combined:
        caption += (f"|headline TRIR={headline_text(measures)}: a document re-identified when any of "
                    + "+".join(f"{a}:{key}" for a, key in combined.items()) + " ranks its individual first")
        apart = [a for a in REID_ATTACKERS if a in keys and a not in combined]
        if apart:
            caption += f" ({', '.join(apart)}: another background, shown beside it, not in it)"
        joined = [a for a in combined if a in measures.attrs.get("method_aware", {})]
        caption += (f", and for the runs that have them their method-aware attacks ({', '.join(joined)}+method)"
                    if joined else "; no method-aware attack stored (`workbench privacy reid --method-aware`)")
    caption += aware_caption(measures.attrs.get("method_aware", {}))
    whole_run = [a for a in keys if transductive(a)]
    if whole_run:  # its figure assumes the attacker holds the whole released run, not one document
        caption += (f"|transductive: {', '.join(whole_run)} scores each document against all of the attacked "
                    "run's documents (an attacker holding the released corpus)")
    caption += "".join(f"|{text}" for text in measures.attrs.get("inference_samples", {}).values())
    weak = measures.attrs.get("weak", {})
    if weak:
        caption += ("|WEAK attacker(s), below " + f"{WEAK_BELOW:g} on the original text, so their TRIR understates "
                    "the risk: " + "; ".join(f"{a} ({where})" for a, where in weak.items()))
    return caption


def reid_axis(table: pd.DataFrame) -> str | None:
    """The re-identification attacker on the figure's x axis: the one with results for most runs
    (retrieval on a tie: it needs no training, so it is the one most often run)."""
    counts = {a: int(table[f"trir_{a}"].notna().sum()) for a in REID_ATTACKERS if f"trir_{a}" in table}
    best = max(counts.values(), default=0)
    return next((a for a in REID_ATTACKERS if counts.get(a) == best), None) if best else None


def pareto_front(risk: Sequence[float], utility: Sequence[float]) -> np.ndarray:
    """True for each point no other point dominates (risk lower-or-equal and utility higher-or-
    equal, one of them strictly); points with a missing value are never on the front."""
    r, u = np.asarray(risk, dtype=float), np.asarray(utility, dtype=float)
    ok = ~(np.isnan(r) | np.isnan(u))
    front = np.zeros(len(r), dtype=bool)
    for i in np.flatnonzero(ok):
        others = ok & (np.arange(len(r)) != i)
        dominated = others & (r <= r[i]) & (u >= u[i]) & ((r < r[i]) | (u > u[i]))
        front[i] = not dominated.any()
    return front


def headline_column(table: pd.DataFrame) -> tuple[str | None, str]:
    """The TRIR column the headline figures read and how to name its attacker: HEADLINE where the
    table has it ("strongest (any of retrieval, trained)"); else (a table made without the privacy
    measures' attrs) the attacker reid_axis picks."""
    if HEADLINE in table and table[HEADLINE].notna().any():
        attackers = table.attrs.get("headline", {}).get("attackers", [])
        return HEADLINE, "strongest" + (f" ({'any of ' if len(attackers) > 1 else ''}{', '.join(attackers)})"
                                        if attackers else "")
    attacker = reid_axis(table)
    return (None, "") if attacker is None else (f"trir_{attacker}", attacker)


def privacy_utility_points(table: pd.DataFrame, utility: Sequence[str] = UTILITY) -> pd.DataFrame:
    """Per corpus and run: label, TRIR (the headline's: headline_column), each utility measure and
    whether the run is on that measure's Pareto front, and the 95 % intervals of TRIR and of each
    utility measure (`trir_low`, `<measure>_high`…: the table's, NaN where it has none; the figure
    draws them as a cross per run). Runs without TRIR are left out. utility:
    the measures (default UTILITY; `workbench report --utility`, checked by
    privacy_figure.utility_axes)."""
    from workbench.metrics.metric_frame import run_rows
    from workbench.metrics.run_names import run_names
    trir, attacker = headline_column(table)
    # generator, then the intervals (the figure's crosses) last: the columns readers had keep their places.
    columns = ["corpus", "run_id", "label", "attacker", "trir", *utility, *(f"front_{u}" for u in utility),
               "generator", *(m + bound for m in ("trir", *utility) for bound in (LOW, HIGH))]
    if trir is None:
        return pd.DataFrame(columns=columns)
    keep = table.index.isin(run_rows(table)) & table[trir].notna().to_numpy()
    rows = table[keep]
    out = pd.DataFrame({
        "corpus": rows["corpus"].to_numpy(), "run_id": rows.index.to_numpy(),
        "label": run_names(table)[rows.index].tolist(),  # the names of the tables and the other figures
        "attacker": attacker, "trir": rows[trir].to_numpy(dtype=float),
        "generator": rows["generator"].astype(str).to_numpy()})
    for bound in (LOW, HIGH):  # each point's 95 % intervals, NaN where the table has none
        out["trir" + bound] = _column(rows, f"{trir}{bound}")
        for u in utility:
            out[u + bound] = _column(rows, u + bound)
    for u in utility:
        out[u] = rows[u].to_numpy(dtype=float) if u in rows else np.nan
        out[f"front_{u}"] = False
        for _, group in out.groupby("corpus", sort=False):
            out.loc[group.index, f"front_{u}"] = pareto_front(group["trir"], group[u])
    return out[columns]


def _column(rows: pd.DataFrame, name: str) -> np.ndarray:
    return rows[name].to_numpy(dtype=float) if name in rows else np.full(len(rows), np.nan)


UTILITY_TITLES = {"tps": "TPS (004 §4.1) ↑", "similarity_word": "word similarity ↑",
                  "morph_all": "morphological agreement (all features) ↑"}


def label_clusters(xs, ys, low: float, high: float = 1.03) -> list[list[int]]:
    """Indices of points grouped for one number label: a point within 3 % of both axes of a
    group's first (highest) point joins it, so labels of near-identical runs never overlap."""
    order = sorted(range(len(xs)), key=lambda i: -ys[i])
    groups: list[list[int]] = []
    for i in order:
        for g in groups:
            j = g[0]
            if abs(xs[i] - xs[j]) <= 0.03 and abs(ys[i] - ys[j]) <= 0.03 * (high - low):
                g.append(i)
                break
        else:
            groups.append([i])
    return groups
