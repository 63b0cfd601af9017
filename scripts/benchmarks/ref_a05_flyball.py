#!/usr/bin/env python3
"""Reference solution of MBS benchmark A05, the stiff flyball governor (docs/benchmarks.md#a05).

Geometry (z up, gravity -z), as in the benchmark figure and the OpenSim implementation of
the library (RehabEngGroup/MBSbenchmarksInOpenSim, src/A05-FlyballGovernor/createModel.cpp):
a vertical shaft (1 x 0.01 x 0.01 m, density 3000 kg/m^3: 0.3 kg) on a revolute joint about z at
the origin, spanning 0 <= z <= 1; a slider (0.1 m cube, 3 kg) on the shaft at height s, turning
with it; two rods (1 x 0.01 x 0.01 m, 0.3 kg) pinned at (+-0.05, 0, 1) in the shaft frame about
the horizontal axis normal to their plane, each with a 5 kg point mass at its free end; each
rod's centre is tied to the slider point (+-0.05, 0, s) by a spring-damper (k = 8e5 N/m,
c = 4e4 N s/m, rest length 0.5 m) that replaces the coupler rod of a rigid governor.
Initially s = 0.5 m, the rods 30 deg below the horizontal (the springs exactly at rest length),
everything at rest in the shaft frame, and the shaft turning at 2 pi rad/s; the shaft is free
(no motor) and keeps its angular momentum.

Reduced model: the four joint coordinates q = (phi, s, theta1, theta2) (shaft angle; slider
height; rod angles below the horizontal). In the shaft frame every point moves in the x'z'
plane, so its speed^2 is x'dot^2 + z'dot^2 + phidot^2 x'^2 and

  T = 1/2 J(theta) phidot^2 + 1/2 m_s sdot^2 + 1/2 I_th (theta1dot^2 + theta2dot^2),
  J = I_shaft + I_slider + sum_k [m_r x_ck^2 + m_b x_bk^2 + I_t cos^2 theta_k + I_a sin^2 theta_k],
  I_th = m_r (l/2)^2 + m_b l^2 + I_t,   x_ck = e + l/2 cos theta_k,  x_bk = e + l cos theta_k,
  V = m_s g s + sum_k [m_r g (1 - l/2 sin theta_k) + m_b g (1 - l sin theta_k) + k/2 (L_k - L0)^2],
  L_k = sqrt((l/2 cos theta_k)^2 + (1 - s - l/2 sin theta_k)^2),  Rayleigh D = c/2 sum_k Ldot_k^2

(e = 0.05 m; I_t, I_a: rod inertia about its centre across and along it). Lagrange's
equations are integrated with scipy's Radau (the spring-damper makes the system stiff) at
rtol = atol = 1e-12 and checked against LSODA at 1e-12.

Usage: ref_a05_flyball.py [--driven]   (--driven: shaft held at 2 pi rad/s instead of free)
"""
import argparse
import math

import numpy as np
from scipy.integrate import solve_ivp

from bench_common import write_csv

RHO, G = 3000.0, 9.81
L, W = 1.0, 0.01                      # rod and shaft length, section side
M_ROD = RHO * L * W * W               # 0.3 kg (rods and shaft)
M_SLIDER = RHO * 0.1 ** 3             # 3 kg
M_BALL = 5.0
K, C, L0 = 8e5, 4e4, 0.5
E_OFF = 0.05                          # pivot and spring offsets from the axis
TOP = 1.0                             # pivot height
I_T = M_ROD * (L ** 2 + W ** 2) / 12  # rod (and shaft) across its axis
I_A = M_ROD * (2 * W ** 2) / 12       # rod (and shaft) along its axis
I_SHAFT = I_A
I_SLIDER = M_SLIDER * (2 * 0.1 ** 2) / 12
I_TH = M_ROD * (L / 2) ** 2 + M_BALL * L ** 2 + I_T
OMEGA0, S0, TH0 = 2 * math.pi, 0.5, math.radians(30.0)
T_END, DT_OUT = 10.0, 0.01


def spring(s, th):
    """Length of a spring and its partial derivatives with respect to s and theta."""
    dx = L / 2 * math.cos(th)
    dz = TOP - s - L / 2 * math.sin(th)
    ln = math.hypot(dx, dz)
    dl_ds = -dz / ln
    dl_dth = (dx * (-L / 2 * math.sin(th)) + dz * (-L / 2 * math.cos(th))) / ln
    return ln, dl_ds, dl_dth


def inertia_j(th):
    xc, xb = E_OFF + L / 2 * math.cos(th), E_OFF + L * math.cos(th)
    return M_ROD * xc ** 2 + M_BALL * xb ** 2 + I_T * math.cos(th) ** 2 + I_A * math.sin(th) ** 2


def d_inertia_j(th):
    xc, xb = E_OFF + L / 2 * math.cos(th), E_OFF + L * math.cos(th)
    return (2 * M_ROD * xc * (-L / 2 * math.sin(th)) + 2 * M_BALL * xb * (-L * math.sin(th))
            + 2 * (I_A - I_T) * math.sin(th) * math.cos(th))


def rhs(_, y, driven):
    phi, s, t1, t2, phid, sd, t1d, t2d = y
    J = I_SHAFT + I_SLIDER + inertia_j(t1) + inertia_j(t2)
    f_s = -M_SLIDER * G
    f_t = []
    for th, thd in ((t1, t1d), (t2, t2d)):
        ln, dls, dlt = spring(s, th)
        tension = K * (ln - L0) + C * (dls * sd + dlt * thd)
        f_s -= tension * dls
        f_t.append(0.5 * d_inertia_j(th) * phid ** 2 + (M_ROD * L / 2 + M_BALL * L) * G * math.cos(th) - tension * dlt)
    jdot = d_inertia_j(t1) * t1d + d_inertia_j(t2) * t2d
    phidd = 0.0 if driven else -jdot * phid / J
    return [phid, sd, t1d, t2d, phidd, f_s / M_SLIDER, f_t[0] / I_TH, f_t[1] / I_TH]


def energy(y):
    phi, s, t1, t2, phid, sd, t1d, t2d = y
    J = I_SHAFT + I_SLIDER + inertia_j(t1) + inertia_j(t2)
    t = 0.5 * J * phid ** 2 + 0.5 * M_SLIDER * sd ** 2 + 0.5 * I_TH * (t1d ** 2 + t2d ** 2)
    v = M_SLIDER * G * s
    for th in (t1, t2):
        v += M_ROD * G * (TOP - L / 2 * math.sin(th)) + M_BALL * G * (TOP - L * math.sin(th))
        v += 0.5 * K * (spring(s, th)[0] - L0) ** 2
    return t + v


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--driven", action="store_true", help="hold the shaft at 2 pi rad/s (default: free shaft)")
    args = ap.parse_args()
    y0 = [0.0, S0, TH0, TH0, OMEGA0, 0.0, 0.0, 0.0]
    print("flyball governor: spring length at start %.15f m (rest %.3f); J(0) = %.9f kg m^2; I_theta = %.9f kg m^2"
          % (spring(S0, TH0)[0], L0, I_SHAFT + I_SLIDER + 2 * inertia_j(TH0), I_TH))
    t = np.arange(0.0, T_END + DT_OUT / 2, DT_OUT)
    with np.errstate(over="ignore"):  # scipy's difference Jacobian probes the cyclic phi column
        sol = solve_ivp(rhs, (0.0, T_END), y0, method="Radau", rtol=1e-12, atol=1e-12, t_eval=t, args=(args.driven,))
        chk = solve_ivp(rhs, (0.0, T_END), y0, method="LSODA", rtol=1e-12, atol=1e-12, t_eval=t, args=(args.driven,))
        lo = solve_ivp(rhs, (0.0, T_END), y0, method="Radau", rtol=1e-10, atol=1e-10, t_eval=t, args=(args.driven,))
    print("  Radau 1e-12: %d RHS evaluations; vs LSODA 1e-12: max |ds| = %.1e m; vs Radau 1e-10: %.1e m"
          % (sol.nfev, np.max(np.abs(sol.y[1] - chk.y[1])), np.max(np.abs(sol.y[1] - lo.y[1]))))
    y = sol.y
    en = np.array([energy(y[:, i]) for i in range(y.shape[1])])
    ang_mom = np.array([(I_SHAFT + I_SLIDER + inertia_j(y[2, i]) + inertia_j(y[3, i])) * y[4, i] for i in range(y.shape[1])])
    s = y[1]
    print("  s: min %.9f m, max %.9f m; max |theta1 - theta2| = %.1e rad; shaft speed %.6f .. %.6f rad/s"
          % (s.min(), s.max(), np.max(np.abs(y[2] - y[3])), y[4].min(), y[4].max()))
    if not args.driven:
        print("  angular momentum about z: %.12f .. %.12f kg m^2/s" % (ang_mom.min(), ang_mom.max()))
    print("  energy %.9f J at t = 0, %.9f J at t = %g s (the dampers dissipate %.3e J)" % (en[0], en[-1], T_END, en[0] - en[-1]))
    # first maxima of s
    peaks = [i for i in range(1, len(s) - 1) if s[i] >= s[i - 1] and s[i] > s[i + 1]]
    print("  first maxima of s at t = " + ", ".join("%.2f" % t[i] for i in peaks[:6]) + " s")
    for tt in (1.0, 5.0, 10.0):
        i = int(round(tt / DT_OUT))
        print("  t = %4.1f s: s = %.12f m, shaft speed %.12f rad/s, theta = %.12f rad" % (t[i], s[i], y[4, i], y[2, i]))
    name = "a05_flyball_governor%s.csv" % ("_driven" if args.driven else "")
    write_csv(name, [
        "MBS benchmark A05 (stiff flyball governor): reduced 4-coordinate reference (docs/benchmarks.md#a05).",
        "Shaft %s; s = slider height (m), phi = shaft angle (rad), theta1/2 = rod angles below the horizontal (rad)," %
        ("held at 2 pi rad/s" if args.driven else "free, started at 2 pi rad/s"),
        "and rates; energy = kinetic + gravity + spring (J; the dampers dissipate it). Radau rtol = atol = 1e-12.",
    ], ["t", "s", "s_dot", "phi", "phi_dot", "theta1", "theta2", "theta1_dot", "theta2_dot", "energy"],
        np.column_stack([t, y[1], y[5], y[0], y[4], y[2], y[3], y[6], y[7], en]))


if __name__ == "__main__":
    main()
