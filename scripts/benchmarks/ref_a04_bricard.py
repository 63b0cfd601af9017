#!/usr/bin/env python3
"""Reference solution of MBS benchmark A04, Bricard's mechanism (docs/benchmarks.md#a04).

Geometry (y up, gravity -y): five uniform rods of length l = 1 m, mass m = 1 kg, square section
a x a (a = 0.1 m; a = 0 gives slender rods), closed into a 6R loop by the ground. Initially
(at rest) the joints and their axes are

    J1 (0,0,0) y   J2 (1,0,0) z   J3 (1,-1,0) x   J4 (1,-1,1) y   J5 (0,-1,1) z   J6 (0,0,1) x

and rod k joins J_k and J_(k+1); J1 and J6 are on the ground. P3 = J3 is the reference point.

Reduced model: the loop is cut at J6; the open chain has the joint angles q1..q5 (relative
rotations about the joint axes, product of exponentials) and the closure at J6 is 5 equations
(J6 fixed in rod 5: 3; rod 5's J6 axis stays along x: 2) of rank 4 -- one degree of freedom.
The independent coordinate is alpha = q1 (the motion covers 0 <= alpha <= pi, where q1 is a
regular coordinate of the configuration curve); for each alpha the other four angles are solved
by Gauss-Newton on the 5 closure equations to |dq| < 1e-14 rad. With S = dq/dalpha (the null
vector of the closure Jacobian, S1 = 1), the motion is a conservative one-degree-of-freedom system

    T = 1/2 m_eff(alpha) alphadot^2,  m_eff = S^T M(q) S,  V(alpha) = sum_k m g y_k(q)

started at rest at alpha = 0, so alphadot^2 = 2 (V(0) - V(alpha)) / m_eff(alpha) and t(alpha) is a
quadrature. The motion swings between the turning points alpha = 0 and alpha = alpha_max (= pi:
the mirror configuration) and back, with period T = 2 t(alpha_max). t(alpha) is integrated with
Gauss-Legendre panels in s, alpha = alpha_max (1 - cos s)/2 (this removes the inverse square-root
singularities at the turning points), and inverted by Newton to 1e-15.

Check (--ode): the equation of motion m_eff alpha'' + 1/2 m_eff' alpha'^2 + V' = 0 (V' exact,
m_eff' by a five-point difference along the closed configuration curve) integrated with DOP853
at rtol = atol = 1e-12; the script prints its largest P3 difference from the quadrature.

Usage: ref_a04_bricard.py [--section A] [--ode] [--frames]
"""
import argparse
import itertools
import math

import numpy as np
from scipy.integrate import solve_ivp
from scipy.optimize import brentq

from bench_common import write_csv

L_ROD, MASS, G = 1.0, 1.0, 9.81
T_END, DT_OUT = 10.0, 0.01

JP = np.array([[0, 0, 0], [1, 0, 0], [1, -1, 0], [1, -1, 1], [0, -1, 1], [0, 0, 1.0]]) * L_ROD
JA = np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0.0]])
CENTRE = 0.5 * (JP[:5] + JP[1:6])
AXIS = np.array([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 0, 0], [0, 1, 0.0]])  # rod directions (signs irrelevant)


def rod_inertia(section):
    it = MASS * (L_ROD ** 2 + section ** 2) / 12.0
    ia = MASS * (2 * section ** 2) / 12.0
    return [it * np.eye(3) + (ia - it) * np.outer(e, e) for e in AXIS]


def rot(a, q):
    k = np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])
    return np.eye(3) + math.sin(q) * k + (1 - math.cos(q)) * (k @ k)


def fk(q):
    """Rotations and translations of rods 1..5 (x -> R x + t from the initial pose), and the
    current joint axes and points of J1..J5."""
    r, t = np.eye(3), np.zeros(3)
    rs, ts, ws, ps = [], [], [], []
    for j in range(5):
        ws.append(r @ JA[j])
        ps.append(r @ JP[j] + t)
        rj = rot(JA[j], q[j])
        t = r @ (JP[j] - rj @ JP[j]) + t
        r = r @ rj
        rs.append(r.copy())
        ts.append(t.copy())
    return rs, ts, ws, ps


def closure(q):
    rs, ts, ws, ps = fk(q)
    x = rs[4] @ JP[5] + ts[4]
    ax = rs[4] @ JA[5]
    g = np.array([x[0] - JP[5, 0], x[1] - JP[5, 1], x[2] - JP[5, 2], ax[1], ax[2]])
    jac = np.zeros((5, 5))
    for j in range(5):
        jac[0:3, j] = np.cross(ws[j], x - ps[j])
        jac[3:5, j] = np.cross(ws[j], ax)[1:3]
    return g, jac


def solve_closure(alpha, guess):
    q = np.array(guess, dtype=float)
    q[0] = alpha
    for _ in range(50):
        g, jac = closure(q)
        dq = np.linalg.lstsq(jac[:, 1:], -g, rcond=None)[0]
        q[1:] += dq
        if np.max(np.abs(dq)) < 1e-14:
            g, _ = closure(q)
            if np.max(np.abs(g)) < 1e-13:
                return q
    raise RuntimeError("closure did not converge at alpha = %r" % alpha)


class Bricard:
    def __init__(self, section):
        self.inertia = rod_inertia(section)
        self.reset()

    def reset(self):
        """Back to the initial configuration (alpha = 0, every joint angle 0)."""
        self.guess = np.zeros(5)

    def config(self, alpha):
        """The closed configuration at alpha on the branch through q = 0, by continuation from
        the last one solved (steps of at most 0.02 rad with a tangent predictor)."""
        q = self.guess
        while abs(alpha - q[0]) > 0.02:
            _, jac = closure(q)
            s = np.ones(5)
            s[1:] = np.linalg.lstsq(jac[:, 1:], -jac[:, 0], rcond=None)[0]
            step = math.copysign(0.02, alpha - q[0])
            q = solve_closure(q[0] + step, q + step * s)
        self.guess = solve_closure(alpha, q)
        return self.guess

    def point_jacobian(self, ws, ps, x, upto):
        jac = np.zeros((3, 5))
        for j in range(upto + 1):
            jac[:, j] = np.cross(ws[j], x - ps[j])
        return jac

    def state(self, alpha):
        """q, S = dq/dalpha, m_eff, V, dV/dalpha, P3 and dP3/dalpha at alpha."""
        q = self.config(alpha)
        _, jac = closure(q)
        s = np.ones(5)
        s[1:] = np.linalg.lstsq(jac[:, 1:], -jac[:, 0], rcond=None)[0]
        rs, ts, ws, ps = fk(q)
        m = np.zeros((5, 5))
        v = 0.0
        dv = np.zeros(5)
        for k in range(5):
            c = rs[k] @ CENTRE[k] + ts[k]
            jc = self.point_jacobian(ws, ps, c, k)
            jw = np.zeros((3, 5))
            for j in range(k + 1):
                jw[:, j] = ws[j]
            iw = rs[k] @ self.inertia[k] @ rs[k].T
            m += MASS * jc.T @ jc + jw.T @ iw @ jw
            v += MASS * G * c[1]
            dv += MASS * G * jc[1]
        p3 = rs[1] @ JP[2] + ts[1]
        jp3 = self.point_jacobian(ws, ps, p3, 1)
        return q, s, s @ m @ s, v, dv @ s, p3, jp3 @ s, rs


def gauss_legendre(n):
    x, w = np.polynomial.legendre.leggauss(n)
    return x, w


class Quadrature:
    """t(alpha) for the motion from rest at alpha = 0, in s with alpha = amax (1 - cos s)/2."""

    def __init__(self, model, amax, energy, panels=80, order=16):
        self.model, self.amax, self.energy = model, amax, energy
        self.x, self.w = gauss_legendre(order)
        self.edges = np.linspace(0.0, math.pi, panels + 1)
        self.cum = np.zeros(panels + 1)
        for i in range(panels):
            self.cum[i + 1] = self.cum[i] + self.segment(self.edges[i], self.edges[i + 1])

    def alpha(self, s):
        return self.amax * (1 - math.cos(s)) / 2

    def integrand(self, s):
        _, _, meff, v, _, _, _, _ = self.model.state(self.alpha(s))
        return math.sqrt(meff / (2 * (self.energy - v))) * self.amax / 2 * math.sin(s)

    def segment(self, a, b):
        mid, half = (a + b) / 2, (b - a) / 2
        return half * sum(wi * self.integrand(mid + half * xi) for xi, wi in zip(self.x, self.w))

    def time(self, s):
        i = min(np.searchsorted(self.edges, s, side="right") - 1, len(self.edges) - 2)
        return self.cum[i] + self.segment(self.edges[i], s)

    def s_at(self, tau):
        """Inverse of time() on [0, half period]."""
        s = float(np.interp(tau, self.cum, self.edges))
        if s <= 0.0 or s >= math.pi:
            return s
        for _ in range(30):
            ds = (self.time(s) - tau) / self.integrand(s)
            s -= ds
            if abs(ds) < 1e-15:
                break
        return s


def frames_report(rotations):
    """For each rod, the constant body frame (a signed axis permutation B, det 1) and Euler
    convention that keep the Euler angles of R_k B furthest from their singularity over the
    motion (zyx: |pitch| < pi/2; xyz: |ry| < pi/2). Printed for the model file."""
    perms = []
    for p in itertools.permutations(range(3)):
        for signs in itertools.product([1, -1], repeat=3):
            b = np.zeros((3, 3))
            for i in range(3):
                b[p[i], i] = signs[i]
            if np.linalg.det(b) > 0:
                perms.append(b)
    for k in range(5):
        best = None
        for b in perms:
            for conv in ("zyx", "xyz"):
                worst = 0.0
                for r in rotations:
                    rb = r[k] @ b
                    mid = -rb[2, 0] if conv == "zyx" else rb[0, 2]
                    worst = max(worst, abs(math.asin(max(-1.0, min(1.0, mid)))))
                # prefer the identity frame when it is as good
                key = (round(worst, 9), 0 if np.allclose(b, np.eye(3)) else 1)
                if best is None or key < best[0]:
                    best = (key, b, conv, worst)
        _, b, conv, worst = best
        print("  rod %d: body axes B = %s (columns: body x, y, z in world), angles %s, max |middle angle| = %.1f deg"
              % (k + 1, b.astype(int).tolist(), conv, math.degrees(worst)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--section", type=float, default=0.1, help="side of the square rod section, m (0: slender rods)")
    ap.add_argument("--ode", action="store_true", help="also integrate the equation of motion and compare")
    ap.add_argument("--frames", action="store_true", help="print the Euler-angle frames recommended for the model file")
    args = ap.parse_args()

    model = Bricard(args.section)
    _, _, meff0, v0, dv0, _, _, _ = model.state(0.0)
    energy = v0
    # Other turning point: V(amax) = V(0) on (pi/2, 3.5); by symmetry amax = pi.
    model.reset()
    amax = brentq(lambda a: model.state(a)[3] - energy, 2.5, 3.5, xtol=1e-15, rtol=1e-15)
    print("Bricard (section a = %g m): m_eff(0) = %.12f kg m^2, V(0) = %.12f J, dV/dalpha(0) = %.12f N m"
          % (args.section, meff0, v0, dv0))
    print("  turning points alpha = 0 and alpha_max = %.15f (pi - alpha_max = %.1e)" % (amax, math.pi - amax))
    model.reset()
    quad = Quadrature(model, amax, energy)
    half = quad.cum[-1]
    period = 2 * half
    print("  period T = %.12f s (half period %.12f s)" % (period, half))

    t = np.arange(0.0, T_END + DT_OUT / 2, DT_OUT)
    rows, rotations = [], []
    model.reset()
    for ti in t:
        phase = math.fmod(ti, period)
        forward = phase <= half
        tau = phase if forward else period - phase
        s = quad.s_at(tau)
        alpha = quad.alpha(s)
        q, sv, meff, v, _, p3, dp3, rs = model.state(alpha)
        rate = math.sqrt(max(0.0, 2 * (energy - v) / meff)) * (1 if forward else -1)
        vel = dp3 * rate
        rows.append([ti, p3[0], p3[1], p3[2], vel[0], vel[1], vel[2], alpha, rate, *q[1:], 0.5 * meff * rate ** 2 + v])
        rotations.append(rs)
    rows = np.array(rows)
    for tt in (2.5, 5.0, 10.0):
        i = int(round(tt / DT_OUT))
        print("  t = %4.1f s: P3 = (%.12f, %.12f, %.12f) m" % (rows[i, 0], rows[i, 1], rows[i, 2], rows[i, 3]))

    if args.ode:
        h = 1e-4

        def meff_at(a):
            return model.state(a)[2]

        def rhs(_, y):
            a, ad = y
            _, _, meff, _, dv, _, _, _ = model.state(a)
            dm = (-meff_at(a + 2 * h) + 8 * meff_at(a + h) - 8 * meff_at(a - h) + meff_at(a - 2 * h)) / (12 * h)
            model.state(a)  # restore the guess near a
            return [ad, -(dv + 0.5 * dm * ad * ad) / meff]

        model.reset()
        sol = solve_ivp(rhs, (0.0, T_END), [0.0, 0.0], method="DOP853", rtol=1e-12, atol=1e-12, t_eval=t)
        p3_ode = []
        e_ode = []
        for a, ad in zip(sol.y[0], sol.y[1]):
            _, _, meff, v, _, p3, _, _ = model.state(a)
            p3_ode.append(p3)
            e_ode.append(0.5 * meff * ad * ad + v)
        p3_ode = np.array(p3_ode)
        print("  ODE check (DOP853 1e-12, %d RHS evaluations): max |P3_ode - P3_quad| = %.2e m, max |E - E0| = %.2e J"
              % (sol.nfev, np.max(np.abs(p3_ode - rows[:, 1:4])), np.max(np.abs(np.array(e_ode) - energy))))

    if args.frames:
        frames_report(rotations)

    name = "a04_bricard.csv" if args.section == 0.1 else "a04_bricard_section%g.csv" % args.section
    write_csv(name, [
        "MBS benchmark A04 (Bricard's mechanism): reduced 1-DOF reference (docs/benchmarks.md#a04).",
        "Rods l = 1 m, m = 1 kg, square section a = %g m; gravity 9.81 m/s^2 along -y; start at rest." % args.section,
        "P3 = joint J3 (initially (1, -1, 0)) in m and its velocity in m/s; alpha = q1 (rad) and its rate;",
        "q2..q5: the other open-chain joint angles (rad); energy = kinetic + potential (J, potential 0 at y = 0).",
        "Period T = %.12f s; t(alpha) by Gauss-Legendre quadrature of the energy integral." % period,
    ], ["t", "P3_x", "P3_y", "P3_z", "P3_vx", "P3_vy", "P3_vz", "alpha", "alpha_dot", "q2", "q3", "q4", "q5", "energy"],
        rows)


if __name__ == "__main__":
    main()
