"""LaTeX escaping for the report's .tex files: run names and corpus names are user text."""

from __future__ import annotations

_TEX_ESCAPES = {
    "\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{", "}": r"\}",
    "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "|": r"\textbar{}", "<": r"\textless{}",
    ">": r"\textgreater{}", "↑": r"$\uparrow$", "↓": r"$\downarrow$", "→": r"$\rightarrow$", "–": "--",
    "·": r"$\cdot$",
}


def tex_escape(text: str) -> str:
    return "".join(_TEX_ESCAPES.get(ch, ch) for ch in str(text))
