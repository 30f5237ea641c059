"""The review loop through a doccano server (issue 41 item 3): a run as a doccano Seq2seq project,
one example per span, and the reviewer's texts back as a reviewed run.

push_review: a Seq2seq project `workbench review RUN`, one example per span to replace; its text
shows the span's label and number, original → pseudonym, and the pseudonymised text around it
with the pseudonym marked (workbench.exchange.review_export.review_rows), its metadata the row's
run_id, doc_id, span, original and pseudonym. A reviewer who wants another pseudonym writes it
as the example's text label (doccano's "Seq2seq" answer); an example left without one keeps the
pseudonym. pull_review downloads the project's export and reads each line as a row of the CSV
review file, checked and stored by workbench.exchange.review_import: the same errors (naming
the project, the export's file and line, the document and span), the same run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from workbench.doccano.client import DoccanoClient, Project
from workbench.exchange.review_export import review_rows
from workbench.exchange.review_import import ReviewRow, check_review, check_reviewer, store_review
from workbench.infra import jsonl
from workbench.infra.errors import CorpusError, WorkbenchError
from workbench.store import RunRecord, RunStore

PROJECT_TYPE = "Seq2seq"
META_KEYS = ("run_id", "doc_id", "span", "original", "pseudonym")
GUIDELINE = ("Each example is one pseudonym of a pseudonymised text, shown beside the original it replaces and in "
             "its context. Where the pseudonym does not fit (wrong gender, form, type, or it gives the person "
             "away), write a better one as the example's text. Leave an example without a text to keep its "
             "pseudonym.")


def project_name(run_id: str) -> str:
    return f"workbench review {run_id}"


@dataclass(frozen=True, slots=True)
class ReviewPush:
    project: Project
    examples: int


def push_review(store: RunStore, client: DoccanoClient, run_id: str, *, name: str | None = None) -> ReviewPush:
    """Create the run's review project (refused where a project of that name holds examples:
    uploading twice would list every span twice) and upload one example per span."""
    run = store.resolve_run(run_id)
    rows, _ = review_rows(store, run)
    name = name or project_name(run.run_id)
    project = next((p for p in client.projects() if p.name == name), None)
    if project is None:
        project = client.create_project(name, f"Review of the pseudonyms of run {run.run_id}", guideline=GUIDELINE,
                                        project_type=PROJECT_TYPE)
    elif client.count_examples(project.id):
        raise WorkbenchError(f"doccano project {name!r} (id {project.id}) already holds examples; pull the review "
                             "from it, or push under another --project name")
    lines = [{"text": f"{r.label} #{r.span}: {r.original} → {r.pseudonym}\n\n{r.context}", "label": [],
              "run_id": r.run_id, "doc_id": r.doc_id, "span": r.span, "original": r.original,
              "pseudonym": r.pseudonym} for r in rows]
    client.upload_jsonl(project.id, jsonl.dumps_lines(lines).encode("utf-8"), filename=f"review-{run.run_id}.jsonl",
                        task_type=PROJECT_TYPE)
    return ReviewPush(project, len(lines))


def _find(client: DoccanoClient, project: int | str) -> int:
    if isinstance(project, int):
        return project
    found = [p for p in client.projects() if p.name == project or str(p.id) == project]
    if not found:
        raise WorkbenchError(f"no doccano project named {project!r} at {client.url}")
    return found[0].id


def review_rows_of_export(files: dict[str, list[str]], where: str) -> list[ReviewRow]:
    """The export's lines as review rows: a line's first text label is its `revised` cell."""
    rows = []
    for filename, lines in sorted(files.items()):
        for n, line in enumerate(lines, start=1):
            if not line.strip():
                continue
            at = f"{where} ({filename}), line {n}"
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise CorpusError(at, f"not JSON: {exc.msg}") from None
            missing = [k for k in META_KEYS if k not in record]
            if missing:
                raise CorpusError(at, f"no {', '.join(missing)}: not a line of a workbench review project")
            texts = record.get("label") or []
            if len(texts) > 1:
                raise CorpusError(at, f"{len(texts)} texts for one pseudonym ({', '.join(map(repr, texts))}); "
                                      "keep one in doccano", doc_id=str(record["doc_id"]), span=str(record["span"]))
            cells = {k: str(record[k]) for k in META_KEYS} | {"revised": str(texts[0]) if texts else ""}
            rows.append(ReviewRow(cells, at))
    return rows


def pull_review(store: RunStore, client: DoccanoClient, project: int | str, reviewer: str) -> RunRecord:
    """Download the review project's export and store the revisions as a new run (see
    workbench.exchange.review_import: checked whole first, nothing stored on a bad line)."""
    check_reviewer(reviewer)
    project_id = _find(client, project)
    where = f"doccano project {project_id}"
    rows = review_rows_of_export(client.download_jsonl(project_id), where)
    return store_review(store, check_review(store, rows, where), reviewer)
