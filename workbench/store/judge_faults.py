"""The items an LLM judge could not tag (workbench.annotation.judge): one row per item and judge.

A fault is what the judge's client gave up on after its attempts: no answer in time, no JSON, a
tag outside the tagset. It is kept apart from the annotations, which hold tags of the tagset
only, and replaced by the judge's tag when a later call tags the item. Functions of a RunStore,
like workbench.store.annotations.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class JudgeFault:
    run_id: str
    doc_id: str
    span_index: int
    judge: str  # the judge's annotator name, "judge:<model>"
    prompt_version: str
    reason: str  # the client's failure note
    requests: int  # requests sent for the item
    saved: float = 0.0  # seconds since the epoch


def save_fault(store, fault: JudgeFault, now: float) -> None:
    with store.transaction() as db:
        db.execute("INSERT OR REPLACE INTO judge_faults (run_id, doc_id, span_index, judge, prompt_version, reason, "
                   "requests, saved) VALUES (?,?,?,?,?,?,?,?)",
                   (fault.run_id, fault.doc_id, fault.span_index, fault.judge, fault.prompt_version, fault.reason,
                    fault.requests, now))


def clear_fault(store, item: tuple[str, str, int], judge: str) -> None:
    """The item is tagged now: its earlier fault, if any, goes."""
    with store.transaction() as db:
        db.execute("DELETE FROM judge_faults WHERE run_id=? AND doc_id=? AND span_index=? AND judge=?", (*item, judge))


def faults(store, judge: str | None = None) -> list[JudgeFault]:
    """The faults (of one judge, when given), in item order."""
    sql, args = ("SELECT run_id, doc_id, span_index, judge, prompt_version, reason, requests, saved "
                 "FROM judge_faults"), []
    if judge is not None:
        sql, args = sql + " WHERE judge=?", [judge]
    return [JudgeFault(*row) for row in store.db.execute(sql + " ORDER BY run_id, doc_id, span_index, judge", args)]
