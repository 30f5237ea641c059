"""The known-pair attack over stored runs: run it, keep its counts with the run, read them back.

The attack (workbench.privacy.known_pair) is a pure function of a run's predictions and
takes seconds, so it is simply run again in full; its counts are kept as the run's report
of kind "known-pair" (workbench.store.run_reports: one JSON body per run and kind, deleted
with the run), where the privacy table of `workbench report` reads them. A run whose FAILED
spans were generated again is attacked again with the same command.
"""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd

from workbench.infra.errors import WorkbenchError
from workbench.privacy.known_pair import COUNTS, DATE, OTHER, known_pair_counts
from workbench.store import COMPLETE, RunStore
from workbench.store.run_reports import run_report, save_run_report

KIND = "known-pair"
# The same attack whose known pairs are only those the public background text states (--background).
BACKGROUND_KIND = "known-pair+background"
SHIPPED = "shipped"  # --background with no file: the corpus's shipped background text
# The attack's rules as stored: a new rule is a new version, and counts of another version are not shown.
VERSION = 1
COLUMNS = ["run_id", "label", "kind", *COUNTS]


def known_pair_risk(store: RunStore, run_ids: Sequence[str], background: str | None = None) -> pd.DataFrame:
    """Attack each run (ids or unique prefixes), store its counts, and return them all
    (columns COLUMNS: per run, label and kind, the attempts and how many recovered the original,
    and the same for the attempts in scope). background: None, every span is a known pair in
    turn; a background file (or SHIPPED, the corpus's), only the spans whose original it states."""
    from workbench.store.tidy_frame import run_frame
    if not run_ids:
        raise WorkbenchError("no runs given")
    runs = [store.resolve_run(r) for r in run_ids]
    for run in runs:  # every run checked before any is attacked
        if run.status != COMPLETE:
            raise WorkbenchError(f"run {run.run_id} is not complete ({store.count_predictions(run.run_id)}/"
                                 f"{run.n_slots} spans generated): resume it first (run the same `workbench generate` "
                                 "command again)")
    frames = []
    for run in runs:
        texts: dict[str, str] | None = None
        body: dict[str, object] = {"version": VERSION}  # the run report
        if background is not None:
            texts, body["background"] = _background_texts(run.corpus_name, background)
        counts = known_pair_counts(run_frame(store, [run.run_id]), texts)
        body["counts"] = counts[COLUMNS[1:]].values.tolist()
        save_run_report(store, run.run_id, KIND if background is None else BACKGROUND_KIND, body)
        frames.append(counts)
    return pd.concat(frames, ignore_index=True)[COLUMNS]


def _background_texts(corpus_name: str, background: str) -> tuple[dict[str, str], str]:
    """doc_id -> background text (a document's individual is its doc_id), and the file's name@hash."""
    from workbench.privacy.reid_attacks.background import load_background, resolve_background
    loaded = load_background(resolve_background(corpus_name, None if background == SHIPPED else background))
    return dict(zip(loaded.individuals, loaded.texts)), f"{loaded.path.name}@{loaded.sha256[:12]}"


def stored_counts(store: RunStore, run_ids: Sequence[str]) -> pd.DataFrame:
    """The stored counts of these runs (ids) under this version of the attack; runs never attacked are absent."""
    rows = []
    for run_id in run_ids:
        body = run_report(store, run_id, KIND)
        if body is not None and body.get("version") == VERSION:
            rows += [(run_id, *row) for row in body["counts"]]
    return pd.DataFrame(rows, columns=COLUMNS)


def recovery_by_kind(counts: pd.DataFrame) -> pd.DataFrame:
    """Per run (index run_id): the share of attempts recovered for dates, other values and all,
    and the attempts behind each (NaN share where a run had no attempt of that kind)."""
    out = {}
    for run_id, rows in counts.groupby("run_id", sort=False):
        entry = {}
        for name, part in ((DATE, rows[rows["kind"] == DATE]), (OTHER, rows[rows["kind"] == OTHER]), ("all", rows)):
            attempts = int(part["attempts"].sum())
            entry[name] = part["recovered"].sum() / attempts if attempts else float("nan")
            entry[f"{name}_attempts"] = attempts
        out[run_id] = entry
    return pd.DataFrame.from_dict(out, orient="index")


def known_pair_lines(store: RunStore, counts: pd.DataFrame) -> list[str]:
    """The counts as a table for a terminal: per run the shares for dates, other values and all,
    then per label."""
    from workbench.infra.terminal import printable
    if counts.empty:
        return ["no span of these runs has another span to recover (no document holds two mentions of an entity "
                "or two dates)"]

    def share(recovered: int, attempts: int) -> str:
        return f"{recovered / attempts:>7.1%} of {attempts:<6}" if attempts else f"{'-':>7}    {'':<6}"

    lines = [f"{'run':<12} {'generator':<12} {'label':<16} {'dates':<17} {'other values':<17} {'all':<17} "
             f"{'all, in scope':<17}"]
    for run_id, rows in counts.groupby("run_id", sort=False):
        run = store.get_run(run_id)
        gen = printable(run.generator)[:12] if run else "?"
        for label, part in [("(all labels)", rows)] + list(rows.groupby("label", sort=True)):
            cells = [share(int(p["recovered"].sum()), int(p["attempts"].sum()))
                     for p in (part[part["kind"] == DATE], part[part["kind"] == OTHER], part)]
            cells.append(share(int(part["in_scope_recovered"].sum()), int(part["in_scope"].sum())))
            lines.append(f"{run_id[:12]:<12} {gen:<12} {printable(str(label))[:16]:<16} " + " ".join(cells))
    lines.append("share of the other spans recovered from one known original-pseudonym pair, over every pair of each "
                 "document in turn (higher = more exposed); 'of N': the attempts counted; in scope: over the other "
                 "mentions of the known entity and, for a known date, the other dates only, wrong guesses elsewhere "
                 "not counted (docs/privacy.md, \"Known-pair attack\")")
    return lines
