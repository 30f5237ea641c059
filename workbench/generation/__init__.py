"""Generation: the loop from slots to stored predictions.

engine runs one generator over one corpus as a resumable run (claim, load, tag, batches of
slots, one transaction per batch); pseudonym_choice picks each slot's pseudonym from the
generator's ranked candidates (leak guard, UPOS filter); consistency plans entity
consistency (--consistent), so later mentions reuse their entity's pick.
"""
