#!/usr/bin/env python3
"""Convergence study of the singular benchmark A02 (N four-bar, docs/benchmarks.md#a02): error of
B0 (x, y) against the reference vs the time step of a fixed-step method and vs the tolerance of
the adaptive ones, by running `gmbd run` once per cell and comparing its HDF5 result with
examples/benchmarks/reference/a02_n_four_bar_N{N}.csv.

Usage:
  convergence_study.py [--n 1 2 40] [--gmbd PATH] [--csv OUT.csv] [--plot OUT.png]
                       [--dts 1e-2,5e-3,...] [--rk45-tols ...] [--implicit-tols ...]
                       [--methods rk4,rk45,ida,cvode-bdf] [--timeout S] [--resume] [--plot-only]

Defaults: N = 1, 2, 40; rk4 + DSC over dt = 1e-2, 5e-3, 2e-3, 1e-3, 5e-4, 2e-4, 1e-4, 5e-5 (every
dt divides the 0.05 s output interval); rk45 over rtol = atol = 1e-6 … 1e-12; ida and cvode-bdf
over 1e-6 … 1e-11 (adaptive methods: the run file's max step, i.e. none). The stabilisation is
the run file's (DSC). Writes docs/figures/n_four_bar_convergence.csv (one row per run, appended
as each run ends, so --resume continues an interrupted study) and
docs/figures/n_four_bar_convergence.png (error vs dt, error vs tolerance, with reference slopes).

Columns: N, integrator, stabilization, dt (fixed step; empty for adaptive), tolerance (rtol = atol;
empty for fixed step), status (ok / failed / timeout), failure (gmbd's reason), end_time, rows,
compared_rows (result rows at a reference time), error (max over those rows of
max(|B0x - ref|, |B0y - ref|), m), error_velocity (the same for dB0/dt, m/s), energy_error
(max |E - E(0)|, J), max_correction, max_position_residual, steps, rejected_steps,
rhs_evaluations, wall_seconds, order (observed order against the previous cell of the same N and
integrator: log(e1/e2)/log(x1/x2), x = dt or tolerance).

This is the Python stand-in for (and gives the same errors as)
  gmbd drift examples/benchmarks/a02_n_four_bar_nN.yaml --integrator rk4 --stabilization dsc \
      --dt ... --reference examples/benchmarks/reference/a02_n_four_bar_NN.csv \
      --compare B0_pos.x=B0_x,B0_pos.y=B0_y
(B0_pos: the model files' derived output of B0; `--integrator rk45 --tolerance ...` for the
tolerance cells). It adds the velocity error and reports a failed run's error over the rows it
reached (gmbd drift reports the completed runs' maxima). A run longer than --timeout gets SIGINT,
stops within a step and keeps its rows ("stopped at t = ... s"). Needs numpy, h5py, matplotlib
(Debian's /usr/bin/python3).
"""
import argparse
import csv
import math
import os
import re
import signal
import subprocess
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import REPO, read_csv  # noqa: E402

try:
    import h5py
except ImportError:  # pragma: no cover
    sys.exit("convergence_study.py needs python3-h5py")

COLUMNS = ["N", "integrator", "stabilization", "dt", "tolerance", "status", "failure", "end_time", "rows",
           "compared_rows", "error", "error_velocity", "energy_error", "max_correction",
           "max_position_residual", "steps", "rejected_steps", "rhs_evaluations", "wall_seconds", "order"]
DEFAULT_DTS = "1e-2,5e-3,2e-3,1e-3,5e-4,2e-4,1e-4,5e-5"
DEFAULT_RK45 = "1e-6,1e-7,1e-8,1e-9,1e-10,1e-11,1e-12"
DEFAULT_IMPLICIT = "1e-6,1e-7,1e-8,1e-9,1e-10,1e-11"
ADAPTIVE = {"rk45", "bs32", "ida", "ida-index3", "cvode-bdf", "cvode-adams"}


def floats(text):
    return [float(x) for x in text.split(",") if x.strip()]


def crank0_tip(q, v, names):
    """B0 = crank0 centre + (L/2)(cos, sin)(theta) with L = 1 m, and its velocity."""
    i = names.index
    x, y, th = q[:, i("crank0.x")], q[:, i("crank0.y")], q[:, i("crank0.theta")]
    vx, vy, w = v[:, i("crank0.x")], v[:, i("crank0.y")], v[:, i("crank0.theta")]
    c, s = np.cos(th), np.sin(th)
    return x + 0.5 * c, y + 0.5 * s, vx - 0.5 * w * s, vy + 0.5 * w * c


def match_rows(t, t_ref):
    """(result rows, reference rows) at equal times, |dt| <= 1e-9 max(1, |t|); as gmbd drift."""
    ir, jr = [], []
    j = 0
    for i, tr in enumerate(t_ref):
        tol = 1e-9 * max(1.0, abs(tr))
        while j < len(t) and t[j] < tr - tol:
            j += 1
        if j < len(t) and abs(t[j] - tr) <= tol:
            ir.append(j)
            jr.append(i)
    return np.array(ir, dtype=int), np.array(jr, dtype=int)


def summary_number(text, pattern):
    m = re.search(pattern, text)
    return float(m.group(1)) if m else math.nan


def run_cell(args, n, method, dt, tol, workdir):
    run_file = os.path.join(REPO, "examples", "benchmarks", "a02_n_four_bar_n%d.yaml" % n)
    h5 = os.path.join(workdir, "n%d_%s_%s.h5" % (n, method, ("dt%g" % dt) if dt else ("tol%g" % tol)))
    cmd = [args.gmbd, "-q", "run", run_file, "-o", h5, "--set", "integrator.method=" + method]
    if dt:
        cmd += ["--set", "integrator.dt=%r" % dt]
    else:
        cmd += ["--set", "integrator.rtol=%r" % tol, "--set", "integrator.atol=%r" % tol]
    row = {"N": n, "integrator": method, "stabilization": "dsc", "dt": dt or "", "tolerance": tol or ""}
    if os.path.exists(h5):
        os.remove(h5)
    for _ in range(60):  # a rebuild replaces the executable: wait for it (up to a minute)
        if os.access(args.gmbd, os.X_OK):
            break
        time.sleep(1)
    start = time.monotonic()
    # On --timeout gmbd gets SIGINT: it stops within a step and keeps its rows (the error over
    # the rows it reached, and where it got stuck, stay visible); SIGKILL after 30 s more.
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        out, _ = proc.communicate(timeout=args.timeout)
        code = proc.returncode
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGINT)
        try:
            out, _ = proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, _ = proc.communicate()
        code = None
    elapsed = time.monotonic() - start
    row["status"] = "ok" if code == 0 else ("timeout" if code is None else "failed")
    reason = re.search(r"reason\s+(.*)", out)
    if code is None:
        stopped = re.search(r"interrupted at t = ([-+0-9.eE]+) s", out)
        row["failure"] = "no result within %g s (--timeout)%s" % (
            args.timeout, ": stopped at t = %s s" % stopped.group(1) if stopped else "")
    elif code != 0:
        row["failure"] = reason.group(1).strip() if reason else out.strip().splitlines()[-1] if out.strip() else "exit %d" % code
    else:
        row["failure"] = ""
    row["steps"] = summary_number(out, r"rows, (\d+) steps")
    row["rejected_steps"] = summary_number(out, r"steps \((\d+) rejected\)")
    row["rhs_evaluations"] = summary_number(out, r"(\d+) rhs evaluations")
    row["wall_seconds"] = summary_number(out, r"in ([0-9.]+) s wall")
    if math.isnan(row["wall_seconds"]):
        row["wall_seconds"] = elapsed
    row["max_correction"] = summary_number(out, r"max correction\s+([-+0-9.eE]+)")
    row["max_position_residual"] = summary_number(out, r"max \|g\|\s+([-+0-9.eE]+)")
    for key in ("end_time", "rows", "compared_rows", "error", "error_velocity", "energy_error"):
        row[key] = math.nan
    if os.path.exists(h5):
        try:
            with h5py.File(h5, "r") as f:
                names = [x.decode() if isinstance(x, bytes) else str(x) for x in f["q"].attrs["coordinates"]]
                t, q, v = f["time"][:], f["q"][:], f["v"][:]
                e = f["energy"][:] if "energy" in f else None
            row["rows"] = len(t)
            if len(t):
                row["end_time"] = t[-1]
                bx, by, bvx, bvy = crank0_tip(q, v, names)
                _, ref = read_csv("a02_n_four_bar_N%d.csv" % n)
                ir, jr = match_rows(t, ref[:, 0])
                row["compared_rows"] = len(ir)
                if len(ir):
                    row["error"] = max(np.max(np.abs(bx[ir] - ref[jr, 1])), np.max(np.abs(by[ir] - ref[jr, 2])))
                    row["error_velocity"] = max(np.max(np.abs(bvx[ir] - ref[jr, 3])),
                                                np.max(np.abs(bvy[ir] - ref[jr, 4])))
                if e is not None:
                    row["energy_error"] = float(np.max(np.abs(e - e[0])))
        except (OSError, KeyError) as exc:  # a run that failed before its first row
            row["failure"] = (row["failure"] + "; " if row["failure"] else "") + "result unreadable: %s" % exc
        if not args.keep:
            os.remove(h5)
    return row


def fmt(x):
    if isinstance(x, float):
        return "" if math.isnan(x) else "%.10g" % x
    return str(x)


def add_orders(rows):
    """Observed order between successive cells of one (N, integrator): log(e1/e2)/log(x1/x2)."""
    last = {}
    for r in rows:
        key = (str(r["N"]), r["integrator"])
        x = as_float(r["dt"]) if r["dt"] not in ("", None) else as_float(r["tolerance"])
        e = as_float(r["error"]) if r["status"] == "ok" else math.nan
        r["order"] = math.nan
        if key in last:
            x0, e0 = last[key]
            if e0 > 0 and e > 0 and x0 > 0 and x > 0 and x0 != x:
                r["order"] = math.log(e0 / e) / math.log(x0 / x)
        last[key] = (x, e)
    return rows


def as_float(s):
    try:
        return float(s)
    except (TypeError, ValueError):
        return math.nan


def read_rows(path):
    if not os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def write_rows(path, rows):
    tmp = path + ".partial"
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, COLUMNS)
        w.writeheader()
        for r in rows:
            w.writerow({k: fmt(r.get(k, "")) for k in COLUMNS})
    os.replace(tmp, path)


def print_table(rows):
    print("%3s %-10s %9s %9s %-7s %10s %10s %10s %10s %7s %8s %6s" % (
        "N", "method", "dt", "tol", "status", "error [m]", "vel [m/s]", "|dE| [J]", "max corr",
        "steps", "wall [s]", "order"))
    for r in rows:
        def g(k):
            x = as_float(r[k])
            return "-" if math.isnan(x) else "%.3e" % x
        order = as_float(r["order"])
        print("%3s %-10s %9s %9s %-7s %10s %10s %10s %10s %7s %8.2f %6s" % (
            r["N"], r["integrator"], r["dt"] or "-", r["tolerance"] or "-", r["status"], g("error"),
            g("error_velocity"), g("energy_error"), g("max_correction"),
            "%d" % as_float(r["steps"]) if not math.isnan(as_float(r["steps"])) else "-",
            as_float(r["wall_seconds"]), "-" if math.isnan(order) else "%.2f" % order))
        if r["status"] != "ok":
            print("      %s" % r["failure"])


def plot(rows, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ns = sorted({int(r["N"]) for r in rows})
    colours = {n: c for n, c in zip(ns, ["tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple"])}
    styles = {"rk45": "-o", "ida": "--s", "cvode-bdf": ":^", "cvode-adams": "-.D", "bs32": "-v", "ida-index3": "--P"}
    fig, (ax1, ax2, ax3) = plt.subplots(1, 3, figsize=(18, 5.6))

    def series(method, n, xkey):
        pts = [(as_float(r[xkey]), as_float(r["error"]), r["status"], as_float(r["wall_seconds"]))
               for r in rows if r["integrator"] == method and int(r["N"]) == n]
        return sorted(pts)

    fixed = sorted({r["integrator"] for r in rows if r["dt"]})
    adaptive = sorted({r["integrator"] for r in rows if r["tolerance"]})
    for method in fixed:
        for n in ns:
            pts = series(method, n, "dt")
            good = [(x, e) for x, e, s, _ in pts if s == "ok" and e > 0]
            if good:
                ax1.loglog(*zip(*good), "-o", color=colours[n], label="%s N = %d" % (method, n))
            for x, e, s, _ in pts:
                if s != "ok":
                    ax1.loglog([x], [e if e > 0 else 1.0], "x", color=colours[n], ms=10, mew=2)
    good = [(as_float(r["dt"]), as_float(r["error"])) for r in rows if r["dt"] and r["status"] == "ok"
            and as_float(r["error"]) > 0]
    if good:
        # reference slopes through the best point at the smallest dt
        x0 = min(x for x, _ in good)
        e0 = min(e for x, e in good if x == x0)
        xs = np.array([x0, max(x for x, _ in good)])
        ax1.loglog(xs, e0 * (xs / x0) ** 4, "k--", lw=1, label="slope 4 (RK4)")
        ax1.loglog(xs, e0 * (xs / x0) ** 1, "k:", lw=1, label="slope 1")
    ax1.set_xlabel("dt [s]")
    ax1.set_ylabel("max |B0 - B0_ref| [m]")
    ax1.set_title("fixed step (DSC): error vs dt")
    for method in adaptive:
        for n in ns:
            pts = series(method, n, "tolerance")
            good = [(x, e) for x, e, s, _ in pts if s == "ok" and e > 0]
            style = styles.get(method, "-o")
            if good:
                ax2.loglog(*zip(*good), style, color=colours[n], label="%s N = %d" % (method, n))
            for x, e, s, _ in pts:
                if s != "ok":
                    ax2.loglog([x], [e if e > 0 and not math.isnan(e) else 10.0], "x", color=colours[n], ms=10, mew=2)
            cost = [(w, e) for _, e, s, w in pts if s == "ok" and e > 0]
            if cost:
                ax3.loglog(*zip(*sorted(cost)), style, color=colours[n], label="%s N = %d" % (method, n))
        cost = []
    for n in ns:
        for method in fixed:
            cost = sorted((w, e) for _, e, s, w in series(method, n, "dt") if s == "ok" and e > 0)
            if cost:
                ax3.loglog(*zip(*cost), "-*", color=colours[n], alpha=0.6, label="%s N = %d" % (method, n))
    tols = sorted({as_float(r["tolerance"]) for r in rows if r["tolerance"]})
    top = [as_float(r["error"]) for r in rows if r["tolerance"] and as_float(r["tolerance"]) == (tols[-1] if tols else 0)
           and r["status"] == "ok" and as_float(r["error"]) > 0]
    if tols and top:
        # slope 1 through the geometric mean of the errors at the largest tolerance
        t = np.array([tols[0], tols[-1]])
        e0 = math.exp(sum(math.log(e) for e in top) / len(top))
        ax2.loglog(t, e0 * t / tols[-1], "k--", lw=1, label="slope 1")
    ax2.set_xlabel("rtol = atol")
    ax2.set_ylabel("max |B0 - B0_ref| [m]")
    ax2.set_title("adaptive (DSC): error vs tolerance (x: failed)")
    ax3.set_xlabel("wall time [s]")
    ax3.set_ylabel("max |B0 - B0_ref| [m]")
    ax3.set_title("cost: error vs wall time")
    for ax in (ax1, ax2, ax3):
        ax.grid(True, which="major", alpha=0.3)
        ax.legend(fontsize=7)
    fig.suptitle("A02 N four-bar (singular at every horizontal pass), 20 s: B0 error vs the reference")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    print("plot written to %s" % path)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, nargs="+", default=[1, 2, 40])
    ap.add_argument("--gmbd", default=os.environ.get("GMBD", os.path.join(REPO, "build", "release", "apps", "gmbd", "gmbd")))
    ap.add_argument("--csv", default=os.path.join(REPO, "docs", "figures", "n_four_bar_convergence.csv"))
    ap.add_argument("--plot", default=os.path.join(REPO, "docs", "figures", "n_four_bar_convergence.png"))
    ap.add_argument("--dts", default=DEFAULT_DTS)
    ap.add_argument("--rk45-tols", default=DEFAULT_RK45)
    ap.add_argument("--implicit-tols", default=DEFAULT_IMPLICIT)
    ap.add_argument("--methods", default="rk4,rk45,ida,cvode-bdf")
    ap.add_argument("--timeout", type=float, default=1800.0, help="seconds per run")
    ap.add_argument("--workdir", default="/tmp/gmbd_convergence")
    ap.add_argument("--keep", action="store_true", help="keep the HDF5 results in --workdir")
    ap.add_argument("--resume", action="store_true", help="skip the cells already in --csv")
    ap.add_argument("--plot-only", action="store_true")
    args = ap.parse_args()

    rows = read_rows(args.csv) if (args.resume or args.plot_only) else []
    if not args.plot_only:
        os.makedirs(args.workdir, exist_ok=True)
        done = {(str(r["N"]), r["integrator"], fmt(as_float(r["dt"])) if r["dt"] else "",
                 fmt(as_float(r["tolerance"])) if r["tolerance"] else "") for r in rows}
        plan = []
        methods = args.methods.split(",")
        for n in args.n:
            for method in methods:
                if method in ADAPTIVE:
                    tols = floats(args.rk45_tols if method in ("rk45", "bs32") else args.implicit_tols)
                    plan += [(n, method, None, tol) for tol in tols]
                else:
                    plan += [(n, method, dt, None) for dt in floats(args.dts)]
        for n, method, dt, tol in plan:
            key = (str(n), method, fmt(dt) if dt else "", fmt(tol) if tol else "")
            if key in done:
                continue
            print("N = %d %s %s ..." % (n, method, ("dt = %g" % dt) if dt else ("tol = %g" % tol)), flush=True)
            row = run_cell(args, n, method, dt, tol, args.workdir)
            rows.append({k: fmt(row.get(k, "")) for k in COLUMNS})
            print("   %s error %s m, %s s%s" % (row["status"], fmt(row["error"]), fmt(row["wall_seconds"]),
                                               (": " + row["failure"]) if row["failure"] else ""), flush=True)
            write_rows(args.csv, add_orders(sorted_rows(rows)))
    rows = add_orders(sorted_rows(rows))
    write_rows(args.csv, rows)
    print_table(rows)
    print("table written to %s" % args.csv)
    if args.plot:
        plot(rows, args.plot)


def sorted_rows(rows):
    """N, integrator (in study order), then dt / tolerance decreasing."""
    order = {"rk4": 0, "rk45": 1, "ida": 2, "cvode-bdf": 3}
    return sorted(rows, key=lambda r: (int(r["N"]), order.get(r["integrator"], 9), r["integrator"],
                                       -(as_float(r["dt"]) if r["dt"] else as_float(r["tolerance"]))))


if __name__ == "__main__":
    main()
