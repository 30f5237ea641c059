"""Run ids and attack keys of existing runs must not change when the code is rearranged (issue 25).

A run id hashes the run's signature (corpus, generator, model, settings, tagger, library
versions); an attack key hashes an attacker's settings. Refactoring that moves a setting into
a shared record, renames a module or changes a registry must leave both as they were, or every
stored run would be generated again and every stored attack rerun. The expected values below
were computed at main d2fa1b7 (before issue 25's restructuring). The library versions are left
out of what is pinned (an upgrade of torch changes a run id on purpose); everything else is in.

If this test fails after a refactor, the refactor changed what a run or an attack means:
fix the code, never the expected values.
"""

from __future__ import annotations

import hashlib
import json
from types import SimpleNamespace

import pytest

from tests.helpers.machines import MACHINES, as_machine

# generator name -> its -o settings (a few set, so that a setting's spelling is pinned too)
GENERATORS = {
    "random": {},
    "upos": {},
    "fill-mask": {},
    "ns3": {},
    "nad": {"model": "offline"},
    "mtc": {},
    "ss-mtc": {},
    "ollama": {"temperature": "0.3", "parallel": "2"},
    "surrogate": {},
    "intact": {"candidates": "3", "attacker": "mlm"},
}
OPTIONS = {"seed": 7, "top_k": 5, "upos_filter": True}


def _unversioned(signature) -> str:
    """The run id of the signature string with its library versions (the last `|v=` part) left out."""
    text = signature if isinstance(signature, str) else signature.render()
    head, _, versions = text.rpartition("|v=")
    assert head and "|" not in versions, text
    return hashlib.sha256(head.encode()).hexdigest()[:16]


# An MTC run's model id names its checkpoint's weights (their sha256), which depend on the
# machine that trained them: the pin reads a fixed checkpoint description instead.
TRAINED_BASE_ID = "0123456789abcdef"
MTC_CHECKPOINT = {"base_model": "offline-en", "fingerprint": "0123456789abcdef" * 4}


# The offline MLMs are named in a signature by their directory, whose name is a key over their recipe:
# a shorter recipe (issue 36: 60 steps, was 200) is another model, on purpose. What is pinned is how a
# command becomes an id, so the pin reads the directory names the recipes had at d2fa1b7.
OFFLINE_DIRS = {"en": "offline-en-204aed841a48", "sv": "offline-sv-fefe044209e9"}


def generated_id(corpus, name: str, settings: dict) -> str:
    from pathlib import Path
    from unittest import mock

    from workbench.generation.engine import plan_run
    from workbench.pipeline import make_generator
    generator = make_generator(name, settings, OPTIONS)
    if name in ("mtc", "ss-mtc"):
        generator._metadata = lambda: {**MTC_CHECKPOINT, "kind": name}
    tagger = SimpleNamespace(name="spacy:en_core_web_sm,span=last-word")
    with mock.patch("workbench.mlm.offline.model_dir", lambda lang: Path(OFFLINE_DIRS[lang])):
        return _unversioned(plan_run(corpus, generator, tagger).signature)


def imported_id(store, corpus, tmp_path) -> str:
    from tests.metrics.conftest import WordListTagger
    from workbench.exchange.importers import import_run
    data = {d.doc_id: [[s.start, s.end, s.text[::-1]] for s in d.spans] for d in corpus.documents}
    path = tmp_path / "system.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    run = import_run(store, path, corpus, tagger=WordListTagger(), name="system-x")
    return _unversioned(store.get_run(run.run_id).signature)


def reference_ids(corpus) -> dict[str, str]:
    from workbench.exchange.reference import reference_signature
    return {f"{kind}{'-numbered' if numbered else ''}": _unversioned(reference_signature(corpus, kind, numbered, "t"))
            for kind, numbered in (("original", False), ("suppress", False), ("label", True))}


def inference_keys() -> dict[str, str]:
    from workbench.privacy.inference_attacks.inference import matcher_description
    from workbench.privacy.inference_attacks.inference_attackers import make_inference_attacker
    from workbench.privacy.inference_attacks.inference_contract import attack_key
    matcher = matcher_description()
    return {"mlm": attack_key(make_inference_attacker("mlm", 5, {"model": "xlm-roberta-base"}), matcher),
            "ollama": attack_key(make_inference_attacker("ollama", 3, {"temperature": "0.2"}), matcher)}


def reid_keys(tmp_path) -> dict[str, str]:
    from unittest import mock

    from tests.privacy.reid_helpers import background
    from workbench.privacy.reid_attacks.attackers import make_attacker
    from workbench.privacy.reid_attacks.background import load_background
    from workbench.privacy.reid_attacks.reid_contract import attack_key
    bk = load_background(background(tmp_path / "bk.json"))
    base = tmp_path / "offline-en"  # an empty folder for the offline model, never built: its id is pinned below
    base.mkdir()
    with mock.patch("workbench.privacy.reid_attacks.trained.resolve_base", lambda ref: base):
        trained = make_attacker("trained", bk, {"base_model": "offline"}, "en")
    # The base weights' id lists the offline model's files by name and size, and its build
    # metadata (timings) differs from machine to machine: the pin reads a fixed id instead.
    trained._base_id = TRAINED_BASE_ID
    return {"retrieval": attack_key(make_attacker("retrieval", bk, {"k1": "1.2"}, "en")),
            "trained": attack_key(trained)}


def _all_ids(store, corpus, tmp_path) -> dict[str, str]:
    ids = {f"generated:{name}": generated_id(corpus, name, settings) for name, settings in GENERATORS.items()}
    ids["imported"] = imported_id(store, corpus, tmp_path)
    ids.update({f"reference:{k}": v for k, v in reference_ids(corpus).items()})
    ids.update({f"inference:{k}": v for k, v in inference_keys().items()})
    ids.update({f"reid:{k}": v for k, v in reid_keys(tmp_path).items()})
    return ids


# Computed at main d2fa1b7 by _all_ids; the library versions are not part of these, and the MTC
# checkpoint and the trained attacker's base weights are read as fixed descriptions (above).
PINNED = {
    "generated:random": "83a32d0e125afc46",
    "generated:upos": "310f423030326e9d",
    "generated:fill-mask": "abe0d36d80da7a38",
    "generated:ns3": "aa941abdf64e0190",
    "generated:nad": "29982e3e9d79943e",
    "generated:mtc": "1cf2b237865027e2",
    "generated:ss-mtc": "b7a121420e48cfbd",
    "generated:ollama": "70720a0279286b49",
    "generated:surrogate": "330c1f9252cc8ffb",
    "generated:intact": "d900aa316289a2bf",
    "imported": "43df18479168f24e",
    "reference:original": "5e45b4d63f3e033f",
    "reference:suppress": "79dc730b7097edbc",
    "reference:label-numbered": "8db8dbc3f4ef79ce",
    "inference:mlm": "mlm-xlm-roberta-base-n5-32e3b5ff",
    "inference:ollama": "ollama-qwen2.5_1.5b-instruct-n3-7e0cb0e8",
    "reid:retrieval": "retrieval-5605b76cab26",
    "reid:trained": "trained-47beca671e6c",
}


# The attackers run in dtype=auto, so on a machine where auto resolves to bfloat16 their keys record
# it with the kernels that compute it (workbench.infra.devices.precision_entries): pinned per kernel family.
# Computed for issue 36 by _all_ids with the machine injected; the float32 keys above
# are those of every machine where auto resolves to float32.
PINNED_BFLOAT16 = {
    "amx": {"inference:mlm": "mlm-xlm-roberta-base-n5-2bf0b988", "reid:trained": "trained-1e7aa2dc13e9"},
    "avx512_bf16": {"inference:mlm": "mlm-xlm-roberta-base-n5-2741b110", "reid:trained": "trained-c27240531d49"},
}
# The machine is injected (tests/helpers/machines.py), never read: the CPU that runs the test must not
# change what it expects. (flags, bfloat16 faster than float32 there, the keys pinned)
MACHINE_KINDS = {
    "avx2": (MACHINES["avx2"][0], None, PINNED),  # no bfloat16 arithmetic: float32
    "avx512_bf16-slower": (MACHINES["avx512_bf16"][0], False, PINNED),  # issue 36's Xeon: float32
    "avx512_bf16-faster": (MACHINES["avx512_bf16"][0], True,
                           PINNED | PINNED_BFLOAT16["avx512_bf16"]),  # issue 14's EPYC
    "amx-faster": (MACHINES["amx"][0], True, PINNED | PINNED_BFLOAT16["amx"]),
}


@pytest.mark.parametrize("machine", list(MACHINE_KINDS))
def test_run_ids_and_attack_keys_are_those_of_before_the_restructuring(store, tiny_corpus, tmp_path, monkeypatch,
                                                                       machine):
    flags, faster, expected = MACHINE_KINDS[machine]
    as_machine(monkeypatch, flags, faster)
    got = _all_ids(store, tiny_corpus, tmp_path)
    assert set(got) == set(expected)
    changed = {k: (expected[k], v) for k, v in got.items() if v != expected[k]}
    assert not changed, f"changed (pinned, now): {changed}"


def test_a_setting_that_matters_changes_the_id(tiny_corpus):
    """The pin is not blind: the same computation sees a changed setting."""
    assert generated_id(tiny_corpus, "ollama", {"temperature": "0.4"}) != PINNED["generated:ollama"]
    assert generated_id(tiny_corpus, "random", {}) == PINNED["generated:random"]
