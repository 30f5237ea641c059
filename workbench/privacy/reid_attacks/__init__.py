"""Re-identification: which individual of a background a protected document is about.

reid_contract (the attacker contract, attack key, DEFAULT_K), attackers (their Registry), retrieval,
retrieval_ids, retrieval_hub, dense, fusion, trained* (the trained attackers), method_aware (an
attacker that knows the method), background (what the attacker knows), reid (TRIR and the ensemble;
the scoring batches handed to an executor), reid_store (results kept by attack key)."""
