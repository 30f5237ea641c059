"""Long jobs beyond one process: the executor option and its Ray implementation (issue 28).

    driver (the user's machine, the one writer of the SQLite store)
      ├─ plans each run as the local engine does (signature, claim, UPOS cached, run record)
      ├─ cuts it into shards of documents (workbench.cluster.shards)
      ├─ sends every shard not yet stored to Ray ─▶ worker: the same engine over the shard
      │                                               (workbench.cluster.shard_task)
      └─ stores each finished shard in one transaction, finishes a run when all are in

This is the Ray executor's machinery (workbench.executors.ray calls it; the options are
workbench.executors.options.ExecutorOptions). With `--executor ray` a task is a shard of one
run's documents (a run is one shard unless `--shards N` asks for more); a benchmark sends the
shards of all its runs at once, so a grid keeps every worker busy. Documents are independent
in maskL and repL, so a shard's predictions equal what the whole run would store for its
documents; `--consistent corpus` links documents through shared entities, so its shards are
whole groups of linked documents (workbench.cluster.shards).
"""
