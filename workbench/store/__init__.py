"""The run store: one SQLite file (WAL) holding corpora snapshots, runs and predictions.

Runs are self-contained: the documents and spans they were made from are stored with
them, so reports, exports and the dashboard never need the original corpus file.

Where things are (every SQL statement of the workbench is in this package):
    file.py             the file's guard: header, foreign file, damage, migrations
                        (schema.py), busy/full/read-only errors in words, the connection
                        and transaction()
    records.py          RunRecord, StoredPrediction, the run status constants
                        (RUNNING, COMPLETE) and the rows they are stored as
    corpora.py          corpus snapshots and the originals' UPOS        } RunStore's
    runs.py             runs and their leases                           } methods
    predictions.py      predictions                                     }
    whole_run.py        storing a whole run at once (imports, reference runs)
    annotations.py      error annotations, their log and samples
    privacy_results.py  per-run attack results (reid_results, inference_results)
    run_reports.py, hidden_runs.py, run_deletion.py, cache.py: one job each, as named

RunStore is the one object callers hold: the guarded file plus the three repositories
of the run store proper, combined as mixins, so a call reads `store.get_run(run_id)`,
`store.predictions(run_id)`, `store.load_corpus(hash)` as it always did, and a test
or a caller never has to know which repository answers. The tables of later features
(annotations, attack results, reports, hidden runs) are modules of functions taking a
RunStore (`run_reports.save_run_report(store, …)`), so RunStore does not grow with
every feature. Rows are written and read by column name; the column lists come from
the record dataclasses (workbench.store.records), so a new field is a new column and a
migration, nothing else.
"""

from __future__ import annotations

from workbench.store.corpora import CorpusRepository
from workbench.store.file import BUSY_TIMEOUT_S, StoreFile
from workbench.store.predictions import PredictionRepository
from workbench.store.records import COMPLETE, RUNNING, RunRecord, StoredPrediction
from workbench.store.runs import RunRepository, _pid_alive  # noqa: F401  (_pid_alive: tests)

__all__ = ["BUSY_TIMEOUT_S", "COMPLETE", "RUNNING", "RunRecord", "RunStore", "StoredPrediction"]


class RunStore(StoreFile, CorpusRepository, RunRepository, PredictionRepository):
    """One store file. `read_only=True` (or a `file:PATH?mode=ro` URI, or a file the user
    cannot write) opens it read-only: listing, showing, exporting and reports work, writing
    raises a WorkbenchError. `create=False` refuses a path where no store exists."""
