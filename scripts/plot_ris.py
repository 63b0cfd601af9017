#!/usr/bin/env python3
"""Plot a rolling-isolation-system result (HDF5): floor vs platform acceleration, displacement.

Usage: plot_ris.py RESULTS.h5 OUT.png [--g]
Reads the layout of docs/results-format.md and the RIS derived outputs of docs/ris.md
(floor_accel_*, accel_*_total, drift, max_radius). Needs python3-h5py, python3-matplotlib.
The top panels answer the designer's question (how much of the floor acceleration reaches the
isolated platform); the bottom panel shows the price paid in displacement and how close the
balls come to the dish rim.
"""
import argparse
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from gmbd_h5 import column_names, text  # noqa: E402

G = 9.80665  # standard gravity, m/s^2 (the unit "g" of the motion records)


def read(path):
    with h5py.File(path, "r") as f:
        if "outputs" not in f:
            sys.exit("plot_ris.py: %s has no /outputs dataset; is it a RIS run?" % path)
        cols = column_names(f["outputs"], "outputs")
        needed = ["floor_accel_x", "floor_accel_y", "accel_x_total", "accel_y_total", "drift", "max_radius"]
        missing = [c for c in needed if c not in cols]
        if missing:
            sys.exit("plot_ris.py: %s lacks the RIS outputs %s (have %s)" % (path, ", ".join(missing), ", ".join(cols)))
        out = f["outputs"][:]
        data = {c: out[:, cols.index(c)] for c in cols}
        data["time"] = f["time"][:]
        coords = column_names(f["q"], "coordinates")
        q = f["q"][:]
        for c in ("X", "Y", "Z"):
            if c in coords:
                data["coord_" + c] = q[:, coords.index(c)]
        attrs = {k: f.attrs[k] for k in f.attrs}
    return data, attrs


def peak_label(name, series, scale, unit):
    i = int(np.argmax(np.abs(series)))
    return "%s (peak %.3g %s)" % (name, abs(series[i]) / scale, unit)


def acceleration_panel(ax, t, floor, platform, axis, scale, unit):
    ax.plot(t, floor / scale, color="0.6", lw=0.8, label=peak_label("floor " + axis, floor, scale, unit))
    ax.plot(t, platform / scale, color="C0", lw=1.0, label=peak_label("platform " + axis + " (total)", platform, scale, unit))
    ax.set_ylabel("acceleration %s [%s]" % (axis, unit))
    ax.legend(fontsize=8, loc="upper right")
    ax.grid(alpha=0.3)


def displacement_panel(ax, data, radius):
    t = data["time"]
    for c, colour in (("X", "C1"), ("Y", "C2"), ("Z", "C4")):
        key = "coord_" + c
        if key in data and np.any(data[key] != 0):
            ax.plot(t, data[key], color=colour, lw=1.0, label=peak_label(c + " (relative to floor)", data[key], 1.0, "m"))
    ax.plot(t, data["drift"], color="k", lw=1.0, label=peak_label("drift √(X²+Y²)", data["drift"], 1.0, "m"))
    ax.plot(t, data["max_radius"], color="C3", lw=0.8, ls="--", label=peak_label("max ball radius in dish", data["max_radius"], 1.0, "m"))
    if radius is not None:
        ax.axhline(radius, color="C3", lw=0.8, ls=":", label="dish rim R = %.3g m" % radius)
    ax.set_ylabel("displacement [m]")
    ax.legend(fontsize=8, loc="upper right")
    ax.grid(alpha=0.3)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("png")
    ap.add_argument("--g", action="store_true", help="accelerations in g instead of m/s^2")
    a = ap.parse_args()
    data, attrs = read(a.results)
    t = data["time"]
    if len(t) == 0:
        sys.exit("plot_ris.py: %s has no rows" % a.results)
    scale, unit = (G, "g") if a.g else (1.0, "m/s²")
    axes = ["x"]
    if np.any(data["floor_accel_y"] != 0) or np.any(data["accel_y_total"] != 0):
        axes.append("y")
    vertical = "floor_accel_z" in data and np.any(data["floor_accel_z"] != 0)
    panels = len(axes) + (1 if vertical else 0) + 1
    fig, ax = plt.subplots(panels, 1, figsize=(10, 2.8 * panels), sharex=True)
    for k, axis in enumerate(axes):
        acceleration_panel(ax[k], t, data["floor_accel_" + axis], data["accel_%s_total" % axis], axis, scale, unit)
    if vertical:
        acceleration_panel(ax[len(axes)], t, data["floor_accel_z"], data["accel_vertical_total"], "z", scale, unit)
    radius = attrs.get("parameter.R")
    displacement_panel(ax[-1], data, float(radius) if radius is not None else None)
    status = text(attrs.get("status", ""))
    ax[0].set_title("%s — %s, %s + %s (%s)" % (text(attrs.get("run_name", a.results)), text(attrs.get("model", "")),
                                              text(attrs.get("integrator", "")), text(attrs.get("stabilization", "")), status),
                    fontsize=10)
    ax[-1].set_xlabel("time [s]")
    fig.tight_layout()
    fig.savefig(a.png, dpi=110)


if __name__ == "__main__":
    main()
