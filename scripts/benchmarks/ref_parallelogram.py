#!/usr/bin/env python3
"""Reference for the redundant parallelogram (docs/benchmarks.md#parallelogram): three equal
cranks (length L, mass m, pivots at (0,0), (L,0), (2L,0)) pinned to one coupler of length 2L and
mass m_c at its ends and its middle. 4 bodies, 12 coordinates, 6 pins = 12 rows of rank 11: one
degree of freedom and one redundant row (the middle crank adds no constraint on the motion).

Every crank keeps the same angle theta (from +x) and the coupler translates, so

    (n m L^2/3 + m_c L^2) theta'' = -g L (n m/2 + m_c) cos(theta),   n = 3 cranks,

started hanging (theta = -pi/2) at theta' = w0; it swings without reaching a horizontal (singular)
position. Integrated with DOP853 at rtol = atol = 1e-13; the period is checked against the
quadrature T = 4 int_{theta_min}^{-pi/2} dtheta / |theta'| (scipy quad with the endpoint weight).

Usage: ref_parallelogram.py
"""
import math

import numpy as np
from scipy.integrate import quad, solve_ivp
from scipy.optimize import brentq

from bench_common import write_csv

M, L, MC, G, N_CRANKS, W0 = 1.0, 1.0, 2.0, 9.81, 3, 3.0
T_END, DT_OUT = 10.0, 0.01
C = N_CRANKS * M * L ** 2 / 3 + MC * L ** 2
K = N_CRANKS * M / 2 + MC
A = G * K / (L * C)


def main():
    e0 = 0.5 * C * W0 ** 2 + G * L * K * math.sin(-math.pi / 2)
    # turning point: 1/2 C w^2 = e0 - g L K sin(theta) = 0, theta in (-pi/2, 0)
    th_max = math.asin(e0 / (G * L * K))
    w2 = lambda th: (2 * (e0 - G * L * K * math.sin(th)) / C)
    # T/4 = int_{-pi/2}^{th_max} dth / sqrt(w2), with th = -pi/2 + D sin(p) (smooth integrand in p)
    dd = th_max + math.pi / 2
    f = lambda p: dd * math.cos(p) / math.sqrt(w2(-math.pi / 2 + dd * math.sin(p)))
    quarter = quad(f, 0.0, math.pi / 2 - 1e-9, epsabs=1e-14, epsrel=1e-14, limit=200)[0]
    quarter += dd * 1e-9 / math.sqrt(G * L * K * math.cos(th_max) * dd / C)  # the last 1e-9 (integrand's limit)
    period = 4 * quarter
    t = np.arange(0.0, T_END + DT_OUT / 2, DT_OUT)
    sol = solve_ivp(lambda _, y: [y[1], -A * math.cos(y[0])], (0.0, T_END), [-math.pi / 2, W0],
                    method="DOP853", rtol=1e-13, atol=1e-13, t_eval=t, dense_output=True)
    th, thd = sol.y
    energy = 0.5 * C * thd ** 2 + G * L * K * np.sin(th)
    # period from the ODE: upward crossings of theta = -pi/2
    cross = [brentq(lambda s: sol.sol(s)[0] + math.pi / 2, t[i], t[i + 1], xtol=1e-15)
             for i in range(1, len(t) - 1) if th[i] + math.pi / 2 < 0 <= th[i + 1] + math.pi / 2]
    print("redundant parallelogram: C = %.6f kg m^2, K = %.3f kg; amplitude: theta from -pi/2 to %.12f rad"
          % (C, K, th_max))
    print("  period by quadrature %.12f s; from the ODE's crossings %.12f s; max |E - E0| = %.1e J"
          % (period, (cross[-1] - cross[0]) / (len(cross) - 1), np.max(np.abs(energy - e0))))
    bx, by = L * np.cos(th), L * np.sin(th)
    i = int(round(5.0 / DT_OUT))
    print("  t = 5 s: theta = %.12f rad, B0 = (%.12f, %.12f) m" % (th[i], bx[i], by[i]))
    write_csv("parallelogram_redundant.csv", [
        "Redundant parallelogram (docs/benchmarks.md#parallelogram): 3 cranks (1 m, 1 kg) + coupler (2 m, 2 kg),",
        "pivots (0,0), (1,0), (2,0); g = 9.81 along -y; theta (rad, from +x) of every crank, start theta = -pi/2,",
        "theta' = 3 rad/s. B0 = crank-0 tip (m); coupler centre (m); energy (J). Period %.12f s." % period,
    ], ["t", "theta", "theta_dot", "B0_x", "B0_y", "coupler_x", "coupler_y", "energy"],
        np.column_stack([t, th, thd, bx, by, L + bx, by, energy]))


if __name__ == "__main__":
    main()
