"""Differences between gmbd result files on the same output grid: coordinates and output peaks.

Usage: /usr/bin/python3 scripts/compare_runs.py REFERENCE.h5 RUN.h5 [RUN.h5 ...]

For every RUN: the largest |q − q_ref| over all rows of each named coordinate (default X, Y,
theta; --coordinates X,Y) relative to max |q_ref|, and the relative difference of the peak
(max |value|) of every derived output. Used for the accuracy figures of docs/integrators.md.
"""
import argparse
import sys

import h5py
import numpy as np

from gmbd_h5 import column_names


def load(path):
    with h5py.File(path, "r") as f:
        q = np.asarray(f["q"])
        names = column_names(f["q"], "coordinates")
        time = np.asarray(f["time"])
        outputs, output_names = None, []
        if "outputs" in f:
            outputs = np.asarray(f["outputs"])
            output_names = column_names(f["outputs"], "outputs")
    return time, names, q, output_names, outputs


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("reference")
    parser.add_argument("runs", nargs="+")
    parser.add_argument("--coordinates", default="X,Y,theta")
    args = parser.parse_args()
    t_ref, names, q_ref, out_names, out_ref = load(args.reference)
    wanted = [c for c in args.coordinates.split(",") if c in names]
    for path in args.runs:
        t, names_run, q, _, out = load(path)
        if len(t) != len(t_ref) or np.max(np.abs(t - t_ref)) > 1e-12:
            sys.exit("%s: output times differ from the reference's" % path)
        print(path)
        for c in wanted:
            i, j = names.index(c), names_run.index(c)
            scale = np.max(np.abs(q_ref[:, i]))
            err = np.max(np.abs(q[:, j] - q_ref[:, i]))
            if scale == 0.0:
                continue
            print("  %-8s max|Δ| = %.3e (relative to max|ref| = %.3e: %.2e)"
                  % (c, err, scale, err / scale if scale > 0 else float("nan")))
        if out_ref is not None and out is not None:
            largest = np.max(np.abs(out_ref)) if out_ref.size else 0.0
            for k, name in enumerate(out_names):
                peak_ref = np.max(np.abs(out_ref[:, k]))
                peak = np.max(np.abs(out[:, k]))
                if peak_ref > 1e-12 * largest:  # outputs that are zero up to round-off: skipped
                    print("  peak %-22s %.10g (reference %.10g, relative difference %.2e)"
                          % (name, peak, peak_ref, abs(peak - peak_ref) / peak_ref))


if __name__ == "__main__":
    main()
