#!/usr/bin/env python3
"""Plot a `gmbd drift` table like the RIS thesis' Fig. 5.10/5.11: constraint error, energy error,
DSC correction and run time vs dt, and accuracy vs run time (cost at equal accuracy).

Usage: plot_drift.py DRIFT.csv OUT.png
One line per integrator x stabilization: colour = stabilization, line style and marker =
integrator. With several initial conditions per cell (columns initial_conditions, failed) each
value is the maximum over them and the run time the mean per run. A cell in which a run failed
(e.g. Baumgarte losing the constraint manifold) is drawn as a cross at the top of the panel,
annotated with the number of failed runs, rather than with the values it reached. Tables of
older gmbd versions (one run per cell, no initial_conditions column) plot the same way.
Needs python3-matplotlib.
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


def draw_series(ax, series, style_of, key, xkey, top):
    """One line per (integrator, stabilization); failed cells as crosses at `top`."""
    drawn = False
    for (method, stab), rs in sorted(series.items()):
        rs = sorted(rs, key=lambda r: as_float(r[xkey]))
        colour = COLOURS.get(stab, "black")
        good = [(as_float(r[xkey]), as_float(r[key])) for r in rs if ok(r) and as_float(r[key]) > 0]
        if good:
            # DSC and DSC+Baumgarte often coincide exactly: draw plain DSC wide underneath.
            wide = stab == "dsc"
            ax.loglog([g[0] for g in good], [g[1] for g in good], style_of[method], color=colour,
                      ms=7 if wide else 4, lw=4 if wide else 1, alpha=0.45 if wide else 1.0,
                      zorder=1 if wide else 2)
            drawn = True
        if xkey != "dt":
            continue
        # stack the crosses of different stabilizations so that none hides another
        order = list(COLOURS).index(stab) if stab in COLOURS else len(COLOURS)
        ftop = top * 4.0 ** order
        for r in rs:
            if ok(r):
                continue
            ax.loglog([as_float(r["dt"])], [ftop], "x", color=colour, ms=10, mew=2)
            if r.get("failed") and r.get("initial_conditions") and r["initial_conditions"] != "1":
                ax.annotate("%s/%s" % (r["failed"], r["initial_conditions"]), (as_float(r["dt"]), ftop),
                            textcoords="offset points", xytext=(4, -12), fontsize=7, color=colour)
            drawn = True
    return drawn


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rows = list(csv.DictReader(open(sys.argv[1], newline="")))
    if not rows:
        sys.exit("plot_drift.py: %s has no rows" % sys.argv[1])
    series = defaultdict(list)
    for r in rows:
        series[(r["integrator"], r["stabilization"])].append(r)
    methods = sorted({m for m, _ in series})
    style_of = {m: STYLES[i % len(STYLES)] for i, m in enumerate(methods)}

    fig, grid = plt.subplots(2, 4, figsize=(20, 8.5))
    axes = grid.flatten()
    for ax, (key, label) in zip(axes, PANELS):
        ok_values = [as_float(r[key]) for r in rows if ok(r) and as_float(r[key]) > 0]
        top = max(ok_values) * 10 if ok_values else 1.0
        if not draw_series(ax, series, style_of, key, "dt", top):
            ax.text(0.5, 0.5, "not applicable\n(zero or undefined)", ha="center", va="center",
                    transform=ax.transAxes, color="grey")
        ax.set_title(label)
        ax.set_xlabel("dt [s] (adaptive methods: max step)")
        ax.grid(True, which="major", alpha=0.3)
    for ax, (key, label) in zip(axes[len(PANELS):], COST_PANELS):
        if not draw_series(ax, series, style_of, key, "wall_seconds", 1.0):
            ax.text(0.5, 0.5, "not applicable", ha="center", va="center", transform=ax.transAxes,
                    color="grey")
        ax.set_title(label)
        ax.set_xlabel("run time per run [s]")
        ax.grid(True, which="major", alpha=0.3)
    legend = axes[-1]
    legend.axis("off")
    stabs = [s for s in COLOURS if any(k[1] == s for k in series)] or list(COLOURS)
    handles = [Line2D([], [], color=COLOURS[s], lw=2, label=s) for s in stabs]
    handles += [Line2D([], [], color="black", linestyle=style_of[m][:-1] or "-",
                       marker=style_of[m][-1], label=m) for m in methods]
    handles.append(Line2D([], [], color="black", marker="x", linestyle="", ms=10, mew=2,
                          label="failed runs (drawn at panel top)"))
    legend.legend(handles=handles, loc="center", fontsize=11, title="stabilization / integrator")
    n = rows[0].get("initial_conditions") or "1"
    what = "max over %s initial conditions, run time = mean per run" % n if n != "1" else "one run per cell"
    fig.suptitle("Constraint drift vs time step — %s (%s)" % (sys.argv[1], what))
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=100)


if __name__ == "__main__":
    main()
