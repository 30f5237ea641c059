"""EMAT: a masked LM whose output matrix is extended with one row per multi-token phrase.

Paper 000 §2 (after Kalinsky et al. 2023): the MLM's decoder matrix (and bias) gets
one extra row per phrase; the encoder stays frozen and only the new rows (optionally
the head transform) are trained with cross-entropy over tokens + phrases, on sentences
where the phrase is replaced by a single mask. At inference a span gets one mask and
top-k runs over single tokens and phrases together.

    phrases.py     phrase vocabularies: SS-MTC (sensitive spans) and MTC (noun phrases)
    ud_np.py       noun phrases from a UD treebank (gold UPOS / deprel)
    split.py       the document split that keeps training and evaluated documents apart
    head.py        the extended output layer over any BERT/RoBERTa-style masked LM
    encode.py      one-mask inputs, truncation around the mask, batch-invariant forward passes
    words.py       which vocabulary entries are whole words, and their casing
    train.py       training the phrase rows (encoder features computed once: it is frozen)
    checkpoint.py  the checkpoint directory: model + phrase list + metadata JSON

torch and transformers are imported only inside the functions that need them.
"""
