"""User text made safe and tidy for a terminal: escaped controls, wrapped lines, aligned columns.

User text (document texts, replacements, ids, a run's name) can hold anything: an ANSI
escape sequence that clears the screen, a newline inside a replacement, bidi overrides
that reorder what follows. Everything printed goes through `printable`, which shows such
characters escaped (\\x1b, \\n, \\u202e) instead of letting the terminal act on them.

What the commands print from these pieces is workbench.views: `workbench runs`
(views/runs.py) and `workbench show` (views/show.py).
"""

from __future__ import annotations

import textwrap
import unicodedata

# Characters a terminal acts on or that reorder the line: controls (C0, DEL, C1), line and
# paragraph separators, bidi embeddings/overrides/isolates.
_ESCAPED_CATEGORIES = {"Cc", "Zl", "Zp", "Cs"}
_BIDI = set(range(0x202A, 0x202F)) | set(range(0x2066, 0x206A)) | {0x200E, 0x200F, 0x061C}


def _escape(char: str) -> str:
    code = ord(char)
    if char in "\n\t\r":
        return {"\n": "\\n", "\t": "\\t", "\r": "\\r"}[char]
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def printable(text: str, *, layout: bool = False) -> str:
    """`text` with every control character shown escaped. layout=True: a newline or tab of
    running document text becomes a space (it is layout, not content)."""
    out = []
    for char in text:
        if layout and char in "\n\t\r":
            out.append(" ")
        elif ord(char) in _BIDI or unicodedata.category(char) in _ESCAPED_CATEGORIES:
            out.append(_escape(char))
        else:
            out.append(char)
    return "".join(out)


class _LinearWrapper(textwrap.TextWrapper):
    """textwrap's wrapping, with words longer than a line cut into line-long pieces up front.
    TextWrapper cuts such a word one line at a time, copying the rest of the word each time:
    quadratic in its length (a 100 MB replacement kept `show` busy for over ten minutes)."""

    def _split(self, text: str) -> list[str]:
        out: list[str] = []
        for chunk in super()._split(text):
            if len(chunk) > self.width:
                out.extend(chunk[i:i + self.width] for i in range(0, len(chunk), self.width))
            else:
                out.append(chunk)
        return out


def wrap(text: str, width: int) -> list[str]:
    """textwrap.wrap(text, width), in time linear in the text's length."""
    return _LinearWrapper(width).wrap(text)


def display_width(text: str) -> int:
    """Columns `text` takes on a terminal: wide East Asian characters two, combining marks none."""
    return sum(0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def aligned(rows: list[tuple[str, ...]], right: frozenset[int] = frozenset(), gap: str = "  ") -> list[str]:
    """Rows of cells as lines whose columns start at the same offsets: each column as wide as its
    widest cell (the data decides, so a long corpus or generator name never shifts the columns
    after it). `right`: the columns aligned to the right; trailing blanks are cut."""
    widths = [max(display_width(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines = []
    for row in rows:
        cells = []
        for i, cell in enumerate(row):
            fill = " " * (widths[i] - display_width(cell))
            cells.append(fill + cell if i in right else cell + fill)
        lines.append(gap.join(cells).rstrip())
    return lines
