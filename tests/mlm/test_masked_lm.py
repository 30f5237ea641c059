"""MaskedLM mechanics on untrained tiny models: mask positions, cropping, batching."""

from __future__ import annotations

import pytest

from workbench.mlm.loading import load_masked_lm


@pytest.fixture(scope="module", params=[("tiny_bert", "float32"), ("tiny_roberta_sv", "float32"),
                                        ("tiny_bert", "bfloat16"), ("tiny_roberta_sv", "bfloat16")],
                ids=lambda p: "-".join(p))
def lm(request):
    model, dtype = request.param
    return load_masked_lm(str(request.getfixturevalue(model)), dtype=dtype)


def test_masks_sit_where_the_gaps_are(lm):
    enc = lm.encode(["Anna met ", 1, " in ", 3, " yesterday."])
    assert [len(g) for g in enc.masks] == [1, 3]
    for gap in enc.masks:
        assert all(enc.ids[p] == lm.mask_id for p in gap)
    assert sum(i == lm.mask_id for i in enc.ids) == 4
    assert enc.after_space == (True, True)
    assert enc.ids[0] == lm.prefix[0] and enc.ids[-1] == lm.suffix[-1]


def test_a_literal_mask_string_in_the_text_adds_no_mask(lm):
    enc = lm.encode([f"Say {lm.tokenizer.mask_token} to ", 1, "."])
    assert sum(i == lm.mask_id for i in enc.ids) == 1


def test_gap_without_space_before_it(lm):
    enc = lm.encode(["(", 1, ")"])
    assert enc.after_space == (False,)


def test_long_windows_are_cropped_around_the_target(lm):
    filler = "word " * 200
    enc = lm.encode([filler, 1, " and ", 1, " " + filler], focus=1)
    assert len(enc.ids) <= lm.max_tokens
    assert enc.masks[1] and enc.ids[enc.masks[1][0]] == lm.mask_id


def test_a_gap_cropped_away_loses_its_positions(lm):
    enc = lm.encode([1, " " + "word " * 300, 1, "."], focus=1)
    assert enc.masks[0] == () and len(enc.masks[1]) == 1


def test_batched_logits_equal_one_at_a_time(lm):
    # Rows of very different lengths in one call: the padding must not change any row.
    texts = [["A ", 1, "."], ["The applicant was represented by ", 1, ", a lawyer practising in ", 1, "."],
             ["x " * 40, 1, " y"]]
    rows = [lm.encode(t) for t in texts]
    positions = [[p for g in r.masks for p in g] for r in rows]
    together = lm.logits(rows, positions)
    for row, pos, both in zip(rows, positions, together):
        alone = lm.logits([row], [pos])[0]
        assert alone.shape == both.shape and bool((alone == both).all())


def test_every_encoder_call_of_a_bucket_has_one_shape_whatever_the_batch(lm):
    # One window, then five windows of the same length bucket: the encoder sees the same
    # (rows, length) every time, filled up with padding rows; a kernel choice (and so the last
    # bits of a row's states) can therefore never depend on how many windows came together.
    from workbench.mlm.masked_lm import bucket_length, rows_per_call
    shapes = []
    hook = lm.model.base_model.register_forward_pre_hook(
        lambda module, args, kwargs: shapes.append(tuple(kwargs["input_ids"].shape)), with_kwargs=True)
    try:
        rows = [lm.encode([f"{w} met ", 1, " in Oslo."]) for w in ("Anna", "Bo", "Carl", "Dora", "Eva")]
        lm.logits(rows[:1], [rows[0].masks[0]])
        lm.logits(rows, [r.masks[0] for r in rows])
    finally:
        hook.remove()
    length = bucket_length(len(rows[0].ids))
    assert {bucket_length(len(r.ids)) for r in rows} == {length}
    assert shapes == [(rows_per_call(length), length)] * 2


def test_a_rows_logits_do_not_depend_on_the_rows_that_share_its_calls(lm):
    # Exactness pinned by the fixture's dtype (float32 and bfloat16), on whichever kernels this
    # CPU runs them (AMX, AVX-512 BF16 or emulated): many rows of one bucket, more than one call
    # takes, so a row moves to another call and another place in it when the batch changes.
    from workbench.mlm.masked_lm import bucket_length, rows_per_call
    names = ["Anna", "Bo", "Carl", "Dora", "Eva", "Finn", "Gun", "Hans", "Ida", "Jon", "Kim", "Lo"]
    places = ["Oslo", "Bergen", "Lund", "Umeå"]
    rows = [lm.encode([f"{n} met ", 1, f" in {p}."]) for n in names for p in places]
    positions = [r.masks[0] for r in rows]
    length = bucket_length(len(rows[0].ids))
    assert {bucket_length(len(r.ids)) for r in rows} == {length} and len(rows) > rows_per_call(length)
    together = lm.logits(rows, positions)
    backward = lm.logits(rows[::-1], positions[::-1])[::-1]
    shifted = lm.logits(rows[5:], positions[5:])
    for n, row in enumerate(rows):
        alone = lm.logits([row], [positions[n]])[0]
        assert bool((alone == together[n]).all()) and bool((alone == backward[n]).all()), n
        if n >= 5:
            assert bool((alone == shifted[n - 5]).all()), n


def test_a_positions_logits_do_not_depend_on_the_positions_projected_with_it(lm):
    # More mask positions than one head call takes (HEAD_ROWS), in rows whose order moves every
    # position to another place in another call: each position's logits stay bit for bit.
    from workbench.mlm.masked_lm import HEAD_ROWS
    texts = [["Anna ", 1, " met ", 2, " in ", 1, "."], ["The ", 1, " of ", 1, " was ", 3, " today."],
             ["x " * 30, 1, " y ", 1]]
    rows = [lm.encode(t) for t in texts * 7]
    positions = [[p for g in r.masks for p in g] for r in rows]
    assert sum(map(len, positions)) > 2 * HEAD_ROWS
    forward = lm.logits(rows, positions)
    backward = lm.logits(rows[::-1], positions[::-1])[::-1]
    shifted = lm.logits(rows[1:], positions[1:])
    for n, (a, b) in enumerate(zip(forward, backward)):
        assert a.dtype == lm.torch.float32 and bool((a == b).all())
        if n:
            assert bool((a == shifted[n - 1]).all())


def test_top_words_are_whole_words(lm):
    enc = lm.encode(["She was born in ", 1, " in 1975."])
    words = lm.top_words(lm.logits([enc], [enc.masks[0]])[0][0], 10, True, enc.left[0])
    assert len(words) == 10 and len(set(words)) == 10
    assert all(not w.startswith("##") and any(c.isalnum() for c in w) and w == w.strip() for w in words)
