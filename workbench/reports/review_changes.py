"""A report's reviewed runs beside their parents (issue 41 item 3: the review loop).

For each reviewed run in a report (`workbench review import`, the dashboard's Annotate page;
workbench.exchange.review_import), two tables:

    changes   how many spans the reviewer changed, by entity label and by the error tag the
              parent's pseudonym has (003's tagset, workbench/annotation/tagset.py: the people's
              majority tag of the parent's span, as Table 6 reads it; "not annotated" where no
              person tagged it, LLM judges left out): run, parent, reviewer, label, tag, changed.
              Read from the review's stored report (run_reports kind "review"), so only the
              spans the reviewer changed, each once.
    metrics   every metric of the report's table that has a value for both, parent → revision:
              run, parent, lang, metric, parent value, revision value, difference. Only where the
              parent run is in the report too (its row is the table's own); otherwise the
              section says to add it.

report.md shows both (the metrics that changed; the CSVs have every one): review_changes.csv,
review_metrics.csv.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from workbench.infra.errors import WorkbenchError

NOT_ANNOTATED = "not annotated"
CHANGE_COLUMNS = ["run", "parent", "reviewer", "label", "tag", "changed"]
METRIC_COLUMNS = ["run", "parent", "lang", "metric", "parent_value", "revision_value", "difference"]


@dataclass(frozen=True)
class ReviewComparison:
    changes: pd.DataFrame  # CHANGE_COLUMNS
    metrics: pd.DataFrame  # METRIC_COLUMNS
    missing_parents: tuple[str, ...]  # reviewed runs (as named) whose parent is not in the report


def _parent_tags(store, parent: str) -> dict[tuple[str, int], str]:
    """(doc_id, span) -> the people's majority tag of the parent's pseudonym (judges left out)."""
    from workbench.annotation.results import annotation_frame, item_tags
    from workbench.annotation.storage import AnnotationStore
    annotations = AnnotationStore(store)  # the report's connection: nothing to close
    frame = annotation_frame(annotations, [parent])
    try:
        items = item_tags(frame, annotations.tagset) if not frame.empty else None
    except WorkbenchError:  # only LLM judges tagged them: no person's tag to report
        items = None
    if items is None:
        return {}
    return {(d, int(s)): t for d, s, t in zip(items["doc_id"], items["span_index"], items["tag"])}


def review_comparison(store, table: pd.DataFrame) -> ReviewComparison | None:
    """The report's reviewed runs against their parents; None where the report has none."""
    from workbench.metrics import metric_infos
    from workbench.metrics.metric_frame import run_rows
    from workbench.metrics.run_names import run_names
    from workbench.store.run_reports import REVIEW, run_report
    from workbench.store.signature import REVIEWED
    rows = run_rows(table)
    names = run_names(table)
    name_of = {table.at[i, "stored_run"]: names[i] for i in rows}
    reviewed = [r for r in dict.fromkeys(table.loc[rows, "stored_run"])
                if (run := store.get_run(r)) is not None and run.source == REVIEWED]
    if not reviewed:
        return None
    metrics = [m for m in metric_infos() if m in table.columns]
    changes, diffs, missing = [], [], []
    for run_id in reviewed:
        report = run_report(store, run_id, REVIEW) or {"revisions": []}
        parent, name = str(report.get("parent", "")), name_of[run_id]
        parent_name = name_of.get(parent, parent[:8])
        tags = _parent_tags(store, parent)
        counts: dict[tuple[str, str], int] = {}
        for r in report["revisions"]:
            key = (r["label"], tags.get((r["doc_id"], int(r["span"])), NOT_ANNOTATED))
            counts[key] = counts.get(key, 0) + 1
        changes += [{"run": name, "parent": parent_name, "reviewer": report.get("reviewer", ""), "label": label,
                     "tag": tag, "changed": n} for (label, tag), n in sorted(counts.items())]
        if parent not in name_of:
            missing.append(name)
            continue
        # A run over a mixed-language corpus has a row per language: the parent's row of the same language.
        parent_rows = {table.at[i, "lang"]: i for i in rows if table.at[i, "stored_run"] == parent}
        for i in (i for i in rows if table.at[i, "stored_run"] == run_id):
            j = parent_rows.get(table.at[i, "lang"])
            if j is None:
                continue
            for m in metrics:
                a, b = table.at[j, m], table.at[i, m]
                if _number(a) and _number(b):
                    diffs.append({"run": name, "parent": parent_name, "lang": table.at[i, "lang"], "metric": m,
                                  "parent_value": float(a), "revision_value": float(b),
                                  "difference": float(b) - float(a)})
    return ReviewComparison(pd.DataFrame(changes, columns=CHANGE_COLUMNS), pd.DataFrame(diffs, columns=METRIC_COLUMNS),
                            tuple(missing))


def _number(value) -> bool:
    try:
        return not math.isnan(float(value))
    except (TypeError, ValueError):
        return False


def markdown_text(text: str) -> str:
    """A table cell's text: on one line, a `|` (a reviewer's name, a label) not read as a column."""
    return " ".join(str(text).split()).replace("|", "\\|")


def review_markdown(comparison: ReviewComparison) -> str:
    """report.md's section body: the changes by label and tag, then the metrics that changed."""
    c = comparison
    parts = ["Spans each reviewer changed, by entity label and by the error tag the parent's pseudonym has "
             f"(the people's majority tag; `{NOT_ANNOTATED}`: no person tagged it). review_changes.csv.", "",
             "| Run | Parent | Reviewer | Label | Tag | Changed |", "|---|---|---|---|---|---:|"]
    parts += [f"| {' | '.join(markdown_text(str(r[k])) for k in CHANGE_COLUMNS[:-1])} | {r['changed']} |"
              for r in c.changes.to_dict("records")]
    parts += [""]
    changed = c.metrics[c.metrics["difference"].abs() > 1e-12]
    if len(c.metrics):
        parts += [f"Metrics parent → revision: the {len(changed)} that changed of {len(c.metrics)} with a value for "
                  "both (review_metrics.csv has every one).", ""]
    if len(changed):
        parts += ["| Run | Lang | Metric | Parent | Revision | Difference |", "|---|---|---|---:|---:|---:|"]
        parts += [f"| {markdown_text(r['run'])} | {markdown_text(str(r['lang']))} | {r['metric']} | "
                  f"{r['parent_value']:.3f} | {r['revision_value']:.3f} | {r['difference']:+.3f} |"
                  for r in changed.to_dict("records")]
        parts += [""]
    if c.missing_parents:
        parts += [f"No metric comparison for {', '.join(markdown_text(n) for n in c.missing_parents)}: its parent "
                  "run is not in this report (add it to the report's runs).", ""]
    return "\n".join(parts)
