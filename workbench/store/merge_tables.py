"""What merging two stores means, table by table (`workbench store merge`, workbench.store.merge).

Every row is matched by its table's primary key; the columns that say what the row *is* (a
pseudonym, a tag, an attack's result) must agree, the rest (timings, when it was made) need not:

    corpora, documents, spans   content-addressed by corpus_hash, so identical by construction: a
                                document or span that differs is damage, refused. A span's
                                identifier_type left NULL by an older snapshot is filled in.
    span_upos                   a tagger's cache: union; where both have a tag and they differ,
                                the destination's stays (counted in the summary).
    runs                        by run id (the signature's hash): the signature must agree. The
                                run is complete when either store has it complete; the earliest
                                `created` and completion time are kept; the destination's name
                                stays, and a run unnamed there takes the source's name; so do
                                the server addresses (recorded, not part of the run).
    predictions                 by (run, document, span): pseudonym, candidates, rank, UPOS,
                                failed, note and fallback must agree; `seconds` and `requests`
                                are how long it took, not what came out, and may differ (a
                                resumed or retried run): the destination's are kept. A run
                                incomplete in one store gets the union of both.
    annotations                 by (run, document, span, annotator): two annotators never
                                conflict. The same annotator's tag (note, source, judge prompt,
                                suggestion) differing in two stores is refused: two laptops'
                                clocks do not say which tag is later, and the same name on two
                                laptops may be two people. Earliest `created`, latest `updated`.
    annotation_log              append-only history: a save is added unless the destination holds
                                the same save (every column but the sequence number), in the
                                source's order; re-merging adds none.
    annotation_sample_info      by name: the recipe must agree; annotation_samples by (sample,
      / annotation_samples      position): the item must agree.
    run_reports, reid_results,  by their primary keys; what the row reports must agree (seconds,
    inference_results,          requests and the time it was made may differ); a difference is
    own_detections, judge_faults   refused with the key named.
    hidden_runs                 union; the earliest time a run was hidden is kept.
    run_leases                  not merged: a lease names a process on the source's machine, and
                                a lease from another host is respected until released, so a copied
                                lease would block generating that run in the destination forever.

So merging is idempotent and symmetric (A into B holds what B into A holds), except where the
destination's value is kept: a run's name, a corpus's name, a differing cached UPOS tag, timings.
"""

from __future__ import annotations

from dataclasses import dataclass

# What each kind of table is counted as in the merge summary.
CORPUS, RUNS, PREDICTIONS, ANNOTATIONS, SAMPLES, PRIVACY = ("corpus", "runs", "predictions", "annotations", "samples",
                                                             "privacy")
# How a key column is named in a refusal.
KEY_WORDS = {"corpus_hash": "corpus", "doc_id": "document", "span_index": "span", "attack_key": "attack key"}


@dataclass(frozen=True, slots=True)
class TableRule:
    table: str
    key: tuple[str, ...]
    compared: tuple[str, ...]  # must agree for the same key, or the merge is refused
    counted_as: str
    earliest: tuple[str, ...] = ()  # the smaller of the two values is kept
    latest: tuple[str, ...] = ()  # the larger of the two values is kept
    filled: tuple[str, ...] = ()  # a NULL in the destination takes the source's value
    destination_wins: bool = False  # a difference in `compared` keeps the destination's row (a cache)


# In insertion order: a row's parents (foreign keys) before it.
RULES: tuple[TableRule, ...] = (
    TableRule("corpora", ("corpus_hash",), (), CORPUS, earliest=("created",)),
    TableRule("documents", ("corpus_hash", "doc_id"), ("position", "lang", "text", "meta"), CORPUS),
    TableRule("spans", ("corpus_hash", "doc_id", "span_index"),
              ("start", "end", "text", "label", "entity_id", "mask"), CORPUS, filled=("identifier_type",)),
    TableRule("span_upos", ("corpus_hash", "tagger", "doc_id", "span_index"), ("upos",), CORPUS,
              destination_wins=True),
    TableRule("runs", ("run_id",), ("signature", "corpus_hash", "n_slots", "source"), RUNS,
              earliest=("created",), filled=("name", "servers")),  # status and finished: see merge_runs
    TableRule("predictions", ("run_id", "doc_id", "span_index"),
              ("pseudonym", "candidates", "rank", "pick_upos", "failed", "note", "upos_fallback"), PREDICTIONS),
    TableRule("run_reports", ("run_id", "kind"), ("body",), PRIVACY, earliest=("created",)),
    TableRule("reid_results", ("run_id", "attack_key", "doc_id"),
              ("attacker", "config", "background", "background_sha256", "text_sha256", "individual", "n_higher",
               "n_tied", "n_candidates", "top_guess"), PRIVACY, earliest=("created",)),
    TableRule("inference_results", ("run_id", "attack_key", "doc_id", "span_index"),
              ("attacker", "config", "input_sha256", "guesses", "disclosed", "hit", "rule", "replacement_rule",
               "note"), PRIVACY, earliest=("created",)),
    TableRule("own_detections", ("run_id", "doc_id", "start"), ("end", "replacement"), PRIVACY),
    TableRule("judge_faults", ("run_id", "doc_id", "span_index", "judge"), ("prompt_version", "reason"), PRIVACY,
              earliest=("saved",)),
    TableRule("hidden_runs", ("run_id",), (), RUNS, earliest=("hidden",)),
    TableRule("annotation_sample_info", ("sample",), ("recipe",), SAMPLES, earliest=("created",)),
    TableRule("annotation_samples", ("sample", "position"), ("run_id", "doc_id", "span_index"), "sample items"),
    TableRule("annotations", ("run_id", "doc_id", "span_index", "annotator"),
              ("tag", "note", "source", "prompt_version", "suggested_by", "suggested_tag"), ANNOTATIONS,
              earliest=("created",), latest=("updated",)),
)
# Handled apart: the log has no key but its sequence number (workbench.store.merge_log), and
# leases are never merged (see the module docstring).
LOG_TABLE = "annotation_log"
NOT_MERGED = ("run_leases",)


def merged_values(rule: TableRule, mine: dict, theirs: dict) -> dict:
    """The destination row's columns that change when `theirs` (the source's row, same key and
    agreeing on `compared`) is merged into `mine`: earliest, latest and filled columns."""
    changes = {}
    for column in rule.earliest + rule.latest:
        values = [v for v in (mine[column], theirs[column]) if v is not None]
        if values:
            best = min(values) if column in rule.earliest else max(values)
            if best != mine[column]:
                changes[column] = best
    for column in rule.filled:
        if mine[column] is None and theirs[column] is not None:
            changes[column] = theirs[column]
    return changes


def differing(rule: TableRule, mine: dict, theirs: dict) -> list[str]:
    """The compared columns whose values differ."""
    return [c for c in rule.compared if mine[c] != theirs[c]]
