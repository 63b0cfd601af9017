#!/usr/bin/env python3
"""Plot a `gmbd drift` table: constraint error, energy error, DSC correction and wall time vs dt.

Usage: plot_drift.py DRIFT.csv OUT.png
One line per (integrator, stabilization); failed runs are drawn as crosses at their last value.
Needs python3-matplotlib.
"""
import csv
import math
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def as_float(s):
    try:
        x = float(s)
    except ValueError:
        return math.nan
    return x


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rows = list(csv.DictReader(open(sys.argv[1], newline="")))
    if not rows:
        sys.exit("plot_drift.py: %s has no rows" % sys.argv[1])
    series = defaultdict(list)
    for r in rows:
        series[(r["integrator"], r["stabilization"])].append(r)
    panels = [
        ("max_position_residual", "max |g|"),
        ("max_velocity_residual", "max |g'|, |h|"),
        ("max_energy_error", "max |E - E(0)| [J]"),
        ("max_correction", "max DSC correction"),
        ("wall_seconds", "wall time [s]"),
    ]
    fig, axes = plt.subplots(1, len(panels), figsize=(4.2 * len(panels), 4))
    floor = 1e-18
    for (method, stab), rs in sorted(series.items()):
        rs.sort(key=lambda r: as_float(r["dt"]))
        dts = [as_float(r["dt"]) for r in rs]
        style = "-o" if method == "rk4" else "--s"
        for ax, (key, label) in zip(axes, panels):
            ys = [max(as_float(r[key]), floor) for r in rs]
            ok = [r["status"] == "ok" for r in rs]
            if all(math.isnan(y) for y in ys):
                continue
            line, = ax.loglog(dts, ys, style, ms=4, lw=1, label="%s %s" % (method, stab))
            bad = [(d, y) for d, y, o in zip(dts, ys, ok) if not o]
            if bad:
                ax.loglog([b[0] for b in bad], [b[1] for b in bad], "x", ms=9, color=line.get_color())
            ax.set_xlabel("dt [s]")
            ax.set_title(label)
    axes[0].legend(fontsize=7)
    fig.suptitle("constraint drift vs time step (%s)" % sys.argv[1])
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
