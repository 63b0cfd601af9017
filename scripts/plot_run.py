#!/usr/bin/env python3
"""Plot a gmbd result file (HDF5): coordinates, constraint residuals, DSC corrections, energy.

Usage: plot_run.py RESULTS.h5 OUT.png [--coordinates x1,y1,...]
Reads the layout documented in docs/results-format.md. Needs python3-h5py, python3-matplotlib.
"""
import argparse
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from gmbd_h5 import column_names, root_attr, text  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("png")
    ap.add_argument("--coordinates", default="", help="comma-separated subset to plot (default: up to 8)")
    a = ap.parse_args()
    with h5py.File(a.results, "r") as f:
        t = f["time"][:]
        q = f["q"][:]
        coords = column_names(f["q"], "coordinates")
        res_p = f["residual/position"][:]
        res_v = f["residual/velocity"][:]
        corr = f["correction"][:]
        energy = f["energy"][:] if "energy" in f else None
        model = text(root_attr(f, "model", ""))
        status = text(root_attr(f, "status", ""))
    if len(t) == 0:
        sys.exit("plot_run.py: %s has no rows" % a.results)
    wanted = [c for c in a.coordinates.split(",") if c] or coords[:8]
    panels = 3 if energy is not None else 2
    fig, ax = plt.subplots(panels, 1, figsize=(10, 3.2 * panels), sharex=True)
    for c in wanted:
        if c not in coords:
            sys.exit("plot_run.py: no coordinate %r; have %s" % (c, ", ".join(coords)))
        ax[0].plot(t, q[:, coords.index(c)], label=c, lw=1)
    ax[0].set_ylabel("coordinates")
    ax[0].legend(ncol=4, fontsize=8)
    ax[0].set_title("%s — %s (%s)" % (a.results, model, status))
    floor = 1e-18
    ax[1].semilogy(t, np.maximum(np.abs(res_p), floor), label="max |g| (position)", lw=1)
    ax[1].semilogy(t, np.maximum(np.abs(res_v), floor), label="max |g'|, |h| (velocity)", lw=1)
    ax[1].semilogy(t, np.maximum(np.abs(corr), floor), label="DSC correction", lw=1)
    ax[1].set_ylabel("constraint error")
    ax[1].legend(fontsize=8)
    if energy is not None:
        ax[2].plot(t, energy - energy[0], lw=1)
        ax[2].set_ylabel("E - E(0) [J]")
    ax[-1].set_xlabel("time [s]")
    fig.tight_layout()
    fig.savefig(a.png, dpi=110)


if __name__ == "__main__":
    main()
