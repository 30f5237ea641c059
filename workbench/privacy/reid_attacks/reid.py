"""Re-identification risk of stored runs: TRIR, mean rank of the true individual, share within rank k.

    reid_risk(store, ["a1b2c3"], attacker="retrieval", k=10)          # attack (or reuse), one row per run
    stored_reid_risk(store)                                           # read what is stored, never attack

An attacker (workbench.privacy.reid_attacks.retrieval, workbench.privacy.reid_attacks.trained) has learnt, from a
background file of public texts about a superset of the corpus's individuals
(workbench.privacy.reid_attacks.background), to score every individual for a text. It is shown each
document of a run as the run pseudonymised it (workbench.text.replace.pseudonymise: every
span replaced by the run's pseudonym; an empty pseudonym removes the span) and ranks the
individuals; the document's own individual is its doc_id.

Per document the store keeps how many individuals scored above the true one (n_higher)
and level with it (n_tied). Ties are resolved as a uniformly random choice among the
tied, in expectation, so an attacker that learnt nothing scores TRIR = 1/n and mean rank
(n+1)/2 rather than 1 or n:
    hit      = 1/(n_tied+1) if n_higher == 0 else 0     -> TRIR = mean over documents (accuracy@1; 004 §4.2)
    rank     = n_higher + 1 + n_tied/2                   -> mean rank (lower = more exposed)
    rank<=k  = clip((k - n_higher)/(n_tied+1), 0, 1)     -> share within rank k (paper 001's k-anonymity view:
                                                            a document is k-anonymous when its individual is
                                                            NOT among the attacker's top k)
A document whose individual has no background text counts as not re-identified in TRIR
and rank<=k (as in TAE) and is left out of the mean rank; the frame says how many.

The ensemble rate (paper 001 §6, ensemble_trir): a document counts as re-identified if any
attack of the ensemble (several attack keys over one background) ranks its individual first;
ties in expectation, the attackers' tie-breaks independent: hit = 1 − Π (1 − hit_key). Its 95 % interval
(ensemble_intervals), as each attacker's TRIR's, resamples the documents.

Weaker attackers (TAE): `background_share` < 1 gives the attacker only the first share of
each background text (workbench.privacy.reid_attacks.background: TAE's 10, 25 and 50 % files); the share
is part of the attack key and of the stored settings, and results name it ("retrieval 10 %").

Results are cached per (run, attack key): the key hashes the attacker, its settings (the
background share among them, where not 1) and the background file's bytes; each row also
holds the hash of the attacked text, so a run whose predictions changed is attacked again.
Documents are attacked in batches, one transaction each: an interrupted attack resumes where
it stopped.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from workbench.executors.contract import BatchTask, ScoringJob
from workbench.executors.options import ExecutorOptions, executor_for
from workbench.infra.errors import InvalidValue, WorkbenchError
from workbench.privacy.reid_attacks.attackers import REGISTRY, make_attacker
from workbench.privacy.reid_attacks.background import load_background, resolve_background, share_text
from workbench.privacy.reid_attacks.reid_contract import DEFAULT_K, Attacker, attack_key, attack_settings
from workbench.privacy.reid_attacks.reid_store import ReidRow, new_row, rows_frame, save_rows, stored_rows
from workbench.store import COMPLETE, RunRecord, RunStore
from workbench.store.own_detections import own_detections
from workbench.text.replace import pseudonymise

METRIC_COLUMNS = ["run_id", "attacker", "attack_key", "trir", "mean_rank", "rank_le_k", "k", "n_documents",
                  "n_without_background", "n_candidates", "background", "complete", "background_share",
                  "trir_low", "trir_high", "settings"]
# Documents per transaction where the attacker declares none (its class's `batch_documents`: small
# enough that an interrupted trained attack loses seconds).
BATCH_DOCUMENTS = 16
SHOWN_DOCUMENTS = 5  # a failed batch names this many of its documents


def rank_of(scores: np.ndarray, true_index: int) -> tuple[int, int]:
    """(candidates scored above the true one, others scored exactly as high)."""
    true = scores[true_index]
    return int(np.sum(scores > true)), int(np.sum(scores == true)) - 1


def attacked_texts(store: RunStore, run: RunRecord) -> dict[str, str]:
    """doc_id -> the document as the run pseudonymised it (spans not to replace stay as they are), with an
    imported system's own detections outside the spans (workbench.store.own_detections)."""
    if run.status != COMPLETE:
        done = store.count_predictions(run.run_id)
        raise WorkbenchError(f"run {run.run_id} is not complete ({done}/{run.n_slots} spans generated); its "
                             "missing spans would be attacked with their original text. Resume it first (run the "
                             "same `workbench generate` command again)")
    corpus = store.load_corpus(run.corpus_hash)
    pseudonyms: dict[str, dict[int, str]] = {}
    for p in store.predictions(run.run_id):
        pseudonyms.setdefault(p.doc_id, {})[p.span_index] = p.pseudonym
    outside = own_detections(store, run.run_id)
    return {d.doc_id: pseudonymise(d, pseudonyms.get(d.doc_id, {}), outside.get(d.doc_id, ()))[0]
            for d in corpus.documents}


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _language(store: RunStore, run: RunRecord) -> str:
    langs = store.document_languages(run.corpus_hash)
    return langs.most_common(1)[0][0] if langs else "en"


def reid_risk(store: RunStore, run_ids: Sequence[str], *, attacker: str = "retrieval", k: int = DEFAULT_K,
              background: str | Path | None = None, config: Mapping[str, object] | None = None,
              background_share: float = 1.0, progress: bool = False,
              log: Callable[[str], None] | None = None, cluster: ExecutorOptions | None = None,
              method_aware: str | None = None) -> pd.DataFrame:
    """Attack each run's pseudonymised documents (reusing stored results) and return one row per run.

    background: a JSON file {individual: text}; None takes the run's corpus's shipped one.
    config: the attacker's options (RetrievalConfig / TrainedConfig fields). background_share: the
    attacker knows only the first share of each background text (TAE's weaker attackers: 0.1,
    0.25, 0.5), by characters as TAE cuts them. log: progress
    and warnings (e.g. documents whose individual has no background text). cluster: the
    executor's options (None: local); the attackers are made (trained) here and their scoring
    batches run where the executor runs them (Ray: workbench.cluster.attacks); the rows stored are the same.
    method_aware: None, the method-blind attacker; "own" or a reference kind, the attacker that knows
    the method: its background as that method rewrites it (workbench.privacy.reid_attacks.method_aware), stored as
    the attacker `<attacker>+method` under a key of its own."""
    REGISTRY.entry(attacker)  # an unknown name is refused (did you mean …?) before anything is read
    _check_k(k)
    say = log or (lambda message: None)
    runs = list({r.run_id: r for r in (store.resolve_run(i) for i in run_ids)}.values())
    if not runs:
        raise WorkbenchError("no runs given")
    checked = []  # every run and its background checked before anything is attacked or trained
    for run in runs:
        texts = attacked_texts(store, run)
        bk = load_background(resolve_background(run.corpus_name, background), background_share)
        missing = bk.missing(texts)
        if len(missing) == len(texts):
            raise WorkbenchError(f"background knowledge {bk.path}: none of the {len(texts)} documents of run "
                                 f"{run.run_id} ({run.corpus_name}) has its individual (doc_id) in it, e.g. "
                                 f"{missing[0]!r}; is it the background of another corpus?")
        if method_aware is not None:  # a method the attacker cannot know is refused before anything is attacked
            from workbench.privacy.reid_attacks.method_aware import method_of
            method_of(run, method_aware)
        checked.append((run, texts, bk, missing))
    made: dict[tuple[str, str, str], tuple[Attacker, str]] = {}
    done: list[tuple[str, str]] = []
    jobs = []  # scored together by the executor once every attacker is made
    for run, texts, bk, missing in checked:
        lang = _language(store, run)
        if method_aware is not None:  # the background as the run's method writes it (cached on disk)
            from workbench.privacy.reid_attacks.method_aware import rewritten_background
            bk = rewritten_background(store, run, bk, method_aware, lang, log=log)
        known = (bk.sha256, json.dumps(bk.share_setting(), sort_keys=True), lang)
        if known not in made:
            instance = make_attacker(attacker, bk, config, lang, log=log)
            if method_aware is not None:
                from workbench.privacy.reid_attacks.method_aware import aware_name
                instance.name = aware_name(attacker)  # stored and keyed apart from the method-blind attacker
            made[known] = (instance, attack_key(instance))
        instance, key = made[known]
        if missing:
            say(f"run {run.run_id[:12]}: {len(missing)} of {len(texts)} documents have no individual in "
                f"{bk.path.name} and count as not re-identified: {', '.join(missing[:10])}"
                + (" …" if len(missing) > 10 else ""))
        jobs.append(scoring_job(store, run, texts, instance, key))
        done.append((run.run_id, key))
    executor_for(cluster).score(store, jobs, progress=progress, log=log)
    wanted = set(done)
    frame = rows_frame(store, [r for r, _ in done])
    frame = frame[[(r, a) in wanted for r, a in zip(frame.run_id, frame.attack_key)]]
    metrics = _metrics(frame, k, _document_counts(store, runs))
    order = {run_id: i for i, (run_id, _) in enumerate(done)}  # the runs in the order asked for
    return metrics.sort_values("run_id", key=lambda ids: ids.map(order), kind="stable").reset_index(drop=True)


def scoring_job(store: RunStore, run: RunRecord, texts: dict[str, str], attacker: Attacker, key: str) -> ScoringJob:
    """The run's documents still to attack, in batches, for an executor: scored by score_task,
    each batch stored by save_rows in one transaction."""
    batches, hashes = todo_batches(store, run, texts, attacker, key)
    label = f"{attacker.name} attack on run {run.run_id[:12]}"
    tasks = []
    for n, batch in enumerate(batches, 1):
        shown = ", ".join(batch[:SHOWN_DOCUMENTS]) + (f", … ({len(batch)} documents)"
                                                      if len(batch) > SHOWN_DOCUMENTS else "")
        tasks.append(BatchTask(run.run_id, key, {d: texts[d] for d in batch}, {d: hashes[d] for d in batch}, label,
                               f"batch {n}/{len(batches)} (documents {shown})"))
    return ScoringJob(label, attacker, tasks, score_task, save_rows)


def score_task(attacker: Attacker, task: BatchTask) -> list[ReidRow]:
    """One batch's rows: what the local executor runs here and a Ray worker runs there."""
    return score_batch(attacker, task.run_id, task.key, task.texts, task.hashes)


def todo_batches(store: RunStore, run: RunRecord, texts: dict[str, str], attacker: Attacker,
                 key: str) -> tuple[list[list[str]], dict[str, str]]:
    """The documents still to attack (no stored row, or one of another text), in batches of
    the attacker's batch_documents (else BATCH_DOCUMENTS), each stored in one transaction; and every
    document's text hash. An attacker that declares `whole_run` (its scores are normalised over the
    documents scored together: retrieval_hub) gets every document of the run in one batch whenever
    any is to do, so its rows are always of one scoring of the whole run."""
    hashes = {d: _sha(t) for d, t in texts.items()}
    cached = stored_rows(store, run.run_id, key)
    todo = [d for d in texts if d not in cached or cached[d].text_sha256 != hashes[d]]
    size = getattr(attacker, "batch_documents", BATCH_DOCUMENTS)
    if todo and getattr(attacker, "whole_run", False):  # its scores depend on every document scored with them
        todo, size = list(texts), len(texts)
    return [todo[i:i + size] for i in range(0, len(todo), size)], hashes


def score_batch(attacker: Attacker, run_id: str, key: str, texts: Mapping[str, str],
                hashes: Mapping[str, str]) -> list[ReidRow]:
    """The rows of one batch (texts: doc_id -> attacked text, in the batch's order). A pure function of
    its arguments, so a Ray worker (through score_task) computes exactly what this process would."""
    bk = attacker.background
    description = attack_settings(attacker)
    known = [d for d in texts if bk.index_of(d) is not None]
    scores = attacker.scores([texts[d] for d in known]) if known else np.zeros((0, len(bk.individuals)))
    rows = []
    for doc_id in texts:
        higher = tied = top = None
        index = bk.index_of(doc_id)
        if doc_id in known and index is not None:  # known: the background has the document's individual
            row = scores[known.index(doc_id)]
            higher, tied = rank_of(row, index)
            top = bk.individuals[int(np.argmax(row))]
        rows.append(new_row(run_id, key, doc_id, attacker.name, description, bk.label, bk.sha256,
                            hashes[doc_id], doc_id if doc_id in known else None, higher, tied,
                            len(bk.individuals), top))
    return rows


def _check_k(k: int) -> None:
    if not isinstance(k, int) or k < 1:
        raise InvalidValue(f"k must be a whole number of at least 1, not {k!r}")


def _document_counts(store: RunStore, runs: Sequence[RunRecord]) -> dict[str, int]:
    return {r.run_id: store.count_documents(r.corpus_hash) for r in runs}


def per_document(frame: pd.DataFrame, k: int) -> pd.DataFrame:
    """The stored rows with each document's expected hit, rank and rank<=k (see the module docstring)."""
    out = frame.copy()
    known = out["individual"].notna()
    higher = pd.to_numeric(out["n_higher"], errors="coerce")
    tied = pd.to_numeric(out["n_tied"], errors="coerce")
    out["hit"] = np.where(known & (higher == 0), 1.0 / (tied + 1), 0.0)
    out["rank"] = np.where(known, higher + 1 + tied / 2, np.nan)
    out["rank_le_k"] = np.where(known, ((k - higher) / (tied + 1)).clip(0, 1), 0.0)
    return out


def _metrics(frame: pd.DataFrame, k: int, n_docs: Mapping[str, int]) -> pd.DataFrame:
    if frame.empty:
        return pd.DataFrame(columns=METRIC_COLUMNS)
    from workbench.uncertainty.bootstrap import document_interval
    docs = per_document(frame, k)
    rows = []
    for (run_id, key), group in docs.groupby(["run_id", "attack_key"], sort=False):
        # TRIR is the mean of each document's expected hit: its 95 % interval resamples the documents
        # (workbench.uncertainty), so two runs' TRIR that differ by a document or two read as such.
        interval = document_interval(group["hit"].to_numpy(dtype=float))
        rows.append({"run_id": run_id, "attacker": group["attacker"].iloc[0], "attack_key": key,
                     "trir_low": interval.low, "trir_high": interval.high,
                     "trir": float(group["hit"].mean()), "mean_rank": float(group["rank"].mean()),
                     "rank_le_k": float(group["rank_le_k"].mean()), "k": k, "n_documents": len(group),
                     "n_without_background": int(group["individual"].isna().sum()),
                     "n_candidates": int(group["n_candidates"].iloc[0]), "background": group["background"].iloc[0],
                     "complete": len(group) == n_docs.get(run_id, -1),
                     "background_share": stored_share(group["config"].iloc[0]),
                     # the stored settings (JSON): which method-aware attack pairs with which blind one
                     "settings": group["config"].iloc[0]})
    return pd.DataFrame(rows, columns=METRIC_COLUMNS)


def stored_share(config_json: str) -> float:
    """The background share of a stored attack (its settings as stored: attack_settings); 1 if not said."""
    return float(json.loads(config_json).get("background_share", 1.0))


def attacker_label(attacker: str, share: float) -> str:
    """How tables name an attack: the attacker, and the share of the background it knows if not all."""
    return attacker if share == 1 else f"{attacker} {share_text(share)}"


def stored_reid_risk(store: RunStore, run_ids: Sequence[str] | None = None, *, k: int = DEFAULT_K) -> pd.DataFrame:
    """The metrics of every stored (run, attack key), without attacking anything (reports, dashboard).

    Rows computed on a text the run no longer has (its predictions changed since) are left
    out; `complete` is False when fewer than all the run's documents remain."""
    _check_k(k)
    runs = [store.resolve_run(i) for i in run_ids] if run_ids is not None else store.runs()
    frame = _fresh_rows(store, runs)
    if frame.empty:
        return pd.DataFrame(columns=METRIC_COLUMNS)
    return _metrics(frame, k, _document_counts(store, runs))


def _fresh_rows(store: RunStore, runs: Sequence[RunRecord]) -> pd.DataFrame:
    """The stored rows of these runs that were computed on the text each run has now."""
    frame = rows_frame(store, [r.run_id for r in runs])
    if frame.empty:
        return frame
    current = {}
    for run in runs:
        if run.run_id in set(frame.run_id) and run.status == COMPLETE:
            current.update({(run.run_id, d): _sha(t) for d, t in attacked_texts(store, run).items()})
    fresh = [current.get((r, d)) == h for r, d, h in zip(frame.run_id, frame.doc_id, frame.text_sha256)]
    return frame[fresh]


def ensemble_hits(frame: pd.DataFrame, attack_keys: Sequence[str],
                  n_docs: Mapping[str, int]) -> dict[str, pd.Series]:
    """Per run, each document's expected ensemble hit (index doc_id, sorted), the values
    `ensemble_trir` averages; a run is left out where a key has not reached all its documents."""
    keys = list(dict.fromkeys(attack_keys))
    docs = per_document(frame[frame["attack_key"].isin(keys)], k=1)
    out: dict[str, pd.Series] = {}
    for run_id, group in docs.groupby("run_id", sort=False):
        per_key = group.groupby("attack_key")["doc_id"].nunique()
        if not keys or any(per_key.get(key, 0) != n_docs.get(run_id, -1) for key in keys):
            continue  # an attack that has not reached every document: no ensemble for this run
        missed = (1.0 - group["hit"].astype(float)).groupby(group["doc_id"]).prod()
        out[run_id] = 1.0 - missed
    return out


def ensemble_trir(frame: pd.DataFrame, attack_keys: Sequence[str], n_docs: Mapping[str, int]) -> pd.Series:
    """Paper 001 §6's ensemble re-identification rate per run (index run_id): the share of documents
    that at least one attack of the ensemble (these attack keys) ranks first.

    Ties in expectation, as TRIR: each attacker picks uniformly among its tied candidates, the
    attackers independently of one another, so a document's expected ensemble hit is
        1 − Π_keys (1 − hit_key)        (hit_key as in per_document)
    and an ensemble of one attack key is that attack's TRIR. A run gets a value only where every
    key has results for all n_docs[run] of its documents; a document whose individual has no
    background text is re-identified by no attacker."""
    hits = ensemble_hits(frame, attack_keys, n_docs)
    return pd.Series({run_id: float(h.mean()) for run_id, h in hits.items()}, dtype=float)


ENSEMBLE_COLUMNS = ["trir", "trir_low", "trir_high"]


def ensemble_intervals(frame: pd.DataFrame, attack_keys: Sequence[str], n_docs: Mapping[str, int]) -> pd.DataFrame:
    """ensemble_trir with its 95 % interval (index run_id; ENSEMBLE_COLUMNS): the documents'
    expected ensemble hits resampled (workbench.uncertainty.document_interval), as each attacker's
    TRIR is; documents in doc_id order, so the interval never depends on storage order."""
    from workbench.uncertainty.bootstrap import document_interval
    rows = {}
    for run_id, hits in ensemble_hits(frame, attack_keys, n_docs).items():
        interval = document_interval(hits.to_numpy(dtype=float))
        rows[run_id] = (interval.point, interval.low, interval.high)
    return pd.DataFrame.from_dict(rows, orient="index", columns=ENSEMBLE_COLUMNS, dtype=float)


def stored_ensemble(store: RunStore, run_ids: Sequence[str], attack_keys: Sequence[str]) -> pd.DataFrame:
    """ensemble_intervals over what is stored, never attacking (index: the runs given; NaN where a
    key has not reached every document of a run, or its rows are of a text the run no longer has)."""
    runs = [store.resolve_run(i) for i in run_ids]
    frame = _fresh_rows(store, runs)
    ids = [r.run_id for r in runs]
    if frame.empty:
        return pd.DataFrame(float("nan"), index=ids, columns=ENSEMBLE_COLUMNS)
    return ensemble_intervals(frame, attack_keys, _document_counts(store, runs)).reindex(ids)


def stored_ensemble_by_run(store: RunStore, keys_by_run: Mapping[str, Sequence[str]]) -> pd.DataFrame:
    """stored_ensemble with each run's own attack keys (a method-aware attack's key differs per run:
    its method is the run's); index: the runs given, NaN as stored_ensemble."""
    runs = [store.resolve_run(i) for i in keys_by_run]
    frame = _fresh_rows(store, runs)
    n_docs = _document_counts(store, runs)
    out = pd.DataFrame(float("nan"), index=[r.run_id for r in runs], columns=ENSEMBLE_COLUMNS)
    for run, keys in zip(runs, keys_by_run.values()):
        mine = frame[frame["run_id"] == run.run_id] if not frame.empty else frame
        if not mine.empty:
            out.loc[run.run_id] = ensemble_intervals(mine, keys, n_docs).reindex([run.run_id]).iloc[0]
    return out


def stored_ensemble_trir(store: RunStore, run_ids: Sequence[str], attack_keys: Sequence[str]) -> pd.Series:
    """The ensemble's TRIR alone of stored_ensemble (index: the runs given)."""
    return stored_ensemble(store, run_ids, attack_keys)["trir"]


def reid_documents(store: RunStore, run_id: str, attack_key: str | None = None, *, k: int = DEFAULT_K) -> pd.DataFrame:
    """Per-document results of one run (every stored attack key, or one), with hit, rank and rank<=k."""
    run = store.resolve_run(run_id)
    frame = rows_frame(store, [run.run_id], attack_key)
    return per_document(frame, k)[["run_id", "attack_key", "attacker", "doc_id", "individual", "top_guess",
                                   "n_higher", "n_tied", "n_candidates", "hit", "rank", "rank_le_k"]]


def reid_lines(store: RunStore, frame: pd.DataFrame) -> list[str]:
    """The metrics frame as a table for a terminal (run, generator, corpus, TRIR, mean rank, rank<=k)."""
    from workbench.infra.terminal import printable
    if frame.empty:
        return ["no re-identification results"]
    k = int(frame["k"].iloc[0])
    # retrieval-ids+method 10 %: the column as wide as the longest attacker named
    wide = max([15, *(len(attacker_label(a, s)) for a, s in zip(frame["attacker"], frame["background_share"]))])
    lines = [f"{'run':<12} {'generator':<12} {'corpus':<16} {'attacker':<{wide}} {'TRIR':>6} {'mean rank':>9} "
             f"{f'rank<={k}':>9} {'docs':>5} {'of':>4}"]
    for row in frame.itertuples():
        run = store.get_run(row.run_id)
        gen, corpus = (run.generator, run.corpus_name) if run else ("?", "?")
        lines.append(f"{row.run_id[:12]:<12} {printable(gen)[:12]:<12} {printable(corpus)[:16]:<16} "
                     f"{attacker_label(row.attacker, row.background_share):<{wide}} "
                     f"{row.trir:>6.3f} {row.mean_rank:>9.2f} {row.rank_le_k:>9.3f} "
                     f"{row.n_documents:>5} {row.n_candidates:>4}")
    keys = sorted(set(frame["attack_key"]))
    lines.append(f"attack key(s): {', '.join(keys)}; background: {printable(str(frame['background'].iloc[0]))}; "
                 "TRIR and rank<=k: higher = more exposed; mean rank: lower = more exposed")
    return lines
