#!/usr/bin/env python3
"""Plot a `gmbd drift` table like the RIS thesis' Fig. 5.10/5.11: constraint error, energy error,
DSC correction and run time vs dt, and accuracy vs run time (cost at equal accuracy); for
convergence tables also the error against the reference vs dt and vs tolerance.

Usage: plot_drift.py DRIFT.csv OUT.png
One line per integrator x stabilization: colour = stabilization, line style and marker =
integrator. With several initial conditions per cell (columns initial_conditions, failed) each
value is the maximum over them and the run time the mean per run. A cell in which a run failed
(e.g. Baumgarte losing the constraint manifold) is drawn as a cross at the top of the panel,
annotated with the number of failed runs, rather than with the values it reached. Tables of
older gmbd versions (one run per cell, no initial_conditions column) plot the same way.

Convergence tables (`gmbd drift --reference F --compare LIST`, column `error`): a panel of the
error vs dt (log-log, with dashed reference slopes 1, 2 and 4). Tolerance studies (`--tolerance`,
column `tolerance`): the cells of adaptive methods with a tolerance are drawn against the
tolerance (max|g|, max|E - E(0)|, the error with a dashed slope-1 line, run time; one line per
integrator x stabilization x dt), the other cells against dt as before. Tables without these
columns plot as before. Needs python3-matplotlib.
"""
import csv
import math
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402

COLOURS = {"none": "tab:red", "baumgarte": "tab:orange", "dsc": "tab:blue", "dsc+baumgarte": "tab:green"}
STYLES = ["-o", "--s", ":^", "-.D", "-v", "--P"]
# (column, title): the first five against dt, the last two against the mean run time.
PANELS = [
    ("max_position_residual", "max |g| (holonomic, position)"),
    ("max_velocity_residual", "max |g'|, |h| (velocity)"),
    ("max_energy_error", "max |E - E(0)| [J]"),
    ("max_correction", "max DSC correction"),
    ("wall_seconds", "run time [s]"),
]
COST_PANELS = [
    ("max_position_residual", "max |g| vs run time"),
    ("max_energy_error", "max |E - E(0)| [J] vs run time"),
]


def as_float(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return math.nan


def ok(r):
    return r["status"] == "ok"


def finite(x):
    return not (math.isnan(x) or math.isinf(x))


def draw_series(ax, series, style_of, key, xkey, top):
    """One line per series key ((integrator, stabilization[, dt])); failed cells as crosses at
    `top` (for the dt and tolerance axes)."""
    drawn = False
    for skey, rs in sorted(series.items()):
        method, stab = skey[0], skey[1]
        rs = sorted(rs, key=lambda r: as_float(r[xkey]))
        colour = COLOURS.get(stab, "black")
        good = [(as_float(r[xkey]), as_float(r[key])) for r in rs
                if ok(r) and as_float(r[key]) > 0 and finite(as_float(r[key])) and finite(as_float(r[xkey]))]
        if good:
            # DSC and DSC+Baumgarte often coincide exactly: draw plain DSC wide underneath.
            wide = stab == "dsc"
            ax.loglog([g[0] for g in good], [g[1] for g in good], style_of[method], color=colour,
                      ms=7 if wide else 4, lw=4 if wide else 1, alpha=0.45 if wide else 1.0,
                      zorder=1 if wide else 2)
            drawn = True
        if xkey not in ("dt", "tolerance"):
            continue
        # stack the crosses of different stabilizations so that none hides another
        order = list(COLOURS).index(stab) if stab in COLOURS else len(COLOURS)
        ftop = top * 4.0 ** order
        for r in rs:
            x = as_float(r[xkey])
            if ok(r) or not finite(x):
                continue
            ax.loglog([x], [ftop], "x", color=colour, ms=10, mew=2)
            if r.get("failed") and r.get("initial_conditions") and r["initial_conditions"] != "1":
                ax.annotate("%s/%s" % (r["failed"], r["initial_conditions"]), (x, ftop),
                            textcoords="offset points", xytext=(4, -12), fontsize=7, color=colour)
            drawn = True
    return drawn


def slope_guides(ax, rows, key, xkey, slopes):
    """Dashed reference slopes through the first point (largest x) of the data on the panel."""
    pts = [(as_float(r[xkey]), as_float(r[key])) for r in rows
           if ok(r) and as_float(r[key]) > 0 and finite(as_float(r[key])) and finite(as_float(r[xkey]))]
    if len(pts) < 2:
        return
    xs = sorted({x for x, _ in pts})
    if len(xs) < 2:
        return
    x0 = xs[-1]
    y0 = max(y for x, y in pts if x == x0)
    for p, style in zip(slopes, ["--", "-.", ":"]):
        ax.loglog([xs[0], x0], [y0 * (xs[0] / x0) ** p, y0], style, color="grey", lw=1, zorder=0)
        ax.annotate("slope %g" % p, (xs[0], y0 * (xs[0] / x0) ** p), fontsize=7, color="grey",
                    textcoords="offset points", xytext=(2, 2))


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rows = list(csv.DictReader(open(sys.argv[1], newline="")))
    if not rows:
        sys.exit("plot_drift.py: %s has no rows" % sys.argv[1])
    # Tolerance cells (adaptive methods run at --tolerance values) go on tolerance axes; every
    # other cell (all of them in tables without the column) on dt axes.
    tol_rows = [r for r in rows if finite(as_float(r.get("tolerance")))]
    dt_rows = [r for r in rows if not finite(as_float(r.get("tolerance")))]
    has_error = any(ok(r) and as_float(r.get("error")) > 0 and finite(as_float(r.get("error"))) for r in rows)
    series, tol_series, all_series = defaultdict(list), defaultdict(list), {}
    for r in dt_rows:
        series[(r["integrator"], r["stabilization"])].append(r)
    dts_per_pair = defaultdict(set)
    for r in tol_rows:
        dts_per_pair[(r["integrator"], r["stabilization"])].add(r["dt"])
    for r in tol_rows:
        tol_series[(r["integrator"], r["stabilization"], r["dt"])].append(r)
    all_series.update(series)
    all_series.update(tol_series)  # cost panels: the same lines, against the run time
    methods = sorted({r["integrator"] for r in rows})
    style_of = {m: STYLES[i % len(STYLES)] for i, m in enumerate(methods)}

    # (rows, series, column, title, x column, reference slopes)
    panels = []
    if dt_rows:
        panels += [(dt_rows, series, key, label, "dt", None) for key, label in PANELS]
        if has_error:
            panels.append((dt_rows, series, "error", "error vs reference (max over compared rows)", "dt", (1, 2, 4)))
    if tol_rows:
        panels += [(tol_rows, tol_series, "max_position_residual", "max |g| vs tolerance", "tolerance", None),
                   (tol_rows, tol_series, "max_energy_error", "max |E - E(0)| [J] vs tolerance", "tolerance", None)]
        if has_error:
            panels.append((tol_rows, tol_series, "error", "error vs reference vs tolerance", "tolerance", (1,)))
        panels.append((tol_rows, tol_series, "wall_seconds", "run time [s] vs tolerance", "tolerance", None))
    cost = list(COST_PANELS)
    if has_error:
        cost.append(("error", "error vs reference vs run time"))
    n_axes = len(panels) + len(cost) + 1
    ncols = 4
    nrows = (n_axes + ncols - 1) // ncols
    fig, grid = plt.subplots(nrows, ncols, figsize=(20, 4.25 * nrows), squeeze=False)
    axes = grid.flatten()
    for ax, (prows, pseries, key, label, xkey, slopes) in zip(axes, panels):
        ok_values = [as_float(r[key]) for r in prows if ok(r) and as_float(r.get(key)) > 0 and finite(as_float(r[key]))]
        top = max(ok_values) * 10 if ok_values else 1.0
        if not draw_series(ax, pseries, style_of, key, xkey, top):
            ax.text(0.5, 0.5, "not applicable\n(zero or undefined)", ha="center", va="center",
                    transform=ax.transAxes, color="grey")
        elif slopes:
            slope_guides(ax, prows, key, xkey, slopes)
        ax.set_title(label)
        ax.set_xlabel("dt [s] (adaptive methods: max step)" if xkey == "dt" else "tolerance (rtol = atol)")
        ax.grid(True, which="major", alpha=0.3)
    for ax, (key, label) in zip(axes[len(panels):], cost):
        if not draw_series(ax, all_series, style_of, key, "wall_seconds", 1.0):
            ax.text(0.5, 0.5, "not applicable", ha="center", va="center", transform=ax.transAxes,
                    color="grey")
        ax.set_title(label)
        ax.set_xlabel("run time per run [s]")
        ax.grid(True, which="major", alpha=0.3)
    for ax in axes[len(panels) + len(cost):]:
        ax.axis("off")
    legend = axes[len(panels) + len(cost)]
    stabs = [s for s in COLOURS if any(r["stabilization"] == s for r in rows)] or list(COLOURS)
    handles = [Line2D([], [], color=COLOURS[s], lw=2, label=s) for s in stabs]
    handles += [Line2D([], [], color="black", linestyle=style_of[m][:-1] or "-",
                       marker=style_of[m][-1], label=m) for m in methods]
    handles.append(Line2D([], [], color="black", marker="x", linestyle="", ms=10, mew=2,
                          label="failed runs (drawn at panel top)"))
    if any(len(d) > 1 for d in dts_per_pair.values()):
        handles.append(Line2D([], [], color="none", label="vs tolerance: one line per max step dt"))
    legend.legend(handles=handles, loc="center", fontsize=11, title="stabilization / integrator")
    n = rows[0].get("initial_conditions") or "1"
    what = "max over %s initial conditions, run time = mean per run" % n if n != "1" else "one run per cell"
    title = "Constraint drift vs time step" if not tol_rows else "Constraint drift vs time step and tolerance"
    if has_error:
        title += ", error vs reference"
    fig.suptitle("%s — %s (%s)" % (title, sys.argv[1], what))
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.04 / nrows))
    fig.savefig(sys.argv[2], dpi=100)


if __name__ == "__main__":
    main()
