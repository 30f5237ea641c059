"""What `workbench runs` prints: a header row, then one line per stored run, columns aligned."""

from __future__ import annotations

from collections.abc import Iterator

from workbench.infra.terminal import aligned, printable

# source: generated, imported, reference or reviewed (a reviewed run has its parent's generator,
# model and mode, so without it the two read alike).
RUNS_HEADER = ("run_id", "corpus", "generator", "source", "mode", "upos", "done/slots", "status", "model")


def selected_runs(store, *, corpora=(), generators=()) -> list:
    """The stored runs, only those of these corpora and generators (exact names) where given."""
    return [r for r in store.runs()
            if (not corpora or r.corpus_name in corpora) and (not generators or r.generator in generators)]


def _run_cells(store, r) -> tuple[str, ...]:
    n = store.count_predictions(r.run_id)
    # What the generator saw and the consistency option only where they differ from the
    # defaults (context, off), so the lines of paper 003's runs read as before.
    extra = "".join(f"  {k}={v}" for k, v, default in (("consistent", r.consistency, "off"),
                                                        ("sees", r.sees_level, "context"))
                    if r.source == "generated" and v != default)
    return (r.run_id, printable(r.corpus_name), printable(r.generator), printable(r.source), r.mode,
            f"upos={'on' if r.upos_filter else 'off'}", f"{n}/{r.n_slots}", r.status,
            printable(r.model) + printable(extra))


def run_lines(store, *, signatures: bool = False, corpora=(), generators=()) -> Iterator[str]:
    """What `workbench runs` prints: a header row, then one line per run (and its signature if
    asked), every column as wide as its widest entry."""
    runs = selected_runs(store, corpora=corpora, generators=generators)
    if not runs:
        yield f"no runs in {store.path}" + (" with that corpus or generator" if corpora or generators else "")
        return
    lines = aligned([RUNS_HEADER, *(_run_cells(store, r) for r in runs)],
                    right=frozenset({RUNS_HEADER.index("done/slots")}))
    yield lines[0]
    for r, line in zip(runs, lines[1:]):
        yield line
        if signatures:
            yield f"    {printable(r.signature)}"
            if r.servers:  # recorded, not in the signature: the run is the same at any address (issue 37)
                yield f"    server: {printable(' then '.join(r.servers))}"
