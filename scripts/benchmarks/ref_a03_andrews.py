#!/usr/bin/env python3
"""Reference solution of MBS benchmark A03, Andrews' squeezing mechanism (docs/benchmarks.md#a03).

Formulation (Schiehlen 1990; Hairer & Wanner, Solving ODEs II, sec. VII.7; the IVP test set
'andrews'): seven planar bodies, the angles q = (beta, Theta, gamma, Phi, delta, Omega, epsilon),
six loop-closure equations g(q) = 0 (the point E reached through O-F-E, B-E, A-G-E and A-H-E),
the mass matrix M(q), the spring C-D (c0 = 4530 N/m, l0 = 0.07785 m) and the motor torque
mom = 0.033 N m on beta; no gravity. Start at rest in the test set's consistent position.

Independent integration here: beta is the independent coordinate (the O-F-E-B four-bar is a
crank-rocker, so beta parametrises the whole motion). For each beta the six other angles are
solved from g = 0 by Newton to |dq| < 1e-15 rad (continuation from the last solution); the
velocities follow from G q' = 0 with q'_1 = beta'; the accelerations from the KKT system
[M G^T; G 0] [q''; lambda] = [f; -h], h = (d/dt G) q' (exact: every term of g is c cos(w.q) or
c sin(w.q), whose second derivative at q'' = 0 is -term (w.q')^2). Only (beta, beta') is
integrated (scipy DOP853, rtol = atol = 1e-13): a minimal-coordinate ODE with exact closure.
M is checked against the kinetic energy of the bodies' centres of mass and rotations, and the
energy balance T + V - mom (beta - beta0) is printed (it must stay constant).

The script compares the state at t = 0.03 s with the published test-set reference (computed
with PSIDE at tolerance 1e-14) and writes 0 <= t <= 0.05 s every 1e-4 s: the angles, point F
(the crank tip, the quantity plotted by the OpenSim benchmark implementation) and the energy.

Usage: ref_a03_andrews.py
"""
import math

import numpy as np
from scipy.integrate import solve_ivp

from bench_common import write_csv

# Parameters of the test set / Hairer & Wanner (SI units).
m1, m2, m3, m4, m5, m6, m7 = .04325, .00365, .02373, .00706, .07050, .00706, .05498
xa, ya, xb, yb, xc, yc = -.06934, -.00227, -.03635, .03273, .014, .072
c0, l0, mom = 4530.0, .07785, .033
i1, i2, i3, i4, i5, i6, i7 = 2.194e-6, 4.410e-7, 5.255e-6, 5.667e-7, 1.169e-5, 5.667e-7, 1.912e-5
d, da, e, ea = 28e-3, 115e-4, 2e-2, 1421e-5
rr, ra = 7e-3, 92e-5
ss, sa, sb, sc, sd = 35e-3, 1874e-5, 1043e-5, 18e-3, 2e-2
ta, tb, u, ua, ub = 2308e-5, 916e-5, 4e-2, 1228e-5, 449e-5
zf, zt, fa = 2e-2, 4e-2, 1421e-5

# Consistent initial position (test set), at rest.
Q0 = np.array([-0.0617138900142764496358948458001, 0.0, 0.455279819163070380255912382449,
               0.222668390165885884674473185609, 0.487364979543842550225598953530,
               -0.222668390165885884674473185609, 1.23054744454982119249735015568])
# Published reference at t = 0.03 s (test set, PSIDE, rtol = atol = 1e-14): q and q'.
Q_REF = np.array([0.1581077119629904e2, -0.1575637105984298e2, 0.4082224013073101e-1, -0.5347301163226948,
                  0.5244099658805304, 0.5347301163226948, 0.1048080741042263e1])
V_REF = np.array([0.1139920302151208e4, -0.1424379294994111e4, 0.1103291221937134e2, 0.1929337464421385e2,
                  0.5735699284790808, -0.1929337464421385e2, 0.3231791658026955])

# g(q) as sums of terms c*cos(w.q) or c*sin(w.q) plus constants.
W = {  # linear combinations of the angles
    "b": [1, 0, 0, 0, 0, 0, 0], "bt": [1, 1, 0, 0, 0, 0, 0], "g": [0, 0, 1, 0, 0, 0, 0],
    "pd": [0, 0, 0, 1, 1, 0, 0], "d": [0, 0, 0, 0, 1, 0, 0], "oe": [0, 0, 0, 0, 0, 1, 1], "e": [0, 0, 0, 0, 0, 0, 1],
}
ROWS = [  # (constant, [(coefficient, 'cos'|'sin', combination), ...])
    (-xb, [(rr, "cos", "b"), (-d, "cos", "bt"), (-ss, "sin", "g")]),
    (-yb, [(rr, "sin", "b"), (-d, "sin", "bt"), (ss, "cos", "g")]),
    (-xa, [(rr, "cos", "b"), (-d, "cos", "bt"), (-e, "sin", "pd"), (-zt, "cos", "d")]),
    (-ya, [(rr, "sin", "b"), (-d, "sin", "bt"), (e, "cos", "pd"), (-zt, "sin", "d")]),
    (-xa, [(rr, "cos", "b"), (-d, "cos", "bt"), (-zf, "cos", "oe"), (-u, "sin", "e")]),
    (-ya, [(rr, "sin", "b"), (-d, "sin", "bt"), (-zf, "sin", "oe"), (u, "cos", "e")]),
]
W = {k: np.array(v, dtype=float) for k, v in W.items()}


def constraints(q, v=None):
    """g(q), G = dg/dq and (with v) h = (dG/dt) v."""
    g = np.zeros(6)
    jac = np.zeros((6, 7))
    h = np.zeros(6)
    for i, (const, terms) in enumerate(ROWS):
        g[i] = const
        for c, kind, comb in terms:
            w = W[comb]
            phi = w @ q
            val = c * (math.cos(phi) if kind == "cos" else math.sin(phi))
            der = c * (-math.sin(phi) if kind == "cos" else math.cos(phi))
            g[i] += val
            jac[i] += der * w
            if v is not None:
                h[i] -= val * (w @ v) ** 2
    return g, jac, h


def mass_matrix(q):
    th, ph, om = q[1], q[3], q[5]
    m = np.zeros((7, 7))
    m[0, 0] = m1 * ra ** 2 + m2 * (rr ** 2 - 2 * da * rr * math.cos(th) + da ** 2) + i1 + i2
    m[1, 0] = m[0, 1] = m2 * (da ** 2 - da * rr * math.cos(th)) + i2
    m[1, 1] = m2 * da ** 2 + i2
    m[2, 2] = m3 * (sa ** 2 + sb ** 2) + i3
    m[3, 3] = m4 * (e - ea) ** 2 + i4
    m[4, 3] = m[3, 4] = m4 * ((e - ea) ** 2 + zt * (e - ea) * math.sin(ph)) + i4
    m[4, 4] = m4 * (zt ** 2 + 2 * zt * (e - ea) * math.sin(ph) + (e - ea) ** 2) + m5 * (ta ** 2 + tb ** 2) + i4 + i5
    m[5, 5] = m6 * (zf - fa) ** 2 + i6
    m[6, 5] = m[5, 6] = m6 * ((zf - fa) ** 2 - u * (zf - fa) * math.sin(om)) + i6
    m[6, 6] = m6 * ((zf - fa) ** 2 - 2 * u * (zf - fa) * math.sin(om) + u ** 2) + m7 * (ua ** 2 + ub ** 2) + i6 + i7
    return m


def spring_point_d(q):
    ga = q[2]
    return np.array([sd * math.cos(ga) + sc * math.sin(ga) + xb, sd * math.sin(ga) - sc * math.cos(ga) + yb])


def forces(q, v):
    be, th, ga, ph, de, om, ep = q
    bep, thp, _, php, dep, omp, epp = v
    dpt = spring_point_d(q)
    length = math.hypot(dpt[0] - xc, dpt[1] - yc)
    force = -c0 * (length - l0) / length
    fx, fy = force * (dpt[0] - xc), force * (dpt[1] - yc)
    f = np.zeros(7)
    f[0] = mom - m2 * da * rr * thp * (thp + 2 * bep) * math.sin(th)
    f[1] = m2 * da * rr * bep ** 2 * math.sin(th)
    f[2] = fx * (sc * math.cos(ga) - sd * math.sin(ga)) + fy * (sd * math.cos(ga) + sc * math.sin(ga))
    f[3] = m4 * zt * (e - ea) * dep ** 2 * math.cos(ph)
    f[4] = -m4 * zt * (e - ea) * php * (php + 2 * dep) * math.cos(ph)
    f[5] = -m6 * u * (zf - fa) * epp ** 2 * math.cos(om)
    f[6] = m6 * u * (zf - fa) * omp * (omp + 2 * epp) * math.cos(om)
    return f


def spring_energy(q):
    dpt = spring_point_d(q)
    return 0.5 * c0 * (math.hypot(dpt[0] - xc, dpt[1] - yc) - l0) ** 2


def rot(a):
    return np.array([[math.cos(a), -math.sin(a)], [math.sin(a), math.cos(a)]])


def bodies(q):
    """(mass, inertia, centre of mass, absolute angle) of the seven bodies, from the geometry."""
    be, th, ga, ph, de, om, ep = q
    A, B = np.array([xa, ya]), np.array([xb, yb])
    F = rr * np.array([math.cos(be), math.sin(be)])
    G_ = A + rot(de) @ np.array([zt, 0.0])
    H = A + rot(ep) @ np.array([0.0, -u])
    return [
        (m1, i1, rot(be) @ np.array([ra, 0.0]), be),
        (m2, i2, F + rot(be + th) @ np.array([-da, 0.0]), be + th),
        (m3, i3, B + rot(ga) @ np.array([sb, -sa]), ga),
        (m4, i4, G_ + rot(ph + de) @ np.array([0.0, -(e - ea)]), ph + de),
        (m5, i5, A + rot(de) @ np.array([ta, tb]), de),
        (m6, i6, H + rot(om + ep) @ np.array([zf - fa, 0.0]), om + ep),
        (m7, i7, A + rot(ep) @ np.array([-ub, -ua]), ep),
    ]


def mass_matrix_from_bodies(q, hstep=1e-7):
    """M from the bodies' kinematics (central differences of the centres): a check of M."""
    jac_c = [np.zeros((2, 7)) for _ in range(7)]
    jac_w = [np.zeros(7) for _ in range(7)]
    for j in range(7):
        dq = np.zeros(7)
        dq[j] = hstep
        bp, bm = bodies(q + dq), bodies(q - dq)
        for k in range(7):
            jac_c[k][:, j] = (bp[k][2] - bm[k][2]) / (2 * hstep)
            jac_w[k][j] = (bp[k][3] - bm[k][3]) / (2 * hstep)
    b0 = bodies(q)
    return sum(b0[k][0] * jac_c[k].T @ jac_c[k] + b0[k][1] * np.outer(jac_w[k], jac_w[k]) for k in range(7))


class Reduced:
    def __init__(self):
        self.q = Q0.copy()

    def position(self, beta):
        q = self.q.copy()
        q[0] = beta
        for _ in range(60):
            g, jac, _ = constraints(q)
            dq = np.linalg.solve(jac[:, 1:], -g)
            q[1:] += dq
            if np.max(np.abs(dq)) < 1e-15:
                break
        else:
            g, _, _ = constraints(q)
            if np.max(np.abs(g)) > 1e-15:
                raise RuntimeError("closure failed at beta = %r" % beta)
        self.q = q
        return q

    def full_state(self, beta, betadot):
        q = self.position(beta)
        _, jac, _ = constraints(q)
        v = np.zeros(7)
        v[0] = betadot
        v[1:] = np.linalg.solve(jac[:, 1:], -jac[:, 0] * betadot)
        return q, v

    def acceleration(self, q, v):
        _, jac, h = constraints(q, v)
        kkt = np.zeros((13, 13))
        kkt[:7, :7] = mass_matrix(q)
        kkt[:7, 7:] = jac.T
        kkt[7:, :7] = jac
        rhs = np.concatenate([forces(q, v), -h])
        sol = np.linalg.solve(kkt, rhs)
        return sol[:7], sol[7:]

    def rhs(self, _, y):
        q, v = self.full_state(y[0], y[1])
        a, _ = self.acceleration(q, v)
        return [y[1], a[0]]


def energy(q, v):
    return 0.5 * v @ mass_matrix(q) @ v + spring_energy(q) - mom * (q[0] - Q0[0])


def main():
    red = Reduced()
    g0, _, _ = constraints(Q0)
    dm = np.max(np.abs(mass_matrix_from_bodies(Q0 + 0.1) - mass_matrix(Q0 + 0.1)))
    print("Andrews' squeezer: |g(q0)| = %.1e; M(q) vs body kinematics (at q0 + 0.1): max |dM| = %.1e kg m^2 (of %.1e)"
          % (np.max(np.abs(g0)), dm, np.max(mass_matrix(Q0))))
    a0, lam0 = red.acceleration(Q0, np.zeros(7))
    print("  initial accelerations beta'' = %.10e, Theta'' = %.10e (test set: 14222.44392, -10666.83294);"
          " lambda1,2 = %.8e, %.8e (test set: 98.56687, -6.12269)" % (a0[0], a0[1], lam0[0], lam0[1]))
    red = Reduced()
    t_out = np.linspace(0.0, 0.05, 501)
    sol = solve_ivp(red.rhs, (0.0, 0.05), [Q0[0], 0.0], method="DOP853", rtol=1e-13, atol=1e-13,
                    t_eval=t_out, dense_output=True)
    red = Reduced()
    rows = []
    e0 = energy(Q0, np.zeros(7))
    for t, b, bd in zip(sol.t, sol.y[0], sol.y[1]):
        q, v = red.full_state(b, bd)
        fpt = rr * np.array([math.cos(q[0]), math.sin(q[0])])
        fvel = rr * v[0] * np.array([-math.sin(q[0]), math.cos(q[0])])
        rows.append([t, *q, *v, fpt[0], fpt[1], fvel[0], fvel[1], energy(q, v) - e0])
    rows = np.array(rows)
    i = int(round(0.03 / 1e-4))
    q03, v03 = rows[i, 1:8], rows[i, 8:15]
    print("  DOP853 rtol = atol = 1e-13: %d RHS evaluations; max |energy balance| = %.2e J"
          % (sol.nfev, np.max(np.abs(rows[:, -1]))))
    print("  t = 0.03 s vs test set: max |dq| = %.2e rad, max |dq'| = %.2e rad/s (max relative %.1e)"
          % (np.max(np.abs(q03 - Q_REF)), np.max(np.abs(v03 - V_REF)), np.max(np.abs(v03 - V_REF) / np.abs(V_REF))))
    for name, val, ref in zip(["beta", "Theta", "gamma", "Phi", "delta", "Omega", "epsilon"], q03, Q_REF):
        print("    %-8s %.16e  (test set %.16e)" % (name, val, ref))
    # Convergence: the same at rtol = atol = 1e-11.
    red = Reduced()
    sol2 = solve_ivp(red.rhs, (0.0, 0.03), [Q0[0], 0.0], method="DOP853", rtol=1e-11, atol=1e-11)
    print("  rtol 1e-11 vs 1e-13 at 0.03 s: |d beta| = %.1e rad" % abs(sol2.y[0, -1] - q03[0]))
    write_csv("a03_andrews.csv", [
        "MBS benchmark A03 (Andrews' squeezing mechanism): reduced-coordinate reference (docs/benchmarks.md#a03).",
        "Angles of Hairer & Wanner / Schiehlen (rad) and their rates (rad/s); F = crank tip rr (cos beta, sin beta)",
        "(m, m/s); energy_balance = T + V_spring - mom (beta - beta0) - E0 (J, must be 0). No gravity, start at rest.",
        "Independent coordinate beta, closure by Newton to 1e-15 rad, DOP853 rtol = atol = 1e-13.",
    ], ["t", "beta", "Theta", "gamma", "Phi", "delta", "Omega", "epsilon",
        "beta_dot", "Theta_dot", "gamma_dot", "Phi_dot", "delta_dot", "Omega_dot", "epsilon_dot",
        "F_x", "F_y", "F_vx", "F_vy", "energy_balance"], rows)


if __name__ == "__main__":
    main()
