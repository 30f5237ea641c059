"""Attacks on stored runs, each stored and reused by its attack key.

    reid_attacks/       re-identification: reid_contract (the attacker contract, attack key), attackers
                        (their Registry), retrieval*, dense, fusion, trained*, method_aware, background
                        (what the attacker knows), reid (TRIR; the scoring batches handed to an executor),
                        reid_store
    inference_attacks/  inference: inference_contract, inference_attackers (Registry), inference_mlm,
                        inference_llm, inference (the attack over a run), inference_store, matching +
                        lemmatiser* (004's matching function)
    known_pair*.py      the known-pair attack (a pure function of the tidy frame) and its runs

Imports of other systems' files and reference runs are workbench.exchange's.
"""
