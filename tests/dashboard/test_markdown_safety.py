"""User text is shown as text on every page, never as Markdown (issue 10 item 10).

A replacement with a blank line used to end the HTML block it was rendered in, and
what followed was Markdown: `![p](http://…)` made the annotator's browser fetch a URL.
A run's name (`import-run --name`) reached Markdown headers and captions the same way.

AppTest gives the Markdown source each element would render; it is rendered here with
markdown-it-py (CommonMark, raw HTML allowed, as Streamlit does with unsafe_allow_html)
and must hold no image and no link, while the hostile text still appears literally.
"""

from __future__ import annotations

import html
import re
import sqlite3

import pytest
from dashboard_helpers import PAGES, copy_store
from markdown_it import MarkdownIt
from streamlit.testing.v1 import AppTest

from workbench.annotation import AnnotationStore
from workbench.annotation.storage import SampleItem
from workbench.dashboard.render import doc_block, escape_markdown, field

PAYLOAD = "![p](http://evil.example/p.png)"
HOSTILE = f"Anna\n\n{PAYLOAD}\n\n<img src=http://evil.example/i.png> [x](http://evil.example/l)"
RUN_NAME = f"# {PAYLOAD} *bold*"

MARKDOWN = MarkdownIt("commonmark", {"html": True})


def rendered(source: str) -> tuple[list[str], str]:
    """(kinds of dangerous element, visible text) of one Markdown source as a browser gets it."""
    out = MARKDOWN.render(source)
    dangerous = re.findall(r"<(img|a|script|iframe)\b", out)
    return dangerous, html.unescape(re.sub(r"<[^>]+>", "", out))


def markdown_sources(at: AppTest) -> list[str]:
    """Every text AppTest saw that Streamlit renders as Markdown."""
    sources = []
    for kind in ("markdown", "caption", "subheader", "header", "title", "success", "error", "info", "warning"):
        sources += [e.value for e in at.get(kind)]
    sources += [e.label for e in at.get("expander")]
    return sources


@pytest.fixture
def hostile_store(baseline_store, tmp_path):
    """A copy of the baseline store where one run is named RUN_NAME and its first pseudonym is HOSTILE."""
    path = copy_store(baseline_store, tmp_path)
    with sqlite3.connect(path) as db:
        run_id, = db.execute("SELECT run_id FROM runs WHERE corpus_name='pgv-pii-en' "
                             "ORDER BY run_id LIMIT 1").fetchone()
        doc_id, span = db.execute("SELECT doc_id, span_index FROM predictions WHERE run_id=? AND failed=0 "
                                  "ORDER BY doc_id, span_index LIMIT 1", (run_id,)).fetchone()
        db.execute("UPDATE runs SET generator=? WHERE run_id=?", (RUN_NAME, run_id))
        db.execute("UPDATE predictions SET pseudonym=? WHERE run_id=? AND doc_id=? AND span_index=?",
                   (HOSTILE, run_id, doc_id, span))
    return path, run_id, doc_id, span


def check_page(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]
    sources = markdown_sources(at)
    visible = ""
    for source in sources:
        dangerous, text = rendered(source)
        assert dangerous == [], (dangerous, source[:300])
        visible += text + "\n"
    assert PAYLOAD in visible  # shown, literally


def test_compare_shows_a_hostile_replacement_and_run_name_as_text(hostile_store):
    path, run_id, doc_id, _ = hostile_store
    at = AppTest.from_file(str(PAGES / "pages/3_Compare.py"), default_timeout=120)
    at.session_state["store_path"] = str(path)
    at.session_state["selected_runs"] = [run_id]
    at.session_state["cmp_doc"] = doc_id
    at.run()
    check_page(at)
    # the header, bold after its generator's colour square
    assert any(s.startswith('<span class="wb-swatch"') and " **" in s and escape_markdown(RUN_NAME) in s
               for s in markdown_sources(at))


def test_annotate_shows_a_hostile_pseudonym_as_text(hostile_store):
    path, run_id, doc_id, span = hostile_store
    store = AnnotationStore(path)
    other = next(p for p in store.run_store.predictions(run_id) if (p.doc_id, p.span_index) != (doc_id, span))
    store.create_sample("hostile", [SampleItem(run_id, doc_id, span), SampleItem(run_id, other.doc_id,
                                                                                 other.span_index)],
                        {"runs": [run_id], "unit": "span"})
    store.close()
    at = AppTest.from_file(str(PAGES / "pages/4_Annotate.py"), default_timeout=120)
    at.session_state["store_path"] = str(path)
    at.session_state["ann_name"] = "anna"
    at.session_state["ann_sample"] = "hostile"
    at.run()
    check_page(at)
    at.text_input(key="ann_key::0").input("1")
    next(b for b in at.button if b.label == "Save and next").click().run()
    check_page(at)  # the "saved … for '<pseudonym>'" caption too


def test_runs_page_shows_a_hostile_run_name_as_text(hostile_store):
    path, run_id, _, _ = hostile_store
    at = AppTest.from_file(str(PAGES / "pages/1_Runs.py"), default_timeout=120)
    at.session_state["store_path"] = str(path)
    at.session_state["selected_runs"] = [run_id]
    at.session_state["runs_pick"] = [run_id]
    at.run()
    assert not at.exception
    labels = [e.label for e in at.get("expander")]
    assert labels and all(rendered(label)[0] == [] for label in labels)
    assert any("# " + PAYLOAD in rendered(label)[1] for label in labels)


@pytest.mark.parametrize("text", [HOSTILE, "a\r\n\r\nb", "a\r\rb", "x\n\n    code", "<div>\n\n*y*"])
def test_blocks_stay_one_html_block(text):
    for block in (doc_block(html.escape(text)), field("Pseudonym", text, note=text)):
        tokens = MARKDOWN.parse(block)
        assert [t.type for t in tokens] == ["html_block"], tokens
        dangerous, visible = rendered(block)
        assert dangerous == []
    assert escape_markdown(text).count("\n") == 0 and rendered(escape_markdown(text))[0] == []
