"""What the pages read from the run store, cached; and each session's own connection.

Reads go through st.cache_data keyed on the store path and its version (the modification
times of the database and its WAL), so a page re-reads only after something was
written. Corpora are immutable (keyed by content hash) and cached as resources.
Writes (annotations) use one connection per browser session, kept in session_state:
SQLite then serialises concurrent annotators itself (see workbench.annotation.storage).
"""

from __future__ import annotations

import argparse
import sys
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
import streamlit as st

from workbench.annotation.storage import AnnotationStore
from workbench.infra.paths import default_store
from workbench.metrics.run_names import UPOS_MARK
from workbench.store import RunRecord, RunStore


def store_path() -> Path:
    """session_state["store_path"] (tests) > `-- --store PATH` > $WORKBENCH_STORE > ./runs.sqlite."""
    if st.session_state.get("store_path"):
        return Path(st.session_state["store_path"])
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--store")
    known, _ = parser.parse_known_args(sys.argv[1:])
    return Path(known.store) if known.store else default_store()


def store_version(path: Path) -> tuple[int, int]:
    def mtime(p: Path) -> int:
        try:
            return p.stat().st_mtime_ns
        except OSError:
            return 0
    return mtime(path), mtime(path.with_name(path.name + "-wal"))


def session_store() -> AnnotationStore:
    """This browser session's own connection (annotations are written through it)."""
    path = str(store_path())
    held = st.session_state.get("_wb_store")
    if held is None or held[0] != path:
        st.session_state["_wb_store"] = (path, AnnotationStore(RunStore(path, create=False)))
    return st.session_state["_wb_store"][1]


def require_store() -> Path:
    path = store_path()
    if not path.exists():
        from workbench.dashboard.render import escape_markdown
        st.error(f"No run store at {escape_markdown(path)}. Generate runs first (`workbench generate …`) "
                 "or start the dashboard with `workbench dashboard --store PATH`.")
        st.stop()
    return path


@st.cache_data(show_spinner=False)
def runs(path: str, version: tuple) -> list[RunRecord]:
    with closing(RunStore(path, create=False)) as s:
        return s.runs()


@st.cache_data(show_spinner=False)
def hidden(path: str, version: tuple) -> frozenset[str]:
    """Runs hidden on the Runs page (workbench.store.hidden_runs): left out of the run pickers."""
    from workbench.store.hidden_runs import hidden_runs
    with closing(RunStore(path, create=False)) as s:
        return frozenset(hidden_runs(s))


def set_hidden(run_ids: list[str], hide: bool) -> None:
    """Hide or unhide through this session's connection (a write, so the caches refresh)."""
    from workbench.store.hidden_runs import set_hidden as store_set_hidden
    store_set_hidden(session_store().run_store, run_ids, hide)


@st.cache_data(show_spinner=False)
def runs_table(path: str, version: tuple) -> pd.DataFrame:
    with closing(RunStore(path, create=False)) as s:
        rows = []
        for r in s.runs():
            rows.append({"run_id": r.run_id, "corpus": r.corpus_name, "generator": r.generator, "model": r.model,
                         "mode": r.mode, "upos": "on" if r.upos_filter else "off",
                         "window": r.options.get("window"), "seed": r.options.get("seed"),
                         "top_k": r.options.get("top_k"), "leak guard": r.options.get("leak_guard"),
                         "consistent": r.consistency if r.source == "generated" else "-",
                         "sees": r.sees_level if r.source == "generated" else "-",
                         "done": s.count_predictions(r.run_id), "slots": r.n_slots, "status": r.status,
                         "source": r.source, "created": pd.Timestamp(r.created, unit="s").floor("s"),
                         "signature": r.signature})
    if rows:  # hidden at the end: the columns readers use keep their places
        gone = hidden(path, version)
        for row in rows:
            row["hidden"] = row["run_id"] in gone
    return pd.DataFrame(rows)


@st.cache_resource(show_spinner=False, max_entries=16)
def corpus(path: str, corpus_hash: str):
    with closing(RunStore(path, create=False)) as s:
        return s.load_corpus(corpus_hash)


@st.cache_data(show_spinner=False, max_entries=64)
def picks(path: str, run_id: str, version: tuple) -> dict[str, dict[int, tuple[str, bool]]]:
    """doc_id → span_index → (pseudonym, failed) for one run."""
    out: dict[str, dict[int, tuple[str, bool]]] = {}
    with closing(RunStore(path, create=False)) as s:
        for p in s.predictions(run_id):
            out.setdefault(p.doc_id, {})[p.span_index] = (p.pseudonym, p.failed)
    return out


@st.cache_data(show_spinner=False, max_entries=16)
def own_detections(path: str, run_id: str, version: tuple) -> dict[str, tuple]:
    """doc_id → an imported run's edits outside every span (workbench.store.own_detections)."""
    from workbench.store.own_detections import own_detections as stored
    with closing(RunStore(path, create=False)) as s:
        return stored(s, run_id)


@st.cache_data(show_spinner=False, max_entries=16)
def frame(path: str, run_ids: tuple[str, ...], version: tuple) -> pd.DataFrame:
    from workbench.store.tidy_frame import run_frame
    with closing(RunStore(path, create=False)) as s:
        return run_frame(s, run_ids)


@st.cache_data(show_spinner="computing metrics …", max_entries=32)
def report_content(path: str, run_ids: tuple[str, ...], families: tuple[str, ...], originals: bool,
                   version: tuple):
    """The report's content for these runs and metric families (workbench.reports.build_report,
    what `workbench report` writes), unfinished runs included: the page shows what is stored."""
    from workbench.reports import build_report
    with closing(RunStore(path, create=False)) as s:
        return build_report(s, run_ids, families=families, originals=originals, allow_incomplete=True)


@st.cache_data(show_spinner="drawing …", max_entries=32)
def report_png(path: str, run_ids: tuple[str, ...], families: tuple[str, ...], originals: bool, version: tuple,
               figure: str) -> bytes | None:
    """One figure of report_content as the PNG bytes `workbench report` writes (figure: its file
    stem, "headline"); None where the report has no such figure (no stored TRIR, no annotations)."""
    from workbench.reports.figures import png_bytes
    drawn = report_content(path, run_ids, families, originals, version).figures().get(figure)
    return None if drawn is None else png_bytes(drawn)


@st.cache_data(show_spinner="comparing the two runs …", max_entries=16)
def paired_comparison(path: str, run_a: str, run_b: str, metrics: tuple[str, ...], version: tuple) -> pd.DataFrame:
    """`workbench compare`'s table for two runs of one corpus (workbench.metrics.compare_runs:
    each run's figure with its interval, A − B with its paired-bootstrap interval, both p-values);
    metrics: those to compare, () for the command's default families."""
    from workbench.metrics.compare_runs import compare_runs
    with closing(RunStore(path, create=False)) as s:
        return compare_runs(s, run_a, run_b, metrics=metrics)


@st.cache_data(show_spinner=False)
def comparable_metrics() -> list[str]:
    """The metrics the paired test can be asked for (workbench.metrics.compare_runs)."""
    from workbench.metrics.compare_runs import comparable_metrics as names
    return names()


def run_label(r: RunRecord) -> str:
    """Plain text (selectbox options, table headers); st.markdown and labels need escaped_label.

    The consistency option and what the generator saw only where they differ from the
    defaults (off, context), as the signature and `workbench runs` show them: runs that
    differ only there must not read the same in a select box."""
    extra = "".join(f" {k}={v}" for k, v, default in (("consistent", r.consistency, "off"),
                                                       ("sees", r.sees_level, "context")) if v != default)
    if r.name:  # the run's own name (`--name`), as report tables and figures show it
        return f"{r.run_id[:8]} · {r.corpus_name} · {r.name}"
    return f"{r.run_id[:8]} · {r.corpus_name} · {r.generator} {r.mode}{' ' + UPOS_MARK if r.upos_filter else ''}{extra}"


SELECTION = "selected_runs"  # the session_state key of the one run selection every page shares
NO_SELECTION = ("No runs selected. Select the runs to work on on the **Runs** page (or pick them in the sidebar "
                "here): this page shows only selected runs, never a default set.")


def selected_runs() -> list[str]:
    """The run ids chosen on the Runs page (kept outside widget state so every page sees them:
    Streamlit drops a widget's own state when another page is shown)."""
    return list(st.session_state.get(SELECTION, []))


def set_selection(run_ids: list[str]) -> None:
    st.session_state[SELECTION] = list(dict.fromkeys(run_ids))


def selection_picker(container, label: str, options: list[str], key: str, format_func, **kwargs) -> list[str]:
    """A run multiselect that shows the shared selection (those of `options` in it) and writes
    a change back to it, so the Runs page, Metrics and Compare always show one selection.
    Selected runs this picker does not offer (another corpus, hidden) stay selected."""
    st.session_state[key] = [r for r in selected_runs() if r in options]  # set before the widget: it follows

    def write_back() -> None:
        others = [r for r in selected_runs() if r not in options]
        set_selection(others + list(st.session_state[key]))

    return container.multiselect(label, options, key=key, format_func=format_func, on_change=write_back,
                                 wrap=True, **kwargs)


def label_width(texts) -> int:
    """Pixels for a table column that shows these texts uncut (about 7.5 px a character at the
    dashboard's table font, at least 120, at most 900)."""
    longest = max((len(str(t)) for t in texts), default=10)
    return int(min(900, max(120, 7.5 * longest + 24)))


def name_columns(frame: pd.DataFrame, columns=("Run", "Corpus", "run", "corpus", "signature")) -> dict:
    """column_config for a table's naming columns: wide enough for their longest value and
    pinned, so a run's name is neither cut off nor scrolled away in a wide table."""
    return {c: st.column_config.TextColumn(c, width=label_width(frame[c]), pinned=c in ("Run", "run"))
            for c in columns if c in frame.columns and c != "signature"} | (
        {"signature": st.column_config.TextColumn("signature", width="large")} if "signature" in frame else {})


def escaped_label(r: RunRecord) -> str:
    """run_label for Markdown (captions, expanders, headers): corpus and model names are user text."""
    from workbench.dashboard.render import escape_markdown
    return escape_markdown(run_label(r))


def header(title: str, caption: str = "") -> Path:
    from workbench.dashboard.render import STYLE, escape_markdown
    st.set_page_config(page_title=f"{title} · Pseudonym Workbench", layout="wide")
    st.markdown(STYLE, unsafe_allow_html=True)
    st.title(title)
    if caption:
        st.caption(caption)
    path = require_store()
    st.sidebar.caption(f"store: {escape_markdown(path)}")
    return path


@dataclass(frozen=True, slots=True)
class Page:
    """What every page starts from: the store, its version (the cache key) and its runs by id."""
    path: Path
    version: tuple
    runs: dict[str, RunRecord]  # every run, hidden ones too (samples and annotations name them)
    hidden: frozenset[str] = frozenset()

    @property
    def shown(self) -> dict[str, RunRecord]:
        """The runs the pickers offer: all but the hidden ones."""
        return {r: run for r, run in self.runs.items() if r not in self.hidden}


NO_RUNS = "The store holds no runs yet: `workbench generate -c pgv-pii-en -g upos` makes one."


def open_page(title: str, caption: str = "", *, need_runs: bool = True) -> Page:
    """The opening lines of every page: header, store, version, runs; stops with a note when
    `need_runs` and the store holds none."""
    path = header(title, caption)
    version = store_version(path)
    by_id = {r.run_id: r for r in runs(str(path), version)}
    if need_runs and not by_id:
        st.warning(NO_RUNS)
        st.stop()
    return Page(path, version, by_id, hidden(str(path), version))


ALL_HIDDEN = "Every run is hidden: unhide some on the Runs page (tick \"Show hidden runs\")."


def shown_runs(page: Page) -> dict[str, RunRecord]:
    """The runs a picker offers (not hidden); stops the page with a note when every run is hidden."""
    if page.runs and not page.shown:
        st.warning(ALL_HIDDEN)
        st.stop()
    return page.shown
