"""Sentences, windows and slots: how a document becomes the inputs a generator sees."""
