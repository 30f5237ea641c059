"""`workbench generate --print-id`: stdout holds the run id alone, so `RUN=$(...)` is robust (issue 42)."""

from __future__ import annotations

from tests.helpers.entry_point import wb, wb_ok


def test_print_id_prints_the_run_id_alone_and_the_summary_on_stderr(tmp_path):
    store = tmp_path / "s.sqlite"
    args = ("generate", "-c", "tab-test", "--docs", "001-61807", "-g", "random", "--tagger", "spacy", "--seed", "7")
    result = wb(*args, "--print-id", store=store)
    assert result.returncode == 0, result.stderr
    run_id = result.stdout.strip()
    assert result.stdout == run_id + "\n"  # one line, nothing else
    assert f"run {run_id} complete" in result.stderr  # the summary is not lost, it moved
    assert wb_ok("runs", "--ids", store=store).split() == [run_id]
    # A second generation: --print-id gives its id, not the last listed one's.
    other = wb(*args[:-1], "8", "--print-id", store=store)
    assert other.returncode == 0 and other.stdout.strip() != run_id
    assert other.stdout.strip() in wb_ok("runs", "--ids", store=store).split()
