"""Inference: what a pseudonymised text still lets an attacker guess of each original span.

inference_contract (the attacker contract), inference_attackers (their Registry), inference_mlm,
inference_llm, inference (the attack over a run), inference_store (results kept by attack key),
matching + lemmatiser* (004's matching function: is a guess the original?)."""
