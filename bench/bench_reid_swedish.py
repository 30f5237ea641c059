"""The re-identification attackers on Swedish with a background the user brings (issue 39 item 6).

    python bench/bench_reid_swedish.py                                   # retrieval attackers (seconds)
    python bench/bench_reid_swedish.py --trained-base PATH               # and the trained attacker on PATH
    python bench/bench_reid_swedish.py --trained-base .cache/mlm/offline-sv-<hash>   # the offline Swedish MLM

Nothing ships a Swedish background, so this makes one as tests/privacy/reid_attacks/test_reid_swedish.py does:
each PGV-PII SV article's first half (up to the first sentence end after its middle) is the
document to protect, with its annotated spans, and the rest of the article is the public text
about its individual in the background file (10 individuals). Three runs written into a fresh
store: original (spans kept), suppress (removed) and label ([LABEL]); each attacker attacks all
three through workbench.privacy.reid_attacks.reid.reid_risk, as `workbench privacy reid RUN... --background
FILE` does; then the privacy table's headline (reports.privacy.privacy_measures). Prints TRIR (mean
rank) per run and attacker, the seconds of each attacker's call, and the headline.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trained-base", help="a local model folder for the trained attacker (-o base_model=)")
    args = parser.parse_args()
    from tests.privacy.reid_helpers import article_halves, write_run
    from workbench.loaders import shipped_corpus
    from workbench.privacy.reid_attacks.reid import reid_risk
    from workbench.reports.privacy import HEADLINE, headline_text, privacy_measures
    from workbench.store import RunStore
    corpus, rest = article_halves(shipped_corpus("pgv-pii-sv"))
    folder = Path(tempfile.mkdtemp(prefix="bench-reid-sv-"))
    background = folder / "pgv_sv_rest.json"
    background.write_text(json.dumps(rest, ensure_ascii=False), encoding="utf-8")
    with RunStore(folder / "runs.sqlite") as store:
        runs = {"original": write_run(store, corpus, "original", lambda s: s.text),
                "suppress": write_run(store, corpus, "suppress", lambda s: ""),
                "label": write_run(store, corpus, "label", lambda s: f"[{s.label}]")}
        attackers: list[tuple[str, dict]] = [("retrieval", {}), ("retrieval-ids", {})]
        if args.trained_base:
            attackers.append(("trained", {"base_model": args.trained_base}))
        for attacker, config in attackers:
            start = time.perf_counter()
            frame = reid_risk(store, list(runs.values()), attacker=attacker, background=background, config=config)
            seconds = time.perf_counter() - start
            rows = frame.set_index("run_id")
            cells = " | ".join(f"{name} {rows.at[r, 'trir']:.3f} ({rows.at[r, 'mean_rank']:.2f})"
                               for name, r in runs.items())
            print(f"{attacker}: {cells} | {seconds:.1f} s")
        measures = privacy_measures(store, list(runs.values()))
        print(f"headline ({headline_text(measures)}): "
              + " | ".join(f"{name} {measures.at[r, HEADLINE]:.3f}" for name, r in runs.items()))


if __name__ == "__main__":
    main()
