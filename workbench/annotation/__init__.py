"""Manual error annotation of generated pseudonyms (paper 003, Experiment 2).

tagset      the 9 tags of 003 Table 1 in Appendix C's precedence order (annotations/)
storage     annotation tables in the run store; concurrent annotators lose nothing
sampling    which pseudonyms a session covers
context     a pseudonym in its pseudonymised context, as annotators see it
jsonl       export and import of tags as JSONL
agreement   Cohen's kappa per pair, Fleiss' kappa, confusion tables
results     Table 6 (relative tag frequencies per system and language) and Figure 2
judge       an LLM judge proposes the tag of each sampled pseudonym (judge_prompt: what it is asked)
judge_simulated  simulated annotators (a seeded rule) to measure a judge before people annotate
"""

from workbench.annotation.storage import Annotation, AnnotationStore, SampleItem
from workbench.annotation.tagset import Tag, Tagset, load_tagset

__all__ = ["Annotation", "AnnotationStore", "SampleItem", "Tag", "Tagset", "load_tagset"]
