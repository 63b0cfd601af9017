#!/usr/bin/env python3
"""Reference solution of MBS benchmark A01, the planar simple pendulum (docs/benchmarks.md#a01).

A 1 kg point mass P1 on a massless 1 m link pinned at the origin, gravity 9.81 m/s^2 along -y,
released at rest from the horizontal position P1 = (L, 0). With theta the angle from the
downward vertical (theta0 = pi/2), the exact solution is

    sin(theta/2) = k sn(K - w0 t | m),   k = sin(theta0/2),  m = k^2,  w0 = sqrt(g/L),
    thetadot = -2 k w0 cn(K - w0 t | m),  period T = 4 K(m) / w0,

(K the complete elliptic integral of the first kind). P1 = L (sin theta, -cos theta). scipy's
ellipj/ellipk give it to about 1e-15; the argument is reduced modulo the period first, so no
error accumulates over the benchmark's 2000 s. Checked here against DOP853 (rtol = atol = 1e-13)
over the first 20 s.

Usage: ref_a01_simple_pendulum.py [--interval DT] [-o NAME]
       default: 0 <= t <= 2000 s every 1 s (2001 rows); the benchmark's own grid is 4000
       output steps (--interval 0.5).
"""
import argparse
import math

import numpy as np
from scipy.integrate import solve_ivp
from scipy.special import ellipj, ellipk

from bench_common import write_csv

M, L, G, THETA0, T_END = 1.0, 1.0, 9.81, math.pi / 2, 2000.0


def exact(t):
    k = math.sin(THETA0 / 2)
    m = k * k
    w0 = math.sqrt(G / L)
    kk = ellipk(m)
    period = 4 * kk / w0
    tr = np.mod(t, period)
    sn, cn, dn, _ = ellipj(kk - w0 * tr, m)
    theta = 2 * np.arcsin(k * sn)
    thetadot = -2 * k * w0 * cn
    return theta, thetadot, period


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--interval", type=float, default=1.0, help="output interval, s (default 1)")
    ap.add_argument("-o", "--output", default="a01_simple_pendulum.csv", help="file name in examples/benchmarks/reference")
    args = ap.parse_args()
    n = int(round(T_END / args.interval))
    t = np.linspace(0.0, T_END, n + 1)
    theta, thetadot, period = exact(t)
    x, y = L * np.sin(theta), -L * np.cos(theta)
    vx, vy = L * np.cos(theta) * thetadot, L * np.sin(theta) * thetadot
    energy = 0.5 * M * L ** 2 * thetadot ** 2 + M * G * y
    tc = np.linspace(0.0, 20.0, 2001)
    sol = solve_ivp(lambda _, s: [s[1], -G / L * math.sin(s[0])], (0.0, 20.0), [THETA0, 0.0],
                    method="DOP853", rtol=1e-13, atol=1e-13, t_eval=tc)
    th_c, _, _ = exact(tc)
    print("simple pendulum: period T = %.15f s; DOP853 vs elliptic over 20 s: max |d theta| = %.1e rad;"
          " max |E - E0| = %.1e J" % (period, np.max(np.abs(sol.y[0] - th_c)), np.max(np.abs(energy - energy[0]))))
    for tt in (1.0, 10.0, 1000.0, 2000.0):
        i = int(round(tt / args.interval))
        print("  t = %6.1f s: P1 = (%.12f, %.12f) m" % (t[i], x[i], y[i]))
    write_csv(args.output, [
        "MBS benchmark A01 (simple pendulum): exact solution by Jacobi elliptic functions (docs/benchmarks.md#a01).",
        "m = 1 kg, L = 1 m, g = 9.81 m/s^2 along -y, P1(0) = (1, 0) at rest; P1 position (m) and velocity (m/s);",
        "theta from the downward vertical (rad); energy (J, potential 0 at y = 0). Period %.15f s." % period,
    ], ["t", "P1_x", "P1_y", "P1_vx", "P1_vy", "theta", "energy"],
        np.column_stack([t, x, y, vx, vy, theta, energy]))


if __name__ == "__main__":
    main()
