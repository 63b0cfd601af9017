#!/usr/bin/env python3
"""Reference for a torque-free asymmetric rigid body tumbling through pitch +-90 deg
(docs/benchmarks.md#torque-free): the case that defeats an Euler-angle (yaw-pitch-roll)
body and needs the quaternion body.

Body: mass 1 kg, principal inertia I = diag(0.3, 0.4, 0.5) kg m^2 in body axes, no forces
(no gravity), centre of mass at rest at the origin, body angular velocity w_b(0) =
(0.5, 0.3, 4.0) rad/s. It spins mostly about its major axis, which stays near the world y axis,
so the body x axis sweeps past the vertical (zyx pitch near +-90 deg) twice a turn. Starting
from Rx(-pi/2) (body z along world y), the x axis would pass the vertical at 0.054 deg at
t = 1.17 s; the initial attitude is therefore R0 = Q Rx(-pi/2), Q the small rotation (0.054 deg)
that aims that pass exactly at the vertical: at T_POLE the pitch is exactly -90 deg and the zyx
yaw and roll jump by pi (their rates are unbounded), which no Euler-angle body can integrate.
The script prints R0 as a quaternion and as zyx angles with their rates (the model files use
them).

Reference: Euler's equations I w_b' = -w_b x (I w_b) with the quaternion kinematics
q' = 1/2 q (x) (0, w_b) (q = (w, x, y, z), R(q) maps body to world), DOP853 at
rtol = atol = 1e-13. Checked against a second, independent integration of the rotation matrix
R' = R [w_b]x (same Euler equations), and by the invariants: kinetic energy 1/2 w_b.I w_b and
the world angular momentum R I w_b.

Usage: ref_torque_free_body.py
"""
import math

import numpy as np
from scipy.integrate import solve_ivp

from bench_common import write_csv

from scipy.optimize import minimize_scalar

INERTIA = np.array([0.3, 0.4, 0.5])
W0 = np.array([0.5, 0.3, 4.0])
T_END, DT_OUT = 5.0, 0.01
Q_BASE = np.array([math.cos(-math.pi / 4), math.sin(-math.pi / 4), 0.0, 0.0])  # Rx(-pi/2)


def euler_rhs(w):
    return -np.cross(w, INERTIA * w) / INERTIA


def quat_mul(a, b):
    w1, x1, y1, z1 = a
    w2, x2, y2, z2 = b
    return np.array([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2])


def quat_to_r(q):
    w, x, y, z = q / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def skew(w):
    return np.array([[0, -w[2], w[1]], [w[2], 0, -w[0]], [-w[1], w[0], 0]])


def r_to_quat(r):
    w = math.sqrt(max(0.0, 1 + r[0, 0] + r[1, 1] + r[2, 2])) / 2
    return np.array([w, (r[2, 1] - r[1, 2]) / (4 * w), (r[0, 2] - r[2, 0]) / (4 * w), (r[1, 0] - r[0, 1]) / (4 * w)])


def rodrigues(axis, angle):
    k = skew(axis / np.linalg.norm(axis))
    return np.eye(3) + math.sin(angle) * k + (1 - math.cos(angle)) * (k @ k)


def aimed_start():
    """Q0 = quaternion of Q Rx(-pi/2), Q aiming the body x axis exactly at the vertical at the
    instant of its closest pass near t = 1.17 s; returns (Q0, that instant)."""
    sol = solve_ivp(lambda _, y: np.concatenate([0.5 * quat_mul(y[:4], np.concatenate([[0.0], y[4:]])),
                                                 euler_rhs(y[4:])]),
                    (0.0, 1.5), np.concatenate([Q_BASE, W0]), method="DOP853", rtol=1e-13, atol=1e-13, dense_output=True)
    res = minimize_scalar(lambda tt: -abs(quat_to_r(sol.sol(tt)[:4])[2, 0]), bounds=(1.0, 1.3), method="bounded",
                          options={"xatol": 1e-12})
    t_pole = res.x
    d = quat_to_r(sol.sol(t_pole)[:4])[:, 0]
    target = np.array([0.0, 0.0, math.copysign(1.0, d[2])])
    axis = np.cross(d, target)
    q = rodrigues(axis, math.asin(min(1.0, np.linalg.norm(axis)))) @ quat_to_r(Q_BASE)
    return r_to_quat(q), t_pole


def zyx_angles(r):
    return math.atan2(r[1, 0], r[0, 0]), -math.asin(r[2, 0]), math.atan2(r[2, 1], r[2, 2])


def zyx_rates(angles, w):
    _, th, ph = angles
    wb = np.array([[-math.sin(th), 0, 1], [math.cos(th) * math.sin(ph), math.cos(ph), 0],
                   [math.cos(th) * math.cos(ph), -math.sin(ph), 0]])
    return np.linalg.solve(wb, w)


def main():
    q0, t_pole = aimed_start()
    r0 = quat_to_r(q0)
    ang0 = zyx_angles(r0)
    print("initial attitude R0 = Q Rx(-pi/2): q0 = (%.17g, %.17g, %.17g, %.17g)" % tuple(q0))
    print("  zyx angles (yaw, pitch, roll) = (%.17g, %.17g, %.17g) rad" % ang0)
    print("  zyx rates = (%.17g, %.17g, %.17g) rad/s; body x axis vertical at t = %.12f s"
          % (tuple(zyx_rates(ang0, W0)) + (t_pole,)))
    t = np.arange(0.0, T_END + DT_OUT / 2, DT_OUT)
    sol_q = solve_ivp(lambda _, y: np.concatenate([0.5 * quat_mul(y[:4], np.concatenate([[0.0], y[4:]])),
                                                   euler_rhs(y[4:])]),
                      (0.0, T_END), np.concatenate([q0, W0]), method="DOP853", rtol=1e-13, atol=1e-13, t_eval=t)
    sol_r = solve_ivp(lambda _, y: np.concatenate([(y[:9].reshape(3, 3) @ skew(y[9:])).ravel(), euler_rhs(y[9:])]),
                      (0.0, T_END), np.concatenate([r0.ravel(), W0]), method="DOP853", rtol=1e-13, atol=1e-13, t_eval=t)
    rows = []
    dr = 0.0
    for i in range(len(t)):
        q = sol_q.y[:4, i]
        w = sol_q.y[4:, i]
        r = quat_to_r(q)
        dr = max(dr, np.max(np.abs(r - sol_r.y[:9, i].reshape(3, 3))))
        lw = r @ (INERTIA * w)
        en = 0.5 * w @ (INERTIA * w)
        pitch = -math.asin(max(-1.0, min(1.0, r[2, 0])))
        rows.append([t[i], *(q / np.linalg.norm(q)), *r.ravel(), *w, en, *lw, pitch])
    rows = np.array(rows)
    lw = rows[:, 18:21]
    print("torque-free body: I = %s kg m^2, w_b(0) = %s rad/s" % (INERTIA.tolist(), W0.tolist()))
    print("  quaternion vs rotation-matrix integration: max |dR| = %.1e; max ||q|-1| = %.1e"
          % (dr, np.max(np.abs(np.linalg.norm(sol_q.y[:4], axis=0) - 1))))
    print("  energy %.15f J, drift %.1e J; world L = %s, drift %.1e kg m^2/s"
          % (rows[0, 17], np.max(np.abs(rows[:, 17] - rows[0, 17])), np.round(lw[0], 12).tolist(),
             np.max(np.abs(lw - lw[0]))))
    pitch = rows[:, 21]
    near = t[np.abs(pitch) > math.radians(89.0)]
    print("  zyx pitch: max |pitch| = %.4f deg; |pitch| > 89 deg near t = %s s"
          % (math.degrees(np.max(np.abs(pitch))), ", ".join("%.2f" % v for v in near[:12])))
    write_csv("torque_free_body.csv", [
        "Torque-free asymmetric rigid body (docs/benchmarks.md#torque-free): I = diag(0.3, 0.4, 0.5) kg m^2,",
        "R0 = Q Rx(-pi/2) (q0 = (%.12f, %.12f, %.12f, %.12f)), w_b(0) = (0.5, 0.3, 4.0) rad/s, no gravity;" % tuple(q0),
        "the body x axis is vertical (pitch -90 deg) at t = %.9f s. q = (qw, qx, qy, qz) body-to-world quaternion," % t_pole,
        "R_ij its rotation matrix (row i, column j), w_b body angular velocity (rad/s), energy (J), L world angular",
        "momentum (kg m^2/s, constant), pitch_zyx = -asin(R_20) (rad; +-pi/2 is the Euler-angle singularity).",
    ], ["t", "qw", "qx", "qy", "qz", "R00", "R01", "R02", "R10", "R11", "R12", "R20", "R21", "R22",
        "wx", "wy", "wz", "energy", "Lx", "Ly", "Lz", "pitch_zyx"], rows, fmt="%.14e")


if __name__ == "__main__":
    main()
