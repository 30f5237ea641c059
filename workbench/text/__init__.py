"""Sentences, windows and slots: how a document becomes the inputs a generator sees; and
replace, the way back: the run's pseudonyms written into the document."""
