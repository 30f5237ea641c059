"""HTML for documents with their replacements marked; pure functions, no Streamlit.

Every replacement is a <mark> whose tooltip (title) names the original and its label,
so hovering shows what was replaced; the focused span gets its own style and an id,
so pages can point at it. All text is escaped: documents are data, never markup.

Streamlit renders these blocks through Markdown, where an HTML block ends at the first
blank line and whatever follows is Markdown again (`![p](http://…)` would make the
browser fetch a URL). So every block is emitted as one line: line breaks in texts and
tooltips become `&#10;`, which `white-space: pre-wrap` shows as the line break it is.
User text outside these blocks (run names, document ids, annotator names, error
messages) goes through `escape_markdown`.
"""

from __future__ import annotations

import html
import re
from collections.abc import Sequence
from collections.abc import Set as AbstractSet

from workbench.text.replace import Replaced

STYLE = """
<style>
.wb-doc {white-space: pre-wrap; line-height: 1.7; font-size: 0.95rem; max-height: 34rem; overflow-y: auto;
         padding: 0.6rem 0.8rem; border: 1px solid rgba(128,128,128,0.35); border-radius: 0.4rem;}
.wb-ctx {white-space: pre-wrap; line-height: 1.8; font-size: 1.05rem; padding: 0.8rem 1rem;
         border-left: 4px solid #f9a825; background: rgba(249,168,37,0.06);}
mark.wb-rep {background: #cfe8fc; color: inherit; border-radius: 0.2rem; padding: 0 0.1rem;}
mark.wb-orig {background: #e8e8e8; color: inherit; border-radius: 0.2rem; padding: 0 0.1rem;}
mark.wb-focus {background: #ffd54f; color: #000; outline: 2px solid #f57f17; border-radius: 0.2rem;
               padding: 0 0.15rem; font-weight: 600;}
mark.wb-failed {background: #ffcdd2; color: #000;}
mark.wb-suppressed::before {content: "∅"; color: #888; font-size: 0.8em;}
.wb-val {font-size: 1.15rem; font-weight: 600;}
.wb-sub {font-size: 0.7rem; color: #666; vertical-align: super; margin-left: 0.1rem;}
</style>
"""


def mark_text(text: str, marks: Sequence[tuple[int, int, str, str]], focus: int | None = None) -> str:
    """`marks`: (start, end, css class, tooltip) sorted and non-overlapping; `focus` indexes marks."""
    out, cursor = [], 0
    for k, (start, end, css, tip) in enumerate(marks):
        out.append(html.escape(text[cursor:start]))
        attrs = f'class="{css}{" wb-focus" if k == focus else ""}" title="{html.escape(tip, quote=True)}"'
        if k == focus:
            attrs += ' id="wb-focus"'
        out.append(f"<mark {attrs}>{html.escape(text[start:end])}</mark>")
        cursor = end
    out.append(html.escape(text[cursor:]))
    return "".join(out)


def replaced_marks(placed: Sequence[Replaced], labels: dict[int, str], failed: AbstractSet[int] = frozenset()
                   ) -> list[tuple[int, int, str, str]]:
    """Marks for a pseudonymised text: tooltip = 'span i · LABEL · original: …'. A suppressed
    span (replaced by nothing) is an empty mark that the style shows as ∅, so it stays visible
    and hoverable."""
    return [(r.start, r.end, "wb-rep wb-failed" if r.span_index in failed else
             "wb-rep wb-suppressed" if r.start == r.end else "wb-rep",
             f"span {r.span_index} · {labels.get(r.span_index, '')} · "
             f"{'suppressed' if r.start == r.end else 'original'}: {r.original}") for r in placed]


def original_marks(spans: Sequence[tuple[int, int, int, str]]) -> list[tuple[int, int, str, str]]:
    """Marks for the original text from (span_index, start, end, label)."""
    return [(start, end, "wb-orig", f"span {i} · {label}") for i, start, end, label in spans]


_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_MARKDOWN_PUNCTUATION = re.compile(r"([!-/:-@\[-`{-~])")  # every ASCII punctuation character


def one_line(markup: str) -> str:
    """HTML that Markdown cannot leave: no line ends, so no blank line ends the HTML block."""
    return _LINE_BREAK.sub("&#10;", markup)


def escape_markdown(text: object) -> str:
    """`text` shown literally by st.markdown, st.caption, labels …: each ASCII punctuation
    character backslash-escaped (CommonMark allows it for all of them), line breaks as spaces."""
    return _MARKDOWN_PUNCTUATION.sub(r"\\\1", _LINE_BREAK.sub(" ", str(text)))


def run_heading(escaped_label: str, generator: str) -> str:
    """A run's heading (bold, Markdown) after a square in its generator's colour, the colour of
    the report figures (workbench.reports.palette). escaped_label: already escape_markdown-ed;
    the colour is the palette's '#rrggbb', never user text."""
    from workbench.reports.palette import generator_colour
    return f'<span class="wb-swatch" style="color:{generator_colour(generator)}">■</span> **{escaped_label}**'


def doc_block(inner: str, css: str = "wb-doc") -> str:
    return one_line(f'<div class="{css}">{inner}</div>')


def field(name: str, value: str, note: str = "") -> str:
    """A labelled value (escaped: span texts are data, never Markdown)."""
    extra = f' <span class="wb-sub">{html.escape(note)}</span>' if note else ""
    return one_line(f'<div><b>{html.escape(name)}</b>{extra}<br><span class="wb-val">{html.escape(value)}</span></div>')
