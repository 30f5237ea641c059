"""Where a job's work runs: an executor, a plug-in of the kit (issue 38).

    generation (pipeline.generate_run, benchmark.run_benchmark) ─┐
    re-identification scoring (privacy.reid.reid_risk) ──────────┼─▶ executor_for(options) ─▶ local | ray
                                                                 ┘
The callers never ask which executor they have: they hand it runs to generate (RunJob) or
batches to score (ScoringJob) through one interface (contract.Executor), and each executor
decides how. `local` runs them in this process, one after another, as the engine always did;
`ray` sends shards and batches to a Ray cluster (its machinery is workbench.cluster). A third
executor is one module (copy workbench/executors/local.py) and one Entry in registry.py.
"""
