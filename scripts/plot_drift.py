#!/usr/bin/env python3
"""Plot a `gmbd drift` table: constraint error, energy error, DSC correction and wall time vs dt.

Usage: plot_drift.py DRIFT.csv OUT.png
Colour = stabilization, line style and marker = integrator. A run that failed part-way (e.g.
Baumgarte losing the constraint manifold) is drawn as a cross at the top of the panel rather
than with the values it reached when it blew up. Needs python3-matplotlib.
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
PANELS = [
    ("max_position_residual", "max |g| (position)"),
    ("max_velocity_residual", "max |g'|, |h| (velocity)"),
    ("max_energy_error", "max |E - E(0)| [J]"),
    ("max_correction", "max DSC correction"),
    ("wall_seconds", "wall time [s]"),
]


def as_float(s):
    try:
        return float(s)
    except ValueError:
        return math.nan


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

    fig, grid = plt.subplots(2, 3, figsize=(15, 8.5))
    axes = grid.flatten()
    for ax, (key, label) in zip(axes, PANELS):
        ok_values = [as_float(r[key]) for r in rows if r["status"] == "ok" and as_float(r[key]) > 0]
        top = max(ok_values) * 10 if ok_values else 1.0
        drawn = False
        for (method, stab), rs in sorted(series.items()):
            rs.sort(key=lambda r: as_float(r["dt"]))
            colour = COLOURS.get(stab, "black")
            good = [(as_float(r["dt"]), as_float(r[key])) for r in rs
                    if r["status"] == "ok" and as_float(r[key]) > 0]
            if good:
                # DSC and DSC+Baumgarte often coincide exactly: draw plain DSC wide underneath.
                wide = stab == "dsc"
                ax.loglog([g[0] for g in good], [g[1] for g in good], style_of[method],
                          color=colour, ms=7 if wide else 4, lw=4 if wide else 1,
                          alpha=0.45 if wide else 1.0, zorder=1 if wide else 2)
                drawn = True
            failed = [as_float(r["dt"]) for r in rs if r["status"] != "ok"]
            if failed:
                ax.loglog(failed, [top] * len(failed), "x", color=colour, ms=10, mew=2)
                drawn = True
        ax.set_title(label)
        ax.set_xlabel("dt [s]")
        ax.grid(True, which="major", alpha=0.3)
        if not drawn:
            ax.text(0.5, 0.5, "not applicable\n(zero or undefined)", ha="center", va="center",
                    transform=ax.transAxes, color="grey")
    legend = axes[-1]
    legend.axis("off")
    handles = [Line2D([], [], color=c, lw=2, label=s) for s, c in COLOURS.items()]
    handles += [Line2D([], [], color="black", linestyle=style_of[m][:-1] or "-",
                       marker=style_of[m][-1], label=m) for m in methods]
    handles.append(Line2D([], [], color="black", marker="x", linestyle="", ms=10, mew=2,
                          label="run failed (drawn at panel top)"))
    legend.legend(handles=handles, loc="center", fontsize=11, title="stabilization / integrator")
    fig.suptitle("Constraint drift vs time step — %s" % sys.argv[1])
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=100)


if __name__ == "__main__":
    main()
