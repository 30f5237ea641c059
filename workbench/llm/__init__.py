"""Small instruction LLMs as pseudonym generators (003 §3.2, §4), spoken to through Ollama.

    config.py   the frozen options (model, host, attempts, timeout …)
    guard.py    the loopback guard: personal data never leaves the machine by accident
    prompt.py   numbered masks ([MASK.5], [MASK.NOUN.5]), the messages and the JSON schema
    answers.py  parsing an answer into pseudonyms; FAILED reasons; copied-from-context
    client.py   one request with a hard deadline, retries, and a give-up after repeated failures
    stats.py    FAILED rate and failure reasons of a stored run
    verdict.py  whether a run failed (the server, not the model): causes counted, exit 3 or 4

Nothing here imports langchain or httpx at module level; client.py does so when used.
"""
