#!/usr/bin/python3
# Peer benchmark: the GaussMBD GPLC RIS XYθ model (models/ris_gplc.cpp) re-implemented in Python/NumPy
# (KKT solve by numpy.linalg.solve, RK4 + explicit DSC at 5 ms) to time against `gmbd run`.
"""Python/NumPy peer of `gmbd run examples/ris_xytheta_building.yaml` (issue "Performance", item 2).

The same equations as the C++ model, written as a NumPy user would:
  * model: models/ris.cpp, models/ris_gplc.cpp (ris_xytheta, docs/reference-models.md §1): 27
    coordinates q = [X, Y, θ, xb1, yb1, …, xb4, yb4, r1..r4, xt1, yt1, …, xt4, yt4, q1..q4],
    16 holonomic rows (phi_r, phi_q, phi_c x/y) and 8 non-holonomic rows (psi x/y), M = diag(m, m, J)
    on (X, Y, θ), dish-potential forces on r, q, rolling resistance on (xb, yb) and (xt, yt);
  * acceleration (core/kkt.hpp, docs/theory.md §1): at every RK4 stage assemble M, f, A = [G; H], b
    and solve [M Aᵀ; A 0][a; λ] = [f; b] with numpy.linalg.solve, with the two things GaussMBD's
    KktSolver also does: constraint rows scaled to unit norm, and a coordinate whose column of
    [M; A] is exactly zero removed together with the all-zero rows of A (a ball exactly at its
    dish centre: r_i = xb_i = yb_i = 0), its acceleration set to 0 (the minimum-norm solution);
  * integration (integrators/explicit_rk.cpp, constraints/stabilized_dynamics.cpp): classical RK4
    at a fixed step with Direct State Correction = the model's explicit (closed-form) correction
    RisGplc::explicit_correction, applied to the initial state, to every stage state Y2..Y4
    before it is evaluated, and to every step result;
  * floor input (io/motion_formats.cpp, io/motion.cpp, core/signal.hpp): the USGS SMC record read
    by fixed-width columns, cm/s² × 0.01, scaled so that its peak sample is exactly
    peak_g × 9.80665 m/s², linearly interpolated between samples at t = k·dt, zero outside;
  * outputs (RisGplc::derived_outputs, simulation/run_driver.cpp): evaluated at every output time
    (0.01 s) on the step state; peaks are max |value| over the output rows (first time).

Needs NumPy: this file runs with Debian's /usr/bin/python3 (apt-get install python3-numpy); a
pyenv `python3` on PATH may not see Debian's dist-packages, hence the shebang.

Usage (from the repository root):
    /usr/bin/python3 bench/peers/ris_numpy.py [--duration 40] [--dt 0.005] [--csv out.csv]
"""
import argparse
import math
import os
import sys
import time

import numpy as np

# ---- parameters (RisParameters defaults, examples/ris_xytheta_building.yaml: b0 = 0.08) ------

A0, A1, A2, A3, A4, R_DISH = 0.01, 0.10, 0.0001, 0.0005, 0.0, 0.15  # dish profile (RisDish)
MASS, INERTIA = 500.0, 67.5  # platform m (kg), J (kg·m²)
HALF_A, HALF_B = 0.3, 0.3  # dish-centre half-spacings (m)
GRAVITY = 9.81  # the model's g (m/s²)
B0, B1, V0, RHO_DEAD = 0.08, 0.0, 0.005, 0.0  # rolling resistance μ(ρ), velocity scale v0
WEIGHT = MASS * GRAVITY
G0 = 9.80665  # standard gravity of the run file's peak_g (m/s²)

# Dish centres a_i = (a, −a, −a, a), b_i = (b, b, −b, −b).
AI = np.array([HALF_A, -HALF_A, -HALF_A, HALF_A])
BI = np.array([HALF_B, HALF_B, -HALF_B, -HALF_B])

# ---- coordinate and row indices (RisGplc, variant XYθ) --------------------------------------

NQ, NH, NN = 27, 16, 8
NC = NH + NN  # constraint rows: 16 holonomic, then 8 non-holonomic
IX, IY, ITH = 0, 1, 2
BALL = np.arange(4)
IXB, IYB = 3 + 2 * BALL, 4 + 2 * BALL
IR = 11 + BALL
IXT, IYT = 15 + 2 * BALL, 16 + 2 * BALL
IQ = 23 + BALL
ROW_R, ROW_Q = BALL, 4 + BALL  # phi_r<i>, phi_q<i>
ROW_CX, ROW_CY = 8 + 2 * BALL, 9 + 2 * BALL  # phi_c<i>x, phi_c<i>y
ROW_PX, ROW_PY = NH + 2 * BALL, NH + 1 + 2 * BALL  # psi<i>x, psi<i>y

# The entries of A that change with the state, as one (row, column) index list each, so that A
# is filled by a single fancy-indexed assignment; the constant ±1, −½ entries are set once.
A_ROWS = np.concatenate([ROW_R, ROW_R, ROW_R, ROW_Q, ROW_Q, ROW_Q, ROW_CX, ROW_CY, ROW_PX, ROW_PY])
A_COLS = np.concatenate([IR, IXB, IYB, IQ, IXT, IYT, [ITH] * 4, [ITH] * 4, [ITH] * 4, [ITH] * 4])
A_CONST = np.zeros((NC, NQ))
A_CONST[ROW_CX, IXT], A_CONST[ROW_CX, IXB], A_CONST[ROW_CX, IX] = 1.0, -1.0, 1.0
A_CONST[ROW_CY, IYT], A_CONST[ROW_CY, IYB], A_CONST[ROW_CY, IY] = 1.0, -1.0, 1.0
A_CONST[ROW_PX, IXB], A_CONST[ROW_PX, IX] = 1.0, -0.5
A_CONST[ROW_PY, IYB], A_CONST[ROW_PY, IY] = 1.0, -0.5
M_DIAG = np.zeros(NQ)
M_DIAG[[IX, IY, ITH]] = MASS, MASS, INERTIA
M_MAT = np.diag(M_DIAG)

# ---- dish profile (RisDish) ----------------------------------------------------------------


def dish_height(r):
    """h(r) = a0·a1·ln cosh(r/a0) + a2 ρ² + a3 |ρ|³ (+ a4 ρ⁶⁰), ρ = r/R."""
    x = np.abs(r) / A0
    lncosh = x + np.log1p(np.exp(-2.0 * x)) - math.log(2.0)
    rho = np.abs(r) / R_DISH
    h = A0 * A1 * lncosh + A2 * rho * rho + A3 * rho * rho * rho
    return h + A4 * rho**60 if A4 != 0.0 else h


def dish_slope(r):
    """h'(r): odd, exactly 0 at r = 0."""
    rho = r / R_DISH
    s = A1 * np.tanh(r / A0) + (2.0 * A2 / R_DISH) * rho + (3.0 * A3 / R_DISH) * rho * np.abs(rho)
    return s + (60.0 * A4 / R_DISH) * rho**59 if A4 != 0.0 else s


def dish_curvature(r):
    """h''(r) = (a1/a0) sech²(r/a0) + 2 a2/R² + (6 a3/R²)|ρ| (+ lip)."""
    e = np.exp(-2.0 * np.abs(r) / A0)
    sech2 = 4.0 * e / ((1.0 + e) * (1.0 + e))
    rho = r / R_DISH
    c = (A1 / A0) * sech2 + 2.0 * A2 / (R_DISH * R_DISH) + (6.0 * A3 / (R_DISH * R_DISH)) * np.abs(rho)
    return c + (3540.0 * A4 / (R_DISH * R_DISH)) * rho**58 if A4 != 0.0 else c


def rolling_force(rho, ux, uy):
    """F = −(W/4) μ(ρ) tanh(s/v0) u/s per ball and dish (0 at s = 0); returns (fx, fy)."""
    mu = np.where(rho < RHO_DEAD, 0.0, np.maximum(0.0, B0 + B1 * rho))
    s = np.hypot(ux, uy)
    active = (mu != 0.0) & (s != 0.0)
    k = np.zeros(4)
    k[active] = -0.25 * WEIGHT * mu[active] * np.tanh(s[active] / V0) / s[active]
    return k * ux, k * uy


# ---- floor input ----------------------------------------------------------------------------


def read_smc(path):
    """USGS SMC corrected accelerogram → (dt, acceleration in m/s²), split by columns."""
    with open(path, "r", encoding="latin-1", newline=None) as fh:
        lines = [ln.rstrip("\r\n") for ln in fh]

    def fixed(start, count, per_line, width):
        values, li = [], start
        while len(values) < count:
            line = lines[li]
            for j in range(min(per_line, count - len(values))):
                values.append(float(line[j * width:(j + 1) * width]))
            li += 1
        return values, li

    if "ACCELEROGRAM" not in lines[0].upper():
        sys.exit(f"{path}: not a USGS SMC accelerogram")
    ints, li = fixed(11, 48, 8, 10)  # 11 text lines, then 6 lines of 8I10
    reals, li = fixed(li, 50, 5, 15)  # 10 lines of 5E15.7
    ncomments, npts, sps = int(ints[15]), int(ints[16]), reals[1]
    li += ncomments  # comment lines "|…"
    data, _ = fixed(li, npts, 8, 10)  # 8E10.4, cm/s²
    return 1.0 / sps, np.array(data) * 0.01


def scale_to_peak(acc, target):
    """a ← a·target/peak; the peak sample becomes exactly ±target (io/motion.cpp)."""
    peak = np.max(np.abs(acc))
    out = acc * (target / peak)
    out[np.abs(acc) == peak] = np.copysign(target, acc[np.abs(acc) == peak])
    return out


class SampledSignal:
    """Linear interpolation of samples u_k at k·dt, zero outside the record (core/signal.hpp)."""

    def __init__(self, dt, samples):
        self.dt, self.u = dt, [float(x) for x in samples]

    def __call__(self, t):
        s = t / self.dt
        if not s >= 0.0:
            return 0.0
        k = int(s)
        n = len(self.u)
        if k + 1 >= n:
            return self.u[k] if (k + 1 == n and s == float(k)) else 0.0
        w = s - k
        return (1.0 - w) * self.u[k] + w * self.u[k + 1]


# ---- the model ------------------------------------------------------------------------------


class RisXYTheta:
    """GPLC RIS XYθ: KKT right-hand side, explicit correction, derived outputs."""

    def __init__(self, floor_x):
        self.floor_x = floor_x  # floor_y is absent in the example: zero
        n = NQ + NC
        self.K = np.zeros((n, n))
        self.rhs = np.zeros(n)
        self.A = A_CONST.copy()

    def floor_y(self, t):
        return 0.0

    def acceleration(self, t, q, v):
        """Assemble M, f, A, b at (t, q, v) and solve the KKT system; returns a (NQ)."""
        th, thd = q[ITH], v[ITH]
        s, c = math.sin(th), math.cos(th)
        xb, yb, r = q[IXB], q[IYB], q[IR]
        xt, yt, qq = q[IXT], q[IYT], q[IQ]
        xbd, ybd, rd = v[IXB], v[IYB], v[IR]
        xtd, ytd, qd = v[IXT], v[IYT], v[IQ]

        # f: floor inertia, dish potential −¼ m g h'(r_i), rolling resistance
        f = np.zeros(NQ)
        f[IX] = -MASS * self.floor_x(t)
        f[IY] = -MASS * self.floor_y(t)
        f[IR] = -0.25 * WEIGHT * dish_slope(r)
        f[IQ] = -0.25 * WEIGHT * dish_slope(qq)
        f[IXB], f[IYB] = rolling_force(np.abs(r), xbd, ybd)
        fx, fy = rolling_force(np.abs(qq), xtd, ytd)
        f[IXT] += fx
        f[IYT] += fy

        # A = [G; H]: the state-dependent entries (the rest is constant)
        A = self.A
        A[A_ROWS, A_COLS] = np.concatenate([
            2.0 * r, -2.0 * xb, -2.0 * yb,  # phi_r: [2r, −2xb, −2yb]
            2.0 * qq, -2.0 * xt, -2.0 * yt,  # phi_q
            -AI * s - BI * c,  # phi_c x: ∂/∂θ
            AI * c - BI * s,  # phi_c y: ∂/∂θ
            0.5 * (BI + yb - q[IY]),  # psi x: ∂/∂θ
            -0.5 * (AI + xb - q[IX]),  # psi y: ∂/∂θ
        ])
        # b = −(∂(A v)/∂q) v
        b = np.concatenate([
            -2.0 * (rd * rd - xbd * xbd - ybd * ybd),
            -2.0 * (qd * qd - xtd * xtd - ytd * ytd),
            np.column_stack([(AI * c - BI * s) * thd * thd, (AI * s + BI * c) * thd * thd]).ravel(),
            np.column_stack([-0.5 * thd * (ybd - v[IY]), 0.5 * thd * (xbd - v[IX])]).ravel(),
        ])

        # Unit-norm constraint rows: [M (SA)ᵀ; SA 0][a; λ'] = [f; S b].
        norms = np.sqrt(np.einsum("ij,ij->i", A, A))
        zero_rows = norms == 0.0
        scale = 1.0 / np.where(zero_rows, 1.0, norms)
        As = A * scale[:, None]
        bs = b * scale

        K, rhs = self.K, self.rhs
        K[:NQ, :NQ] = M_MAT
        K[:NQ, NQ:] = As.T
        K[NQ:, :NQ] = As
        rhs[:NQ] = f
        rhs[NQ:] = bs
        if not zero_rows.any():
            return np.linalg.solve(K, rhs)[:NQ]

        # A ball exactly at its dish centre: the r_i column of [M; A] and the phi_r<i> row of A are
        # exactly zero. Drop them (acceleration 0, multiplier 0) and solve the rest.
        zero_cols = (M_DIAG == 0.0) & ~np.any(A != 0.0, axis=0)
        keep = np.concatenate([~zero_cols, ~zero_rows])
        if np.any(np.abs(f[zero_cols]) > 1e-9 * (1.0 + np.abs(f).max())) or np.any(
                np.abs(b[zero_rows]) > 1e-9 * (1.0 + np.abs(b).max())):
            raise FloatingPointError(f"singular KKT matrix at t = {t}")
        sol = np.zeros(NQ + NC)
        sol[keep] = np.linalg.solve(K[np.ix_(keep, keep)], rhs[keep])
        return sol[:NQ]

    @staticmethod
    def correct(q, v):
        """Explicit DSC (RisGplc::explicit_correction): X, Y, θ, xb, yb and Ẋ, Ẏ, θ̇ are kept;
        xt, yt from phi_c, r, q as norms; ball rates from ψ, d/dt phi_c and d/dt phi_r."""
        X, Y, th = q[IX], q[IY], q[ITH]
        Xd, Yd, thd = v[IX], v[IY], v[ITH]
        s, c = math.sin(th), math.cos(th)
        sh = math.sin(0.5 * th)
        cm1 = -2.0 * sh * sh  # cos θ − 1 without cancellation
        xb, yb = q[IXB], q[IYB]
        xt = xb - X - (cm1 * AI - s * BI)
        yt = yb - Y - (s * AI + cm1 * BI)
        r = np.hypot(xb, yb)
        qq = np.hypot(xt, yt)
        q[IXT], q[IYT], q[IR], q[IQ] = xt, yt, r, qq
        xbd = 0.5 * (Xd - thd * (BI + yb - Y))
        ybd = 0.5 * (Yd + thd * (AI + xb - X))
        xtd = xbd - Xd + (AI * s + BI * c) * thd
        ytd = ybd - Yd - (AI * c - BI * s) * thd
        v[IXB], v[IYB], v[IXT], v[IYT] = xbd, ybd, xtd, ytd
        # ṙ = (xb ẋb + yb ẏb)/r, or the ball's speed at r == 0; likewise q̇
        rz, qz = r == 0.0, qq == 0.0
        v[IR] = np.where(rz, np.hypot(xbd, ybd), (xb * xbd + yb * ybd) / np.where(rz, 1.0, r))
        v[IQ] = np.where(qz, np.hypot(xtd, ytd), (xt * xtd + yt * ytd) / np.where(qz, 1.0, qq))

    def outputs(self, t, q, v, a):
        """RisGplc::derived_outputs, XYθ: 11 quantities."""
        ax, ay = a[IX] + self.floor_x(t), a[IY] + self.floor_y(t)
        r, qq, rd, qd = q[IR], q[IQ], v[IR], v[IQ]
        hdd = 0.25 * np.sum(dish_slope(r) * a[IR] + dish_curvature(r) * rd * rd +
                            dish_slope(qq) * a[IQ] + dish_curvature(qq) * qd * qd)
        rmax = max(0.0, r.max(), qq.max())
        fxb, fyb = rolling_force(np.abs(r), v[IXB], v[IYB])
        fxt, fyt = rolling_force(np.abs(qq), v[IXT], v[IYT])
        power = np.sum(fxb * v[IXB] + fyb * v[IYB] + fxt * v[IXT] + fyt * v[IYT])
        height = 0.25 * np.sum(dish_height(r) + dish_height(qq))
        return [ax, ay, math.hypot(ax, ay), hdd, math.hypot(q[IX], q[IY]), height, rmax,
                1.0 if rmax > R_DISH else 0.0, power, self.floor_x(t), self.floor_y(t)]


OUTPUT_NAMES = [("accel_x_total", "m/s^2"), ("accel_y_total", "m/s^2"),
                ("accel_horizontal", "m/s^2"), ("accel_vertical_total", "m/s^2"),
                ("drift", "m"), ("height", "m"), ("max_radius", "m"), ("rim_exceeded", "1"),
                ("resistance_power", "W"), ("floor_accel_x", "m/s^2"), ("floor_accel_y", "m/s^2")]

# ---- RK4 + DSC ------------------------------------------------------------------------------


def simulate(model, duration, dt, output_interval):
    """Fixed-step RK4 with DSC on stages and results (integrators/explicit_rk.cpp); returns the
    output rows (t, outputs...) every output_interval."""
    steps = int(round(duration / dt))
    per_row = int(round(output_interval / dt))
    z = np.zeros(2 * NQ)  # [q; v], the default initial state: everything at rest, balls centred
    q, v = z[:NQ], z[NQ:]  # views
    model.correct(q, v)  # initial_state() and the integrator's initial projection

    def rhs(t, y):
        return np.concatenate([y[NQ:], model.acceleration(t, y[:NQ], y[NQ:])])

    def project(y):
        model.correct(y[:NQ], y[NQ:])
        return y

    # RK4 tableau, coefficients formed as in the C++ (h·a_ij, h·b_j)
    b1, b2 = 1.0 / 6.0, 1.0 / 3.0
    rows = []
    for n in range(steps + 1):
        t = n * dt  # the grid time t0 + n·dt
        k1 = rhs(t, z)  # F at the projected step start (also the output evaluation)
        if n % per_row == 0 or n == steps:
            rows.append([t] + model.outputs(t, z[:NQ], z[NQ:], k1[NQ:]))
        if n == steps:
            break
        k2 = rhs(t + 0.5 * dt, project(z + (dt * 0.5) * k1))
        k3 = rhs(t + 0.5 * dt, project(z + (dt * 0.5) * k2))
        k4 = rhs(t + 1.0 * dt, project(z + (dt * 1.0) * k3))
        y = z + (dt * b1) * k1
        y += (dt * b2) * k2
        y += (dt * b2) * k3
        y += (dt * b1) * k4
        z = project(y)
    return rows


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    record = "NP1103_Berkeley2018_1103.HN2.NP.RE_a.smc"
    default_record = next((p for p in [os.path.join(here, "..", "..", "data", "motions", record),
                                       os.path.join(here, "..", "..", "..", "shared", "motions", record)]
                           if os.path.exists(p)), record)
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--duration", type=float, default=40.0, help="simulated seconds (default 40)")
    ap.add_argument("--dt", type=float, default=0.005, help="RK4 step (s, default 0.005)")
    ap.add_argument("--output-interval", type=float, default=0.01,
                    help="output rows every … s (a multiple of dt; default 0.01)")
    ap.add_argument("--record", default=default_record, help="USGS SMC floor record (floor_x)")
    ap.add_argument("--peak-g", type=float, default=0.3, help="scale the record to this peak (g)")
    ap.add_argument("--csv", help="write the output rows to this CSV file")
    args = ap.parse_args()

    rec_dt, acc = read_smc(args.record)
    model = RisXYTheta(SampledSignal(rec_dt, scale_to_peak(acc, G0 * args.peak_g)))

    wall0, cpu0 = time.perf_counter(), time.process_time()
    rows = simulate(model, args.duration, args.dt, args.output_interval)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0

    simulated = rows[-1][0]
    print(f"ris_numpy: GPLC RIS XYθ, RK4 + DSC, dt = {args.dt} s, NumPy {np.__version__}, "
          f"Python {sys.version.split()[0]}")
    print(f"  simulated         {simulated:.6g} s, {int(round(simulated / args.dt))} steps, "
          f"{len(rows)} rows")
    print(f"  wall              {wall:.3f} s")
    print(f"  CPU               {cpu:.3f} s")
    print(f"  CPU per simulated minute  {cpu * 60.0 / simulated:.3f} s")
    print("  peaks (max |value|, at time):")
    data = np.array(rows)
    for j, (name, unit) in enumerate(OUTPUT_NAMES):
        col = np.abs(data[:, 1 + j])
        k = int(np.argmax(col))  # first maximum, as simulation/run_driver.cpp (strict >)
        print(f"    {name:<26} {col[k]:.15g} {unit:<8} at t = {data[k, 0]:.4g} s")
    if args.csv:
        header = "time," + ",".join(name for name, _ in OUTPUT_NAMES)
        np.savetxt(args.csv, data, delimiter=",", header=header, comments="", fmt="%.17g")


if __name__ == "__main__":
    main()
