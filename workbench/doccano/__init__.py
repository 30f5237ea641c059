"""Error annotation through a doccano server (doccano 1.8, sequence labelling).

format   a run as a doccano project JSONL, and a doccano export back as error tags
client   doccano's REST API over plain HTTP (no doccano-client: it pins pydantic<2), behind
         the one loopback guard (workbench.infra.local_guard)
sync     push a run to a live server, pull its annotations back, push-if-missing (sync)
server   start/stop a real doccano on 127.0.0.1 from .venv-doccano (tests, `workbench doccano serve`)
"""
