"""The privacy–utility figure: utility (TPS, word similarity by default) against TRIR, per corpus.

The utility axes are the measures privacy_utility_points was given (a panel each, read from the
points' `front_<measure>` columns): `workbench report --utility morph_all` puts morphological
agreement (workbench/metrics/agreement.py) there instead; `utility_axes` checks the names.

One row of panels per corpus, one point per run in its generator's colour (reports.palette),
the Pareto front (reports.privacy.pareto_front) ringed in black and joined by a step line.
Points are numbered; the key beside each row names the runs, and runs at (nearly) the same
place share one number label ("1,2"). Each point is a cross (issue 40): a horizontal whisker
over TRIR's 95 % interval, a vertical one over the utility measure's, where the tables have them
(`<measure>_low` / `_high`); two runs whose crosses overlap on an axis are not told apart by it.

Each panel is zoomed to its data: the axis limits are the data's range plus a margin (a tenth
of the range, at least ZOOM_FLOOR), not the measures' whole 0–1 scale, where runs a few points
apart would sit on top of each other. Labels are placed by `place_labels`, a deterministic
greedy search: for each label in turn (highest point first), the first of a ring of positions
around its point whose box overlaps no label placed before it and no point, ring after ring
further out (a thin line then joins label and point). No extra dependency (adjustText would
do the same with random jitter).
"""

from __future__ import annotations

import pandas as pd

# A panel's smallest range: TRIR or utility values that are all (nearly) equal still get a
# readable window around them.
ZOOM_FLOOR = 0.02
# Positions around a point, as (dx, dy) in points and the text's alignment: right-above first
# (where readers look), then the other corners, then the sides.
_AROUND = ((1, 1, "left", "bottom"), (1, -1, "left", "top"), (-1, 1, "right", "bottom"),
           (-1, -1, "right", "top"), (0, 1.4, "center", "bottom"), (0, -1.4, "center", "top"),
           (1.4, 0, "left", "center"), (-1.4, 0, "right", "center"))
RING_PT = 5.0  # the first ring's distance from the point, in points; ring k is k times as far
RINGS = 40
MARKER_PT = 3.6  # half the width of a point's marker (s=40..60 points²), in points: an obstacle for labels


def zoomed(values, floor: float = ZOOM_FLOOR) -> tuple[float, float]:
    """Axis limits around values: their range plus a tenth of it on each side (at least floor/2)."""
    finite = [float(v) for v in values if pd.notna(v)]
    if not finite:
        return 0.0, 1.0
    low, high = min(finite), max(finite)
    margin = max(0.1 * (high - low), floor / 2)
    return low - margin, high + margin


def _overlaps(a, b) -> bool:
    return a.x0 < b.x1 and b.x0 < a.x1 and a.y0 < b.y1 and b.y0 < a.y1


def place_labels(ax, anchors: list[tuple[float, float]], texts: list[str], renderer,
                 obstacles: list | None = None, fontsize: float = 7) -> list:
    """Annotate each anchor (data coordinates) with its text where the text's box overlaps no
    box placed before and no obstacle (display-space Bboxes); returns the annotations."""
    from matplotlib.transforms import Bbox
    placed = list(obstacles or [])
    scale = ax.figure.dpi / 72  # points to pixels
    out = []
    for (x, y), text in zip(anchors, texts):
        label = None
        for ring in range(1, RINGS + 1):
            for dx, dy, ha, va in _AROUND:
                offset = (dx * RING_PT * ring, dy * RING_PT * ring)
                label = ax.annotate(text, (x, y), xytext=offset, textcoords="offset points", ha=ha, va=va,
                                    fontsize=fontsize, annotation_clip=False,
                                    arrowprops={"arrowstyle": "-", "lw": 0.5, "color": "grey",
                                                "shrinkA": 0, "shrinkB": 2} if ring > 2 else None)
                box = label.get_window_extent(renderer)
                box = Bbox.from_extents(box.x0 - scale, box.y0 - scale, box.x1 + scale, box.y1 + scale)
                if not any(_overlaps(box, other) for other in placed):
                    placed.append(box)
                    break
                label.remove()
                label = None
            if label is not None:
                break
        if label is None:  # no free place within RINGS rings: the last one, drawn anyway
            label = ax.annotate(text, (x, y), xytext=(RING_PT * RINGS, RING_PT * RINGS), textcoords="offset points",
                                fontsize=fontsize, annotation_clip=False)
        out.append(label)
    return out


def _marker_boxes(ax, xs, ys) -> list:
    from matplotlib.transforms import Bbox
    r = MARKER_PT * ax.figure.dpi / 72
    pts = ax.transData.transform(list(zip(xs, ys))) if len(xs) else []
    return [Bbox.from_extents(px - r, py - r, px + r, py + r) for px, py in pts]


def utility_axes(names) -> tuple[str, ...]:
    """The utility measures asked for, checked: each a metric whose higher values are better
    (TPS, word similarity, morph_all …); reports.privacy.UTILITY when none is named."""
    from workbench.infra.errors import WorkbenchError
    from workbench.metrics import metric_infos
    from workbench.metrics.base import HIGHER
    from workbench.reports.privacy import UTILITY
    chosen = tuple(dict.fromkeys(names or ()))
    known = {name for name, info in metric_infos().items() if info.better == HIGHER}
    unknown = [n for n in chosen if n not in known]
    if unknown:
        raise WorkbenchError(f"unknown utility measure(s) {', '.join(unknown)} for the privacy–utility figure "
                             "(a metric where higher is better, e.g. tps, similarity_word, morph_all; "
                             "see metric_definitions.csv)")
    return chosen or UTILITY


def utility_title(measure: str) -> str:
    """An axis title: reports.privacy.UTILITY_TITLES where it has one, else the metric's label."""
    from workbench.metrics import metric_infos
    from workbench.reports.privacy import UTILITY_TITLES
    if measure in UTILITY_TITLES:
        return UTILITY_TITLES[measure]
    info = metric_infos().get(measure)
    return f"{info.label if info else measure} {info.arrow if info else ''}".rstrip()


def plotted_utility(points: pd.DataFrame) -> list[str]:
    """The utility measures of the points (privacy_utility_points' `front_<measure>` columns)."""
    return [c[len("front_"):] for c in points.columns if c.startswith("front_")]


def privacy_utility_fig(points: pd.DataFrame, attack_keys: dict | None = None):
    """The figure (see the module's docstring), its labels placed; points: reports.privacy's
    privacy_utility_points."""
    from workbench.reports.figure_style import pyplot
    plt = pyplot()
    utility = plotted_utility(points)  # the axes these points were measured on
    corpora = list(dict.fromkeys(points["corpus"])) or ["(no run with stored TRIR)"]
    # A row is tall enough for its key (one line per run beside the panels), so the key of one
    # corpus never runs into the next row's.
    heights = [max(4.4, 0.17 * (int((points["corpus"] == c).sum()) + 2) + 0.8) for c in corpora]
    fig, axes = plt.subplots(len(corpora), len(utility), figsize=(5.2 * len(utility) + 3.4, sum(heights)),
                             squeeze=False, gridspec_kw={"height_ratios": heights})
    attacker = points["attacker"].iloc[0] if len(points) else "retrieval"
    key = (attack_keys or {}).get(attacker, "")
    generators = points["generator"] if "generator" in points else pd.Series("", index=points.index)
    labels_todo = []  # (ax, anchors, texts, xs, ys): placed once the layout is final
    for row, corpus in zip(axes, corpora):
        mine = points[points["corpus"] == corpus].reset_index(drop=True)
        gens = generators[points["corpus"] == corpus].reset_index(drop=True)
        numbers = {run: n + 1 for n, run in enumerate(mine["run_id"])}
        for ax, u in zip(row, utility):
            labels_todo.append(_panel(ax, mine, gens, numbers, u, corpus, attacker))
        _key(row[-1], mine, gens, numbers)
    fig.suptitle("Privacy against utility, one point per run (Pareto front: no other run has lower TRIR and "
                 f"higher utility){' · ' + key if key else ''}", fontsize=9)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    # Labels last: their places are measured in display space, which the layout fixes.
    renderer = fig.canvas.get_renderer()
    for ax, anchors, texts, xs, ys in labels_todo:
        place_labels(ax, anchors, texts, renderer, obstacles=_marker_boxes(ax, xs, ys))
    return fig


def _panel(ax, mine: pd.DataFrame, gens: pd.Series, numbers: dict, u: str, corpus: str, attacker: str) -> tuple:
    """One corpus's runs at (TRIR, utility u), the front ringed and stepped, zoomed to the runs;
    returns what place_labels needs once the layout is final (ax, anchors, texts, xs, ys)."""
    from workbench.reports.palette import generator_colour
    from workbench.reports.privacy import label_clusters
    data = mine.dropna(subset=["trir", u])
    on_front = data[f"front_{u}"].astype(bool)
    colours = [generator_colour(g) for g in gens[data.index]]
    front = data[on_front].sort_values("trir")
    if len(front) > 1:
        ax.step(front["trir"], front[u], where="post", color="black", linewidth=1.0, zorder=2)
    reach_x, reach_y = _crosses(ax, data, u, colours)
    ax.scatter(data["trir"], data[u], c=colours, s=[60 if f else 40 for f in on_front],
               edgecolors=["black" if f else "white" for f in on_front],
               linewidths=[1.6 if f else 0.6 for f in on_front], zorder=3)
    (x0, x1), (y0, y1) = zoomed([*data["trir"], *reach_x]), zoomed([*data[u], *reach_y])
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    # Runs at (nearly) the same place share one label: 3 % of each zoomed axis.
    xs, ys, ids = data["trir"].tolist(), data[u].tolist(), data["run_id"].tolist()
    nx = [(x - x0) / (x1 - x0) for x in xs]
    ny = [(y - y0) / (y1 - y0) for y in ys]
    groups = label_clusters(nx, ny, 0.0, 1.0)
    ax.set_xlabel(f"TRIR, {attacker} attacker ↓ (share of documents re-identified)", fontsize=8)
    ax.set_ylabel(utility_title(u), fontsize=8)
    ax.set_title(f"{corpus}: {utility_title(u).split(' (')[0].rstrip(' ↑')} against TRIR (zoomed to the runs)",
                 fontsize=9)
    ax.grid(alpha=0.3)
    return (ax, [(xs[g[0]], ys[g[0]]) for g in groups],
            [",".join(str(numbers[ids[i]]) for i in g) for g in groups], xs, ys)


# The gids of a panel's whiskers (tests read them back from the artists).
TRIR_WHISKERS, UTILITY_WHISKERS = "trir_interval", "utility_interval"


def _crosses(ax, data: pd.DataFrame, u: str, colours: list) -> tuple[list[float], list[float]]:
    """Each run's two 95 % intervals as a cross through its point: horizontal from trir_low to
    trir_high, vertical from <u>_low to <u>_high (privacy_utility_points' columns, the tables'
    intervals), in the run's colour, under the points. Drawn from the ends themselves, not as
    ± distances from the point, so an interval that does not hold its point is drawn as it is.
    Returns the ends drawn (x, y), which the zoom keeps in view."""
    from workbench.metrics.intervals import HIGH, LOW

    def ends(measure: str) -> list[tuple[int, float, float]]:
        if measure + LOW not in data or measure + HIGH not in data:
            return []
        return [(i, lo, hi) for i, (lo, hi) in enumerate(zip(data[measure + LOW], data[measure + HIGH]))
                if pd.notna(lo) and pd.notna(hi)]
    across, up = ends("trir"), ends(u)
    xs, ys = data["trir"].tolist(), data[u].tolist()
    style = {"linewidth": 0.9, "alpha": 0.75, "zorder": 2.5}
    if across:
        ax.hlines([ys[i] for i, _, _ in across], [lo for _, lo, _ in across], [hi for _, _, hi in across],
                  colors=[colours[i] for i, _, _ in across], gid=TRIR_WHISKERS, **style)
    if up:
        ax.vlines([xs[i] for i, _, _ in up], [lo for _, lo, _ in up], [hi for _, _, hi in up],
                  colors=[colours[i] for i, _, _ in up], gid=UTILITY_WHISKERS, **style)
    return ([e for _, lo, hi in across for e in (lo, hi)], [e for _, lo, hi in up for e in (lo, hi)])


def _key(ax, mine: pd.DataFrame, gens: pd.Series, numbers: dict) -> None:
    """The key beside a corpus's row: the front's marker, the generators' colours, the runs' numbers."""
    from matplotlib.lines import Line2D

    from workbench.reports.palette import generator_colour
    handles = [Line2D([], [], marker="o", linestyle="-", color="black", markerfacecolor="white",
                      markeredgewidth=1.6, label="Pareto front (ringed)")]
    handles += [Line2D([], [], marker="o", linestyle="", markerfacecolor=generator_colour(g),
                       markeredgecolor="white", label=f"generator: {g}") for g in dict.fromkeys(gens)]
    if any(c.endswith("_low") and mine[c].notna().any() for c in mine.columns):
        handles.append(Line2D([], [], color="grey", linewidth=0.9, label="whiskers: 95 % intervals"))
    handles += [Line2D([], [], linestyle="", label=f"{numbers[r]}  {lab}")
                for r, lab in zip(mine["run_id"], mine["label"])]
    ax.legend(handles=handles, fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), frameon=False)
