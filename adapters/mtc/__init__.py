"""EMAT: a masked LM whose output matrix is extended with one row per multi-token phrase.

Paper 000 §2 (after Kalinsky et al. 2023): the MLM's decoder matrix (and bias) gets
one extra row per phrase; the encoder stays frozen and only the new rows (optionally
the head transform) are trained with cross-entropy over tokens + phrases, on sentences
where the phrase is replaced by a single mask. At inference a span gets one mask and
top-k runs over single tokens and phrases together.

    settings.py       the build's settings (recipe, vocabulary, training) with every default and choice
    phrases.py        phrase vocabularies: SS-MTC (sensitive spans) and MTC (noun phrases)
    ud_np.py          noun phrases from a UD treebank (gold UPOS / deprel)
    split.py          the document split that keeps training and evaluated documents apart
    head.py           the extended output layer over any BERT/RoBERTa-style masked LM
    encode.py         one-mask inputs, truncation around the mask, batch-invariant forward passes
    scorer.py         inference: top-k over whole-word tokens and phrases together
    train_phrases.py  training the phrase rows (encoder features computed once: it is frozen)
    checkpoint.py     the checkpoint directory: model + phrase list + metadata JSON
    build.py          from text to a checkpoint (`workbench mtc train`, the default checkpoints)

Which words are whole words, and their casing, comes from workbench.mlm.words.
head, encode, scorer and train_phrases import torch at module level (they are nothing without
it); settings, phrases, ud_np, split, checkpoint and build do not (build imports the
trainer inside build_checkpoint), so the CLI and the generator registry stay light.
"""
