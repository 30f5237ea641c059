"""The inference attack per span (004 §3.2) over stored runs, and its disclosure rate.

    from workbench.privacy.inference_attacks.inference import inference_disclosure, stored_disclosure
    inference_disclosure(store, ["832a7ed4"], attacker="mlm", n=5, config={"model": "offline"})

For every replaced span of a run, an attacker (workbench.privacy.inference_attacks.inference_attackers) reads
the pseudonymised document and proposes N guesses of the original; 004's matching function
(workbench.privacy.inference_attacks.matching, with the language's lemmatiser and the corpus's most frequent
lemmas) says whether a guess discloses it. Whether the replacement itself, as it stands in
the document, discloses the original is recorded too: an attacker reads it, and for an
`original` run it is the original.

Results are stored per (run, attack key, span) in the run store (inference_results), a
batch per transaction, and reused: a second call attacks only what is missing (or what
changed), so an interrupted attack resumes. Reading (`stored_disclosure`,
`inference_spans`) never attacks.

`docs` restricts an attack (and a reading) to some documents of the runs. A span's result
does not depend on which documents were chosen (the attacker reads the span's own
document, the matching function's frequent lemmas come from the whole corpus), so the
results are stored under the same key as a whole-run attack: a later call with more
documents attacks only the new ones, and one without `docs` completes the run. A row of
the rates says which documents it covers (`documents` of `run_documents`); over the whole
run, spans without a result are counted in `missing`, and a report shows a run's
disclosure only when nothing is missing.

The disclosure rate of a run is the share of its replaced spans whose original is disclosed:
    disclosure               by a guess or by the replacement (what an attacker learns; ↓ better)
    disclosure_guesses       by one of the attacker's N guesses
    disclosure_replacement   by the replacement itself
A mean over spans, so `disclosure` has its 95 % interval (disclosure_low / disclosure_high): the
documents resampled, each with all its spans (workbench.uncertainty.span_interval).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pandas as pd

from workbench.infra.errors import WorkbenchError
from workbench.privacy.inference_attacks.inference_attackers import (
    DEFAULT_GUESSES,
    INFERENCE_ATTACKERS,
    make_inference_attacker,
)
from workbench.privacy.inference_attacks.inference_contract import Target, attack_key
from workbench.privacy.inference_attacks.inference_store import new_row, rows_frame, save_rows, stored_inputs
from workbench.privacy.inference_attacks.matching import MATCHER_VERSION, Matcher
from workbench.store import COMPLETE, RunStore

__all__ = ["INFERENCE_ATTACKERS", "FREQUENT_LEMMAS", "inference_disclosure", "stored_disclosure", "inference_spans",
           "disclosure_rates", "frequent_lemmas", "matcher_for"]

FREQUENT_LEMMAS = 100  # 004's reference code leaves out the corpus's 100 most frequent lemmas
BATCH = 64  # spans per stored batch (one transaction)
RATE_COLUMNS = ["spans", "disclosure", "disclosure_guesses", "disclosure_replacement"]
INTERVAL_COLUMNS = ["disclosure_low", "disclosure_high"]  # the disclosure rate's 95 % interval
# documents: how many of the run's documents a row covers (all of them, or those asked for);
# run_documents: how many the run has. Rates over fewer documents are not the run's.
STORED_COLUMNS = ["run_id", "attacker", "attack_key", "n_guesses", *RATE_COLUMNS, "missing", "failed", "documents",
                  "run_documents", *INTERVAL_COLUMNS]


# --- the matching function for a corpus ----------------------------------------------------

def nfc_document(doc) -> tuple[str, list[tuple[int, int]]]:
    """The document's text in NFC and its spans' (start, end) in that text. The text between and
    within spans is put in NFC piece by piece, so the spans keep their edges; a document already
    in NFC comes back as it is."""
    import unicodedata

    from workbench.text.compare import nfc
    if unicodedata.is_normalized("NFC", doc.text):
        return doc.text, [(s.start, s.end) for s in doc.spans]
    pieces, ranges, at, length = [], [], 0, 0
    for s in sorted(doc.spans, key=lambda s: s.start):  # disjoint (workbench.loaders.validate)
        start = max(s.start, at)
        before, inner = nfc(doc.text[at:start]), nfc(doc.text[start:max(s.end, start)])
        pieces += [before, inner]
        ranges.append((length + len(before), length + len(before) + len(inner)))
        length += len(before) + len(inner)
        at = max(s.end, start)
    pieces.append(nfc(doc.text[at:]))
    return "".join(pieces), ranges


def frequent_lemmas(corpus, lang: str, top: int = FREQUENT_LEMMAS) -> frozenset[str]:
    """The `top` most frequent content lemmas (alphabetic, not stop words) of the corpus's
    documents in `lang`, outside the annotated spans, read in NFC as the matching function reads
    spans and guesses; cached per corpus and lemmatiser."""
    from workbench.infra.paths import cache_dir
    from workbench.privacy.inference_attacks.lemmatiser_build import lemmatiser
    lem = lemmatiser(lang)
    docs = [d for d in corpus.documents if d.lang == lang]
    texts = [nfc_document(d) for d in docs]
    # A corpus not in NFC was counted without NFC before issue 37: its list gets a name of its own.
    form = "" if all(text == d.text for d, (text, _) in zip(docs, texts)) else "-nfc"
    path = cache_dir() / "privacy" / (f"frequent-{corpus.content_hash[:16]}-{lang}-{Path(lem.source).name}-{top}"
                                      f"{form}.json")
    if path.is_file():
        return frozenset(json.loads(path.read_text()))
    counts: Counter[str] = Counter()
    for (text, ranges), parsed in zip(texts, lem.nlp.pipe((t for t, _ in texts), batch_size=16)):
        inside = bytearray(len(text) + 1)
        for a, b in ranges:
            inside[a:b] = b"\x01" * (b - a)
        for token in parsed:
            if token.is_alpha and not any(inside[token.idx:token.idx + len(token)]):
                word = lem.word(token)
                if not word.stop:
                    counts[word.lemma] += 1
    top_lemmas = [lemma for lemma, _ in counts.most_common(top)]
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.partial")  # another process may be writing the same list
    tmp.write_text(json.dumps(top_lemmas, ensure_ascii=False))
    os.replace(tmp, path)
    return frozenset(top_lemmas)


def matcher_for(corpus, lang: str) -> Matcher:
    from workbench.privacy.inference_attacks.lemmatiser_build import lemmatiser
    return Matcher(lemmatiser(lang), frequent_lemmas(corpus, lang))


def matcher_description() -> dict:
    """What the matching function's results depend on besides the texts (part of the attack key)."""
    from workbench.privacy.inference_attacks.lemmatiser import LEXICON, RECIPE
    from workbench.text.overlap_rules import ALL_TITLES
    # The title list is part of the key: a title added to it changes which spans disclose.
    titles = hashlib.sha256(" ".join(sorted(ALL_TITLES)).encode()).hexdigest()[:12]
    return {"version": MATCHER_VERSION, "frequent": FREQUENT_LEMMAS, "lemmatiser": RECIPE, "lexicon": LEXICON,
            "titles": titles}


# --- attacking ------------------------------------------------------------------------------

def _targets(frame: pd.DataFrame) -> list[dict]:
    """Every replaced span of a metric frame as a Target and what the matching function needs."""
    from workbench.metrics.metric_frame import document_views
    items = []
    for view in document_views(frame):
        for k, row in enumerate(view.rows):
            a, b = view.placed[k]
            r = frame.loc[row]
            target = Target(f"{view.run_id}|{view.doc_id}|{int(r['span_index'])}", view.lang, r["label"],
                            view.pseudo_text, a, b)
            digest = hashlib.sha256(f"{a}|{b}|{view.pseudo_text}".encode()).hexdigest()
            items.append({"target": target, "doc_id": view.doc_id, "span_index": int(r["span_index"]),
                          "original": r["original"], "corpus_hash": view.corpus_hash, "failed": bool(r["failed"]),
                          "sha": digest})
    return items


def _corpus_documents(store: RunStore, corpus_hash: str) -> list[str]:
    return store.document_ids(corpus_hash)


def _check_documents(store: RunStore, runs, docs: Sequence[str]) -> None:
    """Every id is a document of one of the runs, and every run has one of them."""
    if not docs:
        raise WorkbenchError("--docs names no document (give comma-separated ids, or @file with one id a line)")
    per_run = {run.run_id: set(_corpus_documents(store, run.corpus_hash)) for run in runs}
    unknown = [d for d in dict.fromkeys(docs) if not any(d in known for known in per_run.values())]
    if unknown:
        raise WorkbenchError(f"no run given has the document(s) {', '.join(map(repr, unknown[:5]))}"
                             + (f" and {len(unknown) - 5} more" if len(unknown) > 5 else "")
                             + " (`workbench show RUN` lists a run's documents)")
    for run in runs:
        if not per_run[run.run_id] & set(docs):
            raise WorkbenchError(f"run {run.run_id[:12]} ({run.corpus_name}) has none of the documents given to "
                                 "--docs; leave it out, or attack it with its own documents")


def inference_disclosure(store: RunStore, run_ids: Sequence[str], *, attacker: str = "mlm",
                         n: int = DEFAULT_GUESSES, config: Mapping[str, object] | None = None,
                         progress: bool = False, batch: int = BATCH, docs: Sequence[str] | None = None,
                         log: Callable[[str], None] | None = None) -> pd.DataFrame:
    """Attack every replaced span of these runs (reusing stored results); one row per run (STORED_COLUMNS).
    docs: only the spans of these documents (ids; see the module docstring), and the rates over them."""
    from workbench.metrics.metric_frame import metric_frame
    say = log or (lambda message: print(message, file=sys.stderr, flush=True))
    atk = make_inference_attacker(attacker, n, config)
    runs = [store.resolve_run(r) for r in run_ids]
    for run in runs:  # every run checked before any is attacked
        if run.status != COMPLETE:
            raise WorkbenchError(f"run {run.run_id[:12]} ({run.generator}) is not complete ({run.status}); finish it "
                                 "first (the same `workbench generate` command resumes it)")
    if docs is not None:
        _check_documents(store, runs, docs)
    key = attack_key(atk, matcher_description())
    frame = metric_frame(store, [r.run_id for r in runs])
    if docs is not None:
        frame = frame[frame["doc_id"].isin(set(docs))]
    if frame.empty:
        raise WorkbenchError(f"these runs replaced no span{' in these documents' if docs is not None else ''}: "
                             "nothing to attack")
    dtype_line = getattr(atk, "dtype_line", None)  # a torch model's dtype=auto: what it picked, and why
    if progress and dtype_line is not None and dtype_line():
        say(dtype_line())
    atk.load(sorted(frame["lang"].unique()))
    # Once per attack, not per span: describing the offline models hashes their recipes (0.26 s a
    # call here, which was most of the attack's time per span before issue 42).
    described = {"n": atk.n, **atk.describe()}
    corpora: dict[str, object] = {}
    matchers: dict[tuple[str, str], Matcher] = {}
    for run in runs:
        items = _targets(frame[frame["run_id"] == run.run_id])
        done = stored_inputs(store, run.run_id, key)
        todo = [it for it in items if done.get((it["doc_id"], it["span_index"])) != it["sha"]]
        if progress:
            say(f"run {run.run_id[:12]} ({run.generator}): {len(items) - len(todo)} of {len(items)} spans stored, "
                f"{len(todo)} to attack under {key}")
        every = max(1, len(todo) // batch // 10) * batch  # progress about every tenth
        for start in range(0, len(todo), batch):
            chunk = todo[start:start + batch]
            began = time.perf_counter()
            answers = atk.guess([it["target"] for it in chunk])
            share = (time.perf_counter() - began) / len(chunk)
            texts: dict[tuple[str, str], list[str]] = {}
            for it, answer in zip(chunk, answers):
                key_ = (it["corpus_hash"], it["target"].lang)
                if key_ not in matchers:
                    if key_[0] not in corpora:
                        corpora[key_[0]] = store.load_corpus(key_[0])
                    matchers[key_] = matcher_for(corpora[key_[0]], key_[1])
                texts.setdefault(key_, []).extend([it["original"], it["target"].replacement, *answer.guesses])
            for key_, batch_texts in texts.items():
                matchers[key_].phrases(batch_texts)  # lemmatised together: one spaCy call per batch
            rows = []
            for it, answer in zip(chunk, answers):
                matcher = matchers[(it["corpus_hash"], it["target"].lang)]
                label, original = it["target"].label, it["original"]
                hit = matcher.first_hit(original, label, answer.guesses) if answer.guesses else None
                replacement = it["target"].replacement
                shown = replacement if replacement.strip() and not it["failed"] else ""
                rows.append(new_row(run.run_id, key, it["doc_id"], it["span_index"], atk.name,
                                    described, it["sha"], answer.guesses,
                                    (hit.index, hit.rule) if hit else None,
                                    matcher.discloses(original, label, shown) if shown else None,
                                    answer.note, answer.requests, share))
            save_rows(store, rows)
            done_now = min(start + batch, len(todo))
            if progress and (done_now % every == 0 or done_now == len(todo)):
                say(f"  {done_now}/{len(todo)} spans")
    return stored_disclosure(store, [r.run_id for r in runs], attack_key=key, docs=docs)


# --- reading --------------------------------------------------------------------------------

def inference_spans(store: RunStore, run_ids: Sequence[str] | None = None,
                    attack_key: str | None = None) -> pd.DataFrame:
    """Stored per-span results joined with their runs' spans: run_id, attack_key, attacker, n_guesses,
    corpus, generator, lang, doc_id, span_index, label, original, pseudonym, failed, guesses, disclosed,
    hit, rule, replacement_rule, replacement_discloses, note, seconds, requests. Never attacks."""
    from workbench.store.tidy_frame import run_frame
    ids = None if run_ids is None else [store.resolve_run(r).run_id for r in run_ids]
    rows = rows_frame(store, ids, attack_key)
    columns = ["run_id", "attack_key", "attacker", "n_guesses", "corpus", "generator", "lang", "doc_id",
               "span_index", "label", "original", "pseudonym", "failed", "guesses", "disclosed", "hit", "rule",
               "replacement_rule", "replacement_discloses", "note", "seconds", "requests"]
    if rows.empty:
        return pd.DataFrame(columns=columns)
    spans = run_frame(store, list(dict.fromkeys(rows["run_id"])))
    keep = ["run_id", "doc_id", "span_index", "corpus", "generator", "lang", "label", "original", "pseudonym",
            "failed"]
    merged = rows.merge(spans[keep], on=["run_id", "doc_id", "span_index"], how="inner")
    merged["n_guesses"] = [json.loads(c).get("n") for c in merged["config"]]
    merged["disclosed"] = merged["disclosed"].astype(bool)
    merged["replacement_discloses"] = merged["replacement_rule"].notna()
    return merged[columns].reset_index(drop=True)


def disclosure_rates(spans: pd.DataFrame, by: Sequence[str] = ("run_id", "attack_key")) -> pd.DataFrame:
    """Rates in [0, 1] (higher = more disclosed) over the spans that have a result, grouped by `by`:
    spans, disclosure (by a guess or the replacement), disclosure_guesses, disclosure_replacement,
    and disclosure's interval, disclosure_low / disclosure_high (NaN without a doc_id column, or
    from fewer than two documents)."""
    by = list(by)
    answered = spans[spans["note"] == ""]
    if answered.empty:
        return pd.DataFrame(columns=[*by, *RATE_COLUMNS, *INTERVAL_COLUMNS])
    flags = pd.DataFrame({"guesses": answered["disclosed"].astype(float),
                          "replacement": answered["replacement_discloses"].astype(float)})
    flags["any"] = flags.max(axis=1)
    grouped = flags.groupby([answered[c] for c in by], sort=False)
    out = pd.DataFrame({"spans": grouped.size(), "disclosure": grouped["any"].mean(),
                        "disclosure_guesses": grouped["guesses"].mean(),
                        "disclosure_replacement": grouped["replacement"].mean()})
    if "doc_id" in answered:  # the rate's 95 % interval, the spans resampled with their documents
        out = out.join(_disclosure_intervals(flags["any"], answered, by))
    else:  # spans without their documents: no interval can say how many independent draws they are
        out[INTERVAL_COLUMNS] = float("nan")
    return out.reset_index()


def _disclosure_intervals(disclosed: pd.Series, answered: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Per group of `by`: disclosure_low / disclosure_high, the percentile interval of the share of
    spans disclosed, documents resampled each with all its spans (workbench.uncertainty.span_interval:
    the disclosure rate is a mean over spans, and one long document is one draw, not many). The
    documents in doc_id order, so the interval never depends on the order the results were stored."""
    from workbench.uncertainty.bootstrap import span_interval
    frame = answered[by].assign(doc_id=answered["doc_id"].astype(str), disclosed=disclosed)
    rows = {}
    for key, group in frame.sort_values("doc_id", kind="stable").groupby(by, sort=False):
        interval = span_interval(group["disclosed"].to_numpy(dtype=float), group["doc_id"].tolist())
        rows[key] = (interval.low, interval.high) if interval.has_interval else (float("nan"), float("nan"))
    index = pd.MultiIndex.from_tuples(list(rows), names=by) if len(by) > 1 else pd.Index(
        [k[0] if isinstance(k, tuple) else k for k in rows], name=by[0])
    return pd.DataFrame(list(rows.values()), index=index, columns=INTERVAL_COLUMNS)


def stored_disclosure(store: RunStore, run_ids: Sequence[str] | None = None, *, by_label: bool = False,
                      attack_key: str | None = None, docs: Sequence[str] | None = None) -> pd.DataFrame:
    """One row per stored (run, attack key) (and label): STORED_COLUMNS; empty when nothing is stored.
    `missing`: replaced spans of the run without a result; `failed`: spans whose attacker gave no answer.
    docs: the rates over these documents only (`documents` says how many of `run_documents`)."""
    from workbench.store.tidy_frame import run_frame
    columns = STORED_COLUMNS[:4] + (["label"] if by_label else []) + STORED_COLUMNS[4:]
    spans = inference_spans(store, run_ids, attack_key)
    if docs is not None:
        spans = spans[spans["doc_id"].isin(set(docs))]
    if spans.empty:
        return pd.DataFrame(columns=columns)
    by = ["run_id", "attacker", "attack_key", "n_guesses"] + (["label"] if by_label else [])
    rates = disclosure_rates(spans, by)
    failed = spans[spans["note"] != ""].groupby(by, sort=False).size().rename("failed")
    frame = run_frame(store, list(dict.fromkeys(spans["run_id"])))
    if docs is not None:
        frame = frame[frame["doc_id"].isin(set(docs))]
    size_by = ["run_id"] + (["label"] if by_label else [])
    replaced = frame.groupby(size_by, sort=False).size().rename("replaced").reset_index()
    out = (spans[by].drop_duplicates().merge(rates, on=by, how="left")
           .merge(failed.reset_index(), on=by, how="left").merge(replaced, on=size_by, how="left"))
    out["spans"] = out["spans"].fillna(0).astype(int)
    out["failed"] = out["failed"].fillna(0).astype(int)
    out["missing"] = (out["replaced"] - out["spans"] - out["failed"]).clip(lower=0).astype(int)
    corpus_of = dict(zip(frame["run_id"], frame["corpus_hash"]))
    every = {run_id: _corpus_documents(store, corpus_of[run_id]) for run_id in out["run_id"].unique()}
    out["run_documents"] = [len(every[r]) for r in out["run_id"]]
    out["documents"] = [len(every[r]) if docs is None else len(set(every[r]) & set(docs)) for r in out["run_id"]]
    if run_ids is not None:  # in the order asked for
        order = {store.resolve_run(r).run_id: i for i, r in enumerate(run_ids)}
        out = out.sort_values("run_id", key=lambda ids: ids.map(order), kind="stable")
    return out[columns].reset_index(drop=True)


def disclosure_lines(frame: pd.DataFrame) -> list[str]:
    """The rows of inference_disclosure / stored_disclosure as a plain table: a run per row, or
    (by label) a run and label per row, the label named in the header beside the run; `docs`
    says over how many of the run's documents the rates are."""
    from workbench.infra.terminal import aligned, printable
    if frame.empty:
        return ["no inference-attack results stored for these runs"]
    by_label = "label" in frame.columns
    rows = [("run", *(["label"] if by_label else []), "attack key", "docs", "spans", "disclosed", "by guess",
             "by repl.", "missing")]
    for r in frame.itertuples(index=False):
        rows.append((str(r.run_id)[:12], *([printable(str(r.label))] if by_label else []), r.attack_key[:40],
                     f"{r.documents}/{r.run_documents}", str(r.spans), f"{r.disclosure:.3f}",
                     f"{r.disclosure_guesses:.3f}", f"{r.disclosure_replacement:.3f}", str(r.missing + r.failed)))
    first_number = 3 if by_label else 2  # docs and every column after it are right-aligned
    return aligned(rows, right=frozenset(range(first_number, len(rows[0]))))
