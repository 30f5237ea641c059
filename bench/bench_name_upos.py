"""The name rule on the shipped corpora (issue 42 item 4): the tagger's PROPN share on the gold
name spans per language, and the verbs the UPOS filter of fill-mask picks for them, before and
after the rule.

    .venv/bin/python bench/bench_name_upos.py                  # PGV-PII EN and SV; upos and fill-mask on SV
    .venv/bin/python bench/bench_name_upos.py --corpora pgv-pii-sv tab-test --no-generate
    .venv/bin/python bench/bench_name_upos.py --generators upos --morph-filter   # `Lis` -> `utestängdes`

The share is the tagger's own reading (right-most word, in the whole document) of every span whose
label is a personal name (workbench.upos.label_upos.NAME_LABELS); PART counts as agreeing (the
English possessive). The verbs: each generator (the upos baseline, fill-mask with the offline MLM
and top-k 10; seed 13) with --upos-filter (or --morph-filter) over the corpus, once with the rule
switched off (the engine's ruled_upos as the identity: what the engine did before) and once as it
is, each into a fresh store; a name span's pick counts as a verb where its recorded UPOS
(pick_upos: the UPOS baseline's PUD gold tag, fill-mask's pick tagged in context) is VERB.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections import Counter
from contextlib import ExitStack
from pathlib import Path
from unittest import mock


def tagger_shares(corpus, tagger) -> dict[str, tuple[int, int, Counter]]:
    """lang -> (read as PROPN or PART, name spans tagged, the tags)."""
    from workbench.upos.label_upos import is_name_label, name_rule
    by_lang: dict[str, list] = {}
    for doc in corpus.documents:
        by_lang.setdefault(doc.lang, []).extend((doc.text, s.start, s.end) for s in doc.spans if is_name_label(s.label))
    out = {}
    for lang, items in by_lang.items():
        tags = [t for t in tagger.tag_ranges(lang, items) if t is not None]
        out[lang] = (sum(name_rule("person", t) == t for t in tags), len(tags), Counter(tags))
    return out


def name_verbs(corpus, tagger_name: str, generator: str, rule: bool, morph: bool) -> tuple[int, int, Counter, float]:
    """(name spans whose pick is tagged VERB, name spans, pick tags, seconds) of a +UPOS run."""
    from workbench.pipeline import generate_run
    from workbench.store import RunStore
    from workbench.upos.label_upos import is_name_label
    with tempfile.TemporaryDirectory() as tmp:
        store = RunStore(Path(tmp) / "runs.sqlite")
        started = time.perf_counter()
        with ExitStack() as before:
            if not rule:  # the engine as it was: the tagger's tags, nothing recorded
                before.enter_context(mock.patch("workbench.generation.engine.ruled_upos", lambda c, upos: dict(upos)))
                before.enter_context(mock.patch("workbench.generation.engine.with_name_rule", lambda c, *a: c))
            settings = {"model": "offline"} if generator == "fill-mask" else {}
            options = {"upos_filter": True, "morph_filter": morph, "top_k": 10, "seed": 13}
            result = generate_run(corpus, generator, settings, options, store=store, tagger=tagger_name,
                                  progress=False)
        seconds = time.perf_counter() - started
        labels = {(d.doc_id, i): s.label for d in corpus.documents for i, s in enumerate(d.spans)}
        picks = [p for p in store.predictions(result.run.run_id) if is_name_label(labels[(p.doc_id, p.span_index)])]
        tags = Counter(p.pick_upos for p in picks)
        return tags.get("VERB", 0), len(picks), tags, seconds


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpora", nargs="+", default=["pgv-pii-en", "pgv-pii-sv"])
    parser.add_argument("--tagger", default="auto")
    parser.add_argument("--generate-on", default="pgv-pii-sv", help="the corpus the generators run on")
    parser.add_argument("--generators", nargs="+", default=["upos", "fill-mask"])
    parser.add_argument("--morph-filter", action="store_true")
    parser.add_argument("--no-generate", action="store_true")
    args = parser.parse_args()
    from workbench.loaders import load_corpus
    from workbench.pipeline import make_tagger
    for name in args.corpora:
        corpus = load_corpus(name)
        tagger = make_tagger(args.tagger, corpus, quiet=True)
        for lang, (agree, n, tags) in tagger_shares(corpus, tagger).items():
            print(f"{name} [{lang}] tagger {tagger.name}: {agree} of {n} name spans read as PROPN/PART "
                  f"({agree / n * 100:.1f} %); tags {dict(tags.most_common())}")
    if args.no_generate:
        return
    corpus = load_corpus(args.generate_on)
    for generator in args.generators:
        for rule in (False, True):
            verbs, n, tags, seconds = name_verbs(corpus, args.tagger, generator, rule, args.morph_filter)
            print(f"{args.generate_on} {generator} {'+morph' if args.morph_filter else '+UPOS'}, name rule "
                  f"{'on' if rule else 'off'}: {verbs} of {n} name spans given a pick tagged VERB; picks' tags "
                  f"{dict(tags.most_common())} ({seconds:.0f} s)", flush=True)


if __name__ == "__main__":
    main()
