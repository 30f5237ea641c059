"""How well an MLM predicts held-out words: masked whole-word accuracy on UD PUD.

One word (letters only) per sentence is replaced by a single mask; a hit is a top-k
candidate equal to it ignoring case. The same candidate code as fill-mask, so the
figure describes what the generator sees. acc@k in [0, 1], higher is better. The
unigram-frequency baselines of the notes (EN 0.083 / 0.240, SV 0.033 / 0.208 at
@1 / @10) put the figures in context.
"""

from __future__ import annotations

import random
from pathlib import Path

from workbench.mlm.data import pud_path


def masked_word_items(lang: str, n: int, seed: int = 13) -> list[tuple[str, str, str]]:
    """(left text, word, right text) for n PUD sentences, one letters-only word each."""
    from workbench.loaders.files import read_text
    items, text, forms = [], None, []
    for line in read_text(pud_path(lang)).splitlines() + [""]:
        if line.startswith("# text ="):
            text = line[len("# text ="):].strip()
        elif line and not line.startswith("#"):
            cols = line.split("\t")
            if "-" not in cols[0] and "." not in cols[0]:
                forms.append(cols[1])
        elif not line and text is not None:
            items.append((text, forms))
            text, forms = None, []
    rng = random.Random(seed)
    rng.shuffle(items)
    out = []
    for text, forms in items:
        cursor, spans = 0, []
        for form in forms:
            at = text.find(form, cursor)
            if at < 0:
                break
            spans.append((at, at + len(form)))
            cursor = at + len(form)
        words = [(a, b) for a, b in spans if text[a:b].isalpha()]
        if words:
            a, b = rng.choice(words)
            out.append((text[:a], text[a:b], text[b:]))
        if len(out) == n:
            break
    return out


def pud_accuracy(model_dir: str | Path, lang: str, n: int, seed: int = 13, k: int = 10) -> dict:
    from workbench.mlm.loading import load_masked_lm
    lm = load_masked_lm(str(model_dir))
    items = masked_word_items(lang, n, seed)
    hits1 = hits_k = 0
    for i in range(0, len(items), 32):
        chunk = items[i:i + 32]
        rows = [lm.encode([left, 1, right]) for left, _, right in chunk]
        for row, logits, (_, word, _) in zip(rows, lm.logits(rows, [r.masks[0] for r in rows]), chunk):
            words = [w.casefold() for w in lm.top_words(logits[0], k, row.after_space[0], row.left[0])]
            hits1 += bool(words) and words[0] == word.casefold()
            hits_k += word.casefold() in words
    return {"sentences": len(items), "acc@1": round(hits1 / max(1, len(items)), 3),
            f"acc@{k}": round(hits_k / max(1, len(items)), 3)}
