"""Runs that cross the workbench's border: other systems' files in, shareable files out.

importers (with import_file, the file read) stores another system's pseudonymised file as a
run, each entry aligned to the corpus's spans by alignment's rule (alignment_report: what the
rule did with a whole file); reference stores the reference anonymisations (original, suppress,
label); exporters writes a run out (JSONL, doccano, masked) with no original text by default.
"""
