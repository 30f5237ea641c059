"""Masked-LM generators (fill-mask, NS3, NAd) over one shared base."""
