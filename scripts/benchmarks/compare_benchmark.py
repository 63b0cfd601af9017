#!/usr/bin/env python3
"""Compares a gmbd result file (HDF5) of a benchmark run with its reference CSV
(examples/benchmarks/reference/, written by scripts/benchmarks/ref_*.py) and prints the largest
error of the benchmark's reference quantity, the published thresholds where the library gives
them, and the energy drift.

Usage:
  compare_benchmark.py a01 RESULTS.h5              simple pendulum: P1 (x, y)
  compare_benchmark.py a02 RESULTS.h5 --n 40       N four-bar: B0 (x, y) and its velocity
  compare_benchmark.py a03 RESULTS.h5              Andrews: the 7 angles, point F; t = 0.03 s values
  compare_benchmark.py a04 RESULTS.h5              Bricard: P3 (x, y, z)
  compare_benchmark.py a05 RESULTS.h5              flyball governor: slider height s
  compare_benchmark.py parallelogram RESULTS.h5    redundant parallelogram: crank0 angle, B0
  compare_benchmark.py torque_free RESULTS.h5      torque-free body: rotation matrix, energy, L

Rows are matched by time (the result rows must include the reference times; other rows are
ignored). The benchmark library's accuracy measure (A01, A02) is the largest absolute error of
the reference quantity over the output steps; 'low precision' passes below 1e-1, 'high
precision' below 1e-3 (threshold 1e-3).
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import read_csv  # noqa: E402

try:
    import h5py
except ImportError:  # pragma: no cover
    sys.exit("compare_benchmark.py needs python3-h5py")


def load_h5(path):
    with h5py.File(path, "r") as f:
        names = [n.decode() if isinstance(n, bytes) else str(n) for n in f["q"].attrs["coordinates"]]
        out = {"t": f["time"][:], "q": f["q"][:], "v": f["v"][:], "names": names,
               "energy": f["energy"][:] if "energy" in f else None,
               "status": f.attrs.get("status", b"?")}
    if isinstance(out["status"], bytes):
        out["status"] = out["status"].decode()
    return out


def col(res, name, kind="q"):
    return res[kind][:, res["names"].index(name)]


def match(res, t_ref):
    """Indices of result rows at the reference times (within 1e-9 s); reference rows without a
    result row are dropped."""
    idx_res, idx_ref = [], []
    j = 0
    for i, t in enumerate(t_ref):
        while j < len(res["t"]) and res["t"][j] < t - 1e-9:
            j += 1
        if j < len(res["t"]) and abs(res["t"][j] - t) <= 1e-9:
            idx_res.append(j)
            idx_ref.append(i)
    if not idx_res:
        sys.exit("no result row at a reference time")
    return np.array(idx_res), np.array(idx_ref)


def rot2(theta):
    return np.array([[np.cos(theta), -np.sin(theta)], [np.sin(theta), np.cos(theta)]])


def euler_r(a, conv):
    """Rotation matrices (n, 3, 3) of zyx (yaw, pitch, roll) or xyz (rx, ry, rz) angles (n, 3)."""
    def rx(t):
        c, s = np.cos(t), np.sin(t)
        return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])

    def ry(t):
        c, s = np.cos(t), np.sin(t)
        return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])

    def rz(t):
        c, s = np.cos(t), np.sin(t)
        return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])
    if conv == "zyx":
        return np.array([rz(y) @ ry(p) @ rx(r) for y, p, r in a])
    return np.array([rx(x) @ ry(y) @ rz(z) for x, y, z in a])


def report(label, err, unit, thresholds=True):
    line = "  %-28s max |error| = %.3e %s" % (label, err, unit)
    if thresholds:
        line += "   (low precision < 1e-1: %s, high precision < 1e-3: %s)" % (
            "pass" if err < 1e-1 else "FAIL", "pass" if err < 1e-3 else "FAIL")
    print(line)


def thresholded(got, ref, threshold=1e-3):
    """max |got - ref| / max(|ref|, threshold): one reading of the library's 'threshold value'
    (errors of small reference values are measured absolutely); printed next to the absolute one."""
    return np.max(np.abs(got - ref) / np.maximum(np.abs(ref), threshold))


def energy_report(res):
    if res["energy"] is not None:
        e = res["energy"]
        print("  energy drift (gmbd)           max |E - E(0)| = %.3e J" % np.max(np.abs(e - e[0])))


def a01(res, _):
    cols, ref = read_csv("a01_simple_pendulum.csv")
    ir, jr = match(res, ref[:, 0])
    for k, name in ((1, "P1.x"), (2, "P1.y")):
        report(name + " (%d rows)" % len(ir), np.max(np.abs(col(res, name)[ir] - ref[jr, k])), "m")
        print("  %-28s max |error|/max(|ref|, 1e-3) = %.3e" % ("", thresholded(col(res, name)[ir], ref[jr, k])))
    energy_report(res)


def planar_point(res, body, local):
    x, y, th = col(res, body + ".x"), col(res, body + ".y"), col(res, body + ".theta")
    vx, vy, w = col(res, body + ".x", "v"), col(res, body + ".y", "v"), col(res, body + ".theta", "v")
    c, s = np.cos(th), np.sin(th)
    px, py = x + c * local[0] - s * local[1], y + s * local[0] + c * local[1]
    pvx, pvy = vx - w * (s * local[0] + c * local[1]), vy + w * (c * local[0] - s * local[1])
    return px, py, pvx, pvy


def a02(res, args):
    cols, ref = read_csv("a02_n_four_bar_N%d.csv" % args.n)
    ir, jr = match(res, ref[:, 0])
    px, py, pvx, pvy = planar_point(res, "crank0", (0.5, 0.0))
    report("B0 position (%d rows)" % len(ir), max(np.max(np.abs(px[ir] - ref[jr, 1])), np.max(np.abs(py[ir] - ref[jr, 2]))), "m")
    report("B0 velocity", max(np.max(np.abs(pvx[ir] - ref[jr, 3])), np.max(np.abs(pvy[ir] - ref[jr, 4]))), "m/s")
    print("  %-28s max |error|/max(|ref|, 1e-3) = %.3e (position), %.3e (velocity)"
          % ("", max(thresholded(px[ir], ref[jr, 1]), thresholded(py[ir], ref[jr, 2])),
             max(thresholded(pvx[ir], ref[jr, 3]), thresholded(pvy[ir], ref[jr, 4]))))
    # the parallelogram mode: every crank at the same angle
    th = np.array([col(res, "crank%d.theta" % i) for i in range(args.n + 1)])
    print("  max spread of the crank angles (parallelogram mode) = %.3e rad" % np.max(np.ptp(th, axis=0)))
    for tt in (10.0, 20.0):
        k = np.argmin(np.abs(res["t"] - tt))
        if abs(res["t"][k] - tt) < 1e-9:
            i = np.argmin(np.abs(ref[:, 0] - tt))
            print("  t = %4.1f s: B0 = (%.9f, %.9f), reference (%.9f, %.9f)" % (tt, px[k], py[k], ref[i, 1], ref[i, 2]))
    energy_report(res)


def a03(res, _):
    cols, ref = read_csv("a03_andrews.csv")
    ir, jr = match(res, ref[:, 0])
    ang = {"beta": col(res, "of.theta"), "gamma": col(res, "bde.theta"), "delta": col(res, "ga.theta"),
           "epsilon": col(res, "ha.theta")}
    ang["Theta"] = col(res, "fe.theta") - ang["beta"]
    ang["Phi"] = col(res, "eg.theta") - ang["delta"]
    ang["Omega"] = col(res, "he.theta") - ang["epsilon"]
    for name in ("beta", "Theta", "gamma", "Phi", "delta", "Omega", "epsilon"):
        report(name, np.max(np.abs(ang[name][ir] - ref[jr, cols.index(name)])), "rad", thresholds=False)
    px, py, _, _ = planar_point(res, "of", (0.007 - 0.00092, 0.0))
    report("point F", max(np.max(np.abs(px[ir] - ref[jr, cols.index("F_x")])),
                          np.max(np.abs(py[ir] - ref[jr, cols.index("F_y")]))), "m")
    k = np.argmin(np.abs(res["t"] - 0.03))
    if abs(res["t"][k] - 0.03) < 1e-9:
        q_ref = [0.1581077119629904e2, -0.1575637105984298e2, 0.4082224013073101e-1, -0.5347301163226948,
                 0.5244099658805304, 0.5347301163226948, 0.1048080741042263e1]
        got = [ang[n][k] for n in ("beta", "Theta", "gamma", "Phi", "delta", "Omega", "epsilon")]
        print("  t = 0.03 s vs Hairer & Wanner's test set: max |dq| = %.3e rad" % np.max(np.abs(np.array(got) - q_ref)))
    energy_report(res)  # gmbd's energy includes the motor's potential -mom theta (a constant coordinate force)


A04_BODIES = {  # body: (convention, body-frame position of P3 or None)
    "rod2": ("xyz", np.array([0.0, 0.0, 0.5])),
}


def a04(res, _):
    cols, ref = read_csv("a04_bricard.csv")
    ir, jr = match(res, ref[:, 0])
    conv, local = A04_BODIES["rod2"]
    names = ("rod2.rx", "rod2.ry", "rod2.rz")
    r = euler_r(np.column_stack([col(res, n) for n in names]), conv)
    c = np.column_stack([col(res, "rod2." + a) for a in "xyz"])
    p3 = c + r @ local
    report("P3 (%d rows)" % len(ir), np.max(np.abs(p3[ir] - ref[jr, 1:4])), "m")
    energy_report(res)


def a05(res, _):
    cols, ref = read_csv("a05_flyball_governor.csv")
    ir, jr = match(res, ref[:, 0])
    report("s (%d rows)" % len(ir), np.max(np.abs(col(res, "slider.z")[ir] - ref[jr, 1])), "m")
    report("shaft speed", np.max(np.abs(col(res, "shaft.yaw", "v")[ir] - ref[jr, 4])), "rad/s", thresholds=False)


def parallelogram(res, _):
    cols, ref = read_csv("parallelogram_redundant.csv")
    ir, jr = match(res, ref[:, 0])
    report("crank0.theta (%d rows)" % len(ir), np.max(np.abs(col(res, "crank0.theta")[ir] - ref[jr, 1])), "rad", False)
    px, py, _, _ = planar_point(res, "crank0", (0.5, 0.0))
    report("B0", max(np.max(np.abs(px[ir] - ref[jr, 3])), np.max(np.abs(py[ir] - ref[jr, 4]))), "m", False)
    energy_report(res)


def torque_free(res, _):
    cols, ref = read_csv("torque_free_body.csv")
    ir, jr = match(res, ref[:, 0])
    names = res["names"]
    if "body.yaw" in names:
        r = euler_r(np.column_stack([col(res, "body." + n) for n in ("yaw", "pitch", "roll")]), "zyx")
    else:  # quaternion body: Euler parameters body.e0 (scalar part) .. body.e3
        qn = ["body.e0", "body.e1", "body.e2", "body.e3"]
        q = np.column_stack([col(res, n) for n in qn])
        q /= np.linalg.norm(q, axis=1)[:, None]
        w, x, y, z = q.T
        r = np.array([[[1 - 2 * (b * b + d * d), 2 * (a * b - s * d), 2 * (a * d + s * b)],
                       [2 * (a * b + s * d), 1 - 2 * (a * a + d * d), 2 * (b * d - s * a)],
                       [2 * (a * d - s * b), 2 * (b * d + s * a), 1 - 2 * (a * a + b * b)]]
                      for s, a, b, d in zip(w, x, y, z)])
    r_ref = ref[:, 5:14].reshape(-1, 3, 3)
    report("rotation matrix (%d rows)" % len(ir), np.max(np.abs(r[ir] - r_ref[jr])), "", False)
    energy_report(res)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("problem", choices=["a01", "a02", "a03", "a04", "a05", "parallelogram", "torque_free"])
    ap.add_argument("results", help="gmbd HDF5 result file")
    ap.add_argument("--n", type=int, default=40, help="A02: number of four-bar windows")
    args = ap.parse_args()
    res = load_h5(args.results)
    print("%s: %s (status: %s, %d rows, t = %g .. %g s)"
          % (args.problem, args.results, res["status"], len(res["t"]), res["t"][0], res["t"][-1]))
    globals()[args.problem](res, args)


if __name__ == "__main__":
    main()
