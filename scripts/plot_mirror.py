#!/usr/bin/env python3
"""Plot a laser-deflecting mirror result (gmbd HDF5): tilt angles, h displacements, coil
currents / applied inputs, and the constraint residual vs time.

Usage: plot_mirror.py RESULTS.h5 OUT.png      (the arguments of plot_run.py)
Reads the layout of docs/results-format.md (mirror_dae and mirror_stiff runs). Needs
python3-h5py, python3-matplotlib.
"""
import argparse
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from gmbd_h5 import column_names, root_attr as attr  # noqa: E402


def step_inputs(f):
    """The actuator steps from the recorded parameters: (label, unit, values, step time)."""
    for key, label, unit in (("voltage_step", "coil voltage", "V"), ("current_step", "coil current", "mA")):
        values = [attr(f, "parameter.%s[%d]" % (key, i)) for i in range(3)]
        if all(v is not None for v in values):
            scale = 1e3 if unit == "mA" else 1.0
            return label, unit, [float(v) * scale for v in values], float(attr(f, "parameter.step_time", 0.0))
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results")
    ap.add_argument("png")
    a = ap.parse_args()
    with h5py.File(a.results, "r") as f:
        t = f["time"][:]
        q = f["q"][:]
        coords = column_names(f["q"], "coordinates")
        res_p = f["residual/position"][:]
        res_v = f["residual/velocity"][:]
        z = f["z"][:] if "z" in f else None
        states = column_names(f["z"], "states") if z is not None else []
        model = attr(f, "model", "")
        status = attr(f, "status", "")
        integrator = attr(f, "integrator", "")
        inputs = step_inputs(f)
    if len(t) == 0:
        sys.exit("plot_mirror.py: %s has no rows" % a.results)
    for c in ("psi", "theta", "phi"):
        if c not in coords:
            sys.exit("plot_mirror.py: %s is not a mirror result (no coordinate %r; have %s)"
                     % (a.results, c, ", ".join(coords)))

    fig, ax = plt.subplots(4, 1, figsize=(8, 9), sharex=True)
    for c in ("psi", "theta", "phi"):
        ax[0].plot(t, 1e3 * q[:, coords.index(c)], label=c, lw=1)
    ax[0].set_ylabel("tilt (mrad)")
    ax[0].legend(ncol=3, fontsize=8)
    ax[0].set_title("%s — %s, %s (%s)" % (a.results.split("/")[-1], model, integrator, status), fontsize=9)

    h_cols = [c for c in coords if c.startswith("h")]
    for c in h_cols:
        ax[1].plot(t, 1e6 * q[:, coords.index(c)], label=c, lw=1)
    ax[1].set_ylabel("h (µm)")
    if h_cols:
        ax[1].legend(ncol=3, fontsize=8)
    else:  # the stiff-spring ODE has no h coordinates
        ax[1].text(0.5, 0.5, "no h coordinates in this model", ha="center", transform=ax[1].transAxes)

    if z is not None and any(s.startswith("I") for s in states):
        for k, s in enumerate(states):
            ax[2].plot(t, 1e3 * z[:, k], label=s, lw=1)
        ax[2].set_ylabel("coil current (mA)")
        ax[2].legend(ncol=3, fontsize=8)
        if inputs is not None:
            ax[2].set_title("applied %s step: %s %s at t = %g s" % (
                inputs[0], ", ".join("%g" % v for v in inputs[2]), inputs[1], inputs[3]), fontsize=8)
    elif inputs is not None:
        label, unit, values, t_step = inputs
        for k, v in enumerate(values):
            ax[2].step([t[0], t_step, t[-1]], [0.0, v, v], where="post", label="actuator %d" % (k + 1), lw=1)
        ax[2].set_ylabel("%s (%s)" % (label, unit))
        ax[2].legend(ncol=3, fontsize=8)
    else:
        ax[2].text(0.5, 0.5, "no coil states or step inputs recorded", ha="center", transform=ax[2].transAxes)

    floor = 1e-20
    ax[3].semilogy(t, np.maximum(np.abs(res_p), floor), label="max |g| (position)", lw=1)
    ax[3].semilogy(t, np.maximum(np.abs(res_v), floor), label="max |g'| (velocity)", lw=1)
    ax[3].set_ylabel("constraint residual")
    ax[3].set_xlabel("t (s)")
    ax[3].legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(a.png, dpi=80)
    print("plot_mirror.py: wrote %s (max |g| = %.3g)" % (a.png, float(np.max(np.abs(res_p)))))


if __name__ == "__main__":
    main()
