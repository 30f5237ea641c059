"""The two baselines of paper 003 §4: random PUD word forms, and PUD forms with the span's UPOS."""
