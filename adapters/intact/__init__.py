"""INTACT (paper 004 §3): truthful generalisations, each checked by an inference attack.

For each span to replace, in document order:
    direct.py      a direct identifier (TAB's DIRECT; PERSON, CODE, personal_name where a corpus
                   has no identifier types) gets its label, without any model call
    dates.py       a date the rules can read gets its rule chain: day → month and year → year → decade
    candidates.py  any other span: the LLM proposes generalisations, most specific first
                   (prompts.py: 004's prompt; examples.toml: a one-shot example per label)
    context.py     the current sanitised text around the span, with a candidate in its place
    selection.py   the first candidate an inference attack does not disclose (004's matching
                   function decides), or the label when every one is
    decide.py      the above for one span, as the generator (adapters/intact/generator.py) calls it
"""
