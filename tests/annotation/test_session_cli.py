"""An annotation session end to end through the real `workbench` entry point.

The two annotators are simulated through the storage API (dashboard_helpers.simulate:
annotator "rule" tags by simple checks, "second" departs from it on a seeded fifth of
the pseudonyms); the commands then work on their tags as on anyone's.
"""

from __future__ import annotations

import json
import re

from tests.helpers.annotation import copy_store, simulate
from tests.helpers.entry_point import wb, wb_ok
from workbench.annotation import AnnotationStore, annotator_agreement, results


def test_session_of_two_annotators_yields_kappa_table6_and_figure2(baseline_store, tmp_path):
    path = copy_store(baseline_store, tmp_path)
    items = simulate(path, per_run=15)
    n_items = len({(i.run_id, i.doc_id, i.span_index) for i in items})
    assert n_items >= 50

    out = wb_ok("annotations", "agreement", store=path)
    kappa = float(re.search(r"rule × second: (\d+) pseudonyms, observed [\d.]+, Cohen's kappa (-?[\d.]+)", out)[2])
    frame = results.annotation_frame(AnnotationStore(path))
    expected = annotator_agreement.pairwise(annotator_agreement.wide_tags(frame))[0]
    assert expected.n_items == n_items and round(expected.kappa, 3) == kappa
    assert 0 < kappa < 1  # agreement above chance, not perfect: a fifth of the tags differ
    print(f"\nsession: {n_items} pseudonyms, 2 annotators, Cohen's kappa {kappa:.3f}, "
          f"observed agreement {expected.observed:.3f}")

    outdir = tmp_path / "out"
    printed = wb_ok("annotations", "table6", "-o", str(outdir), "--annotator", "rule", store=path)
    print(printed)
    table = (outdir / "table6.csv").read_text().splitlines()
    assert table[0].startswith("tag,") and len(table) == 10  # header + the 9 tags
    columns = list(zip(*[[float(v) for v in line.split(",")[1:]] for line in table[1:]]))
    assert all(abs(sum(col) - 1) < 1e-3 for col in columns)
    header = table[0].split(",")[1:]
    assert any(h.startswith("English") for h in header) and any(h.startswith("Swedish") for h in header)
    assert (outdir / "figure2.png").read_bytes()[:4] == b"\x89PNG"
    assert "rule" in (outdir / "table6.md").read_text()  # the caption names the basis


def test_sample_status_export_import_commands(baseline_copy, tmp_path):
    s = AnnotationStore(baseline_copy)
    run = next(r.run_id for r in s.run_store.runs() if r.corpus_name == "pgv-pii-sv")
    out = wb_ok("annotations", "sample", "s1", "-r", run[:8], "--per-run", "20", "--unit", "span", store=baseline_copy)
    assert "sample s1: 20 pseudonyms" in out
    for it in s.sample("s1")[:5]:
        from workbench.annotation import Annotation
        s.save(Annotation(it.run_id, it.doc_id, it.span_index, "eve", "GRAMMAR", "kongruens"))
    assert re.search(r"eve\s+5/20", wb_ok("annotations", "status", store=baseline_copy))
    export = tmp_path / "eve.jsonl"
    assert "wrote 5 annotations" in wb_ok("annotations", "export", "-o", str(export), "-a", "eve", store=baseline_copy)
    assert all(json.loads(line)["note"] == "kongruens" for line in export.read_text().splitlines())
    assert "imported 5" in wb_ok("annotations", "import", str(export), "--annotator", "eve-copy", store=baseline_copy)
    assert len(s.annotations(annotators=["eve-copy"])) == 5
    bad = wb("annotations", "import", tmp_path / "missing.jsonl", store=baseline_copy)
    assert bad.returncode != 0


def test_dashboard_command_binds_loopback(baseline_copy, tmp_path):
    line = wb_ok("dashboard", "--port", "8765", "--print-command", store=baseline_copy)
    assert "streamlit run" in line and "--server.address 127.0.0.1" in line and "--server.port 8765" in line
    assert line.strip().endswith(f"--store {baseline_copy.resolve()}")
    missing = wb("dashboard", store=tmp_path / "none.sqlite")
    assert missing.returncode == 2 and "no run store" in missing.stderr
