#!/usr/bin/env python3
"""Reference solution of MBS benchmark A02, the N four-bar mechanism (docs/benchmarks.md).

2N+1 uniform bars (length L, mass m): N+1 cranks pinned to the ground at A_i = (i L, 0),
N couplers joining the crank tips B_{i-1}, B_i. Started with every crank vertical and the
parallelogram mode moving (B0 at (0, L) with velocity (v0, 0)), every crank keeps the same
angle theta (from +x) and every coupler translates. The reduced equation in theta alone is

    L = 1/2 m L^2 c thetadot^2 - m g L k sin(theta),
    c = (N+1)/3 + N   (cranks about their pivots: m L^2/3 each; couplers translate: m L^2 each)
    k = (N+1)/2 + N   (crank centres at height L/2 sin(theta), coupler centres at L sin(theta))
    => c theta'' = -(g/L) k cos(theta),  theta(0) = pi/2,  theta'(0) = -v0/L.

The energy integral gives thetadot^2 = (v0/L)^2 + 2 a (1 - sin theta), a = g k / (L c) > 0, so
theta decreases monotonically and the time to reach theta is a quadrature:

    t(theta) = integral_theta^{pi/2} dphi / sqrt((v0/L)^2 + 2 a (1 - sin phi)).

This script evaluates the reference twice: (1) by that quadrature, inverted with a bracketing
root finder (the 'exact' solution: no time-stepping error accumulates), and (2) by integrating
the ODE with scipy's DOP853 at rtol = atol = 1e-13; it prints their largest difference. The CSV
holds (1). It also writes the instants at which the mechanism passes a horizontal (singular)
position, sin(theta) = 0, where the mechanism momentarily has N+1 degrees of freedom.

Usage: ref_a02_n_four_bar.py [N ...]   (default: 1 2 40)
"""
import math
import sys

import numpy as np
from scipy.integrate import quad, solve_ivp
from scipy.optimize import brentq

from bench_common import write_csv

M, L, G, V0 = 1.0, 1.0, 9.81, 1.0   # kg, m, m/s^2, m/s (benchmark values)
T_END, N_STEPS = 20.0, 400          # the benchmark's duration and number of output steps


def constants(n):
    c = (n + 1) / 3.0 + n
    k = (n + 1) / 2.0 + n
    return c, k, G * k / (L * c)


def rate(theta, a):
    """|thetadot| from the energy integral."""
    return math.sqrt((V0 / L) ** 2 + 2.0 * a * (1.0 - math.sin(theta)))


def time_to(theta, a):
    """Time to go from pi/2 down to theta (theta <= pi/2)."""
    val, err = quad(lambda p: 1.0 / rate(p, a), theta, math.pi / 2, epsabs=1e-14, epsrel=1e-13, limit=200)
    return val


def exact_theta(t, a, period):
    n = math.floor(t / period)
    r = t - n * period
    if r == 0.0:
        return math.pi / 2 - 2 * math.pi * n
    phi = brentq(lambda th: time_to(th, a) - r, -1.5 * math.pi, 0.5 * math.pi, xtol=1e-15, rtol=1e-15, maxiter=200)
    return phi - 2 * math.pi * n


def reference(n):
    c, k, a = constants(n)
    period = time_to(-1.5 * math.pi, a)
    t = np.linspace(0.0, T_END, N_STEPS + 1)
    theta = np.array([exact_theta(ti, a, period) for ti in t])
    thetadot = -np.array([rate(th, a) for th in theta])
    # The same by time integration of c theta'' = -(g/L) k cos(theta).
    sol = solve_ivp(lambda _, y: [y[1], -a * math.cos(y[0])], (0.0, T_END), [math.pi / 2, -V0 / L],
                    method="DOP853", rtol=1e-13, atol=1e-13, t_eval=t)
    d_theta = np.max(np.abs(sol.y[0] - theta))
    bx, by = L * np.cos(theta), L * np.sin(theta)
    vx, vy = -L * np.sin(theta) * thetadot, L * np.cos(theta) * thetadot
    energy = 0.5 * M * L ** 2 * c * thetadot ** 2 + M * G * L * k * np.sin(theta)
    e_ode = 0.5 * M * L ** 2 * c * sol.y[1] ** 2 + M * G * L * k * np.sin(sol.y[0])
    # Horizontal positions theta = -j pi (j = 0: theta = 0 is reached first).
    crossings = []
    j = 0
    while True:
        th = -j * math.pi
        tc = time_to(th, a) if th >= -1.5 * math.pi else None
        if tc is None:
            turns = math.floor((0.5 * math.pi - th) / (2 * math.pi))
            rem = th + 2 * math.pi * turns
            tc = turns * period + time_to(rem, a)
        if tc > T_END:
            break
        crossings.append((j, th, tc))
        j += 1
    print("N = %d: 2N+1 = %d bars; c = %.6f, k = %.6f, a = g k/(L c) = %.12f 1/s^2" % (n, 2 * n + 1, c, k, a))
    print("  period of one crank turn T = %.12f s; energy E = %.12f J" % (period, energy[0]))
    print("  DOP853 (rtol = atol = 1e-13) vs quadrature: max |d theta| = %.2e rad, max |dE| = %.2e J"
          % (d_theta, np.max(np.abs(e_ode - energy[0]))))
    for tt in (10.0, 20.0):
        i = int(round(tt / (T_END / N_STEPS)))
        print("  t = %4.1f s: B0 = (%.12f, %.12f) m, v_B0 = (%.12f, %.12f) m/s"
              % (t[i], bx[i], by[i], vx[i], vy[i]))
    print("  horizontal (singular) positions at t = " + ", ".join("%.9f" % c_[2] for c_ in crossings) + " s")
    header = [
        "MBS benchmark A02 (N four-bar mechanism), N = %d: reference from the reduced 1-DOF model" % n,
        "(docs/benchmarks.md#a02); theta(t) by quadrature of the energy integral, inverted to 1e-15 rad.",
        "m = %g kg, L = %g m, g = %g m/s^2, B0(0) = (0, L), dB0x/dt(0) = %g m/s; 400 output steps over 20 s" % (M, L, G, V0),
        "B0 = crank-0 tip (x, y) in m and its velocity in m/s; theta (rad, from +x) and its rate (rad/s);",
        "energy = total mechanical energy (J), potential zero at y = 0 for every bar centre.",
    ]
    write_csv("a02_n_four_bar_N%d.csv" % n, header,
              ["t", "B0_x", "B0_y", "B0_vx", "B0_vy", "theta", "theta_dot", "energy"],
              np.column_stack([t, bx, by, vx, vy, theta, thetadot, energy]))
    write_csv("a02_n_four_bar_N%d_horizontal.csv" % n,
              ["MBS benchmark A02, N = %d: instants at which the mechanism is horizontal (sin(theta) = 0)," % n,
               "where the constraint Jacobian loses rank (N+1 instantaneous degrees of freedom).",
               "j: crossing index; theta = -j pi; t in s (quadrature to ~1e-14 s)."],
              ["j", "theta", "t"], np.array(crossings))
    return t, bx, by


def main():
    ns = [int(a) for a in sys.argv[1:]] or [1, 2, 40]
    for n in ns:
        reference(n)


if __name__ == "__main__":
    main()
