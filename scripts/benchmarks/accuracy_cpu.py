#!/usr/bin/env python3
"""Accuracy-vs-CPU table of the benchmark problems (docs/benchmarks.md#accuracy-vs-cpu): runs
`gmbd run` on each examples/benchmarks run file with several integrators and tolerances, compares
each result with its reference (compare_benchmark.py) and prints one Markdown row per run: the
largest error of the reference quantity, the energy drift, gmbd's wall time (its own
`wall_seconds`: integration only, no start-up), the steps, and the run's status.

Usage:
  accuracy_cpu.py [--gmbd PATH] [--only a01,a02,...] [--skip a04:ida,...] [--timeout S] [--out table.md]

Runs one case at a time (time them on an otherwise idle machine). A case that fails is listed
with gmbd's reason instead of an error; one that runs longer than --timeout (default 120 s) gets
SIGINT, stops within a step and is listed as "timeout" with how far it got. Needs numpy and h5py (Debian's /usr/bin/python3).
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile

import h5py

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_common import REPO  # noqa: E402

EX = os.path.join(REPO, "examples", "benchmarks")

# (problem label, compare key, run file, compare args, quantity label, [(integrator, settings)])
ADAPTIVE = [("rk45", {"integrator.rtol": r, "integrator.atol": r}) for r in ("1e-6", "1e-8", "1e-10")]
IMPLICIT = [(m, {"integrator.rtol": r, "integrator.atol": r}) for m in ("ida", "cvode-bdf")
            for r in ("1e-6", "1e-8")]
CASES = [
    ("A01", "a01", "a01_simple_pendulum.yaml", [], "P1, m",
     ADAPTIVE + IMPLICIT + [("rk4", {"integrator.dt": "1e-3"})]),
    ("A02 N = 2", "a02", "a02_n_four_bar_n2.yaml", ["--n", "2"], "B0, m",
     ADAPTIVE + IMPLICIT + [("rk4", {"integrator.dt": d}) for d in ("1e-2", "1e-3")]),
    ("A02 N = 40", "a02", "a02_n_four_bar_n40.yaml", ["--n", "40"], "B0, m",
     ADAPTIVE + [("cvode-bdf", {"integrator.rtol": "1e-8", "integrator.atol": "1e-8"})]
     + [("rk4", {"integrator.dt": d}) for d in ("1e-2", "1e-3")]),
    ("A03", "a03", "a03_andrews_squeezer.yaml", [], "point F, m",
     ADAPTIVE + IMPLICIT),
    ("A04", "a04", "a04_bricard.yaml", [], "P3, m",
     ADAPTIVE + IMPLICIT + [("rk4", {"integrator.dt": "1e-3"})]),
    ("A05", "a05", "a05_flyball_governor.yaml", [], "s, m",
     [(m, {"integrator.rtol": r, "integrator.atol": r}) for m in ("ida", "cvode-bdf")
      for r in ("1e-6", "1e-8", "1e-10")]),
    ("P", "parallelogram", "parallelogram_redundant.yaml", [], "θ, rad",
     ADAPTIVE + IMPLICIT + [("rk4", {"integrator.dt": "1e-3"})]),
    ("T", "torque_free", "torque_free_body.yaml", [], "R",
     ADAPTIVE + IMPLICIT + [("rk4", {"integrator.dt": "1e-3"})]),
]


def shorten(text, limit=160):
    """A failure reason short enough for a table cell: its first sentence-like part."""
    text = text.replace("|", "/")
    return text if len(text) <= limit else text[:limit].rstrip() + " …"


def first_error(text):
    m = re.search(r"max \|error\| = ([0-9.eE+-]+)", text)
    return m.group(1) if m else "—"


def energy(text):
    m = re.search(r"max \|E - E\(0\)\| = ([0-9.eE+-]+)", text)
    return m.group(1) if m else "—"


def run_case(gmbd, key, run_file, compare_args, method, settings, workdir, timeout):
    out = os.path.join(workdir, "result.h5")
    if os.path.exists(out):
        os.remove(out)
    cmd = [gmbd, "-q", "run", os.path.join(EX, run_file), "-o", out, "--set", "integrator.method=" + method]
    for k, v in settings.items():
        cmd += ["--set", "%s=%s" % (k, v)]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        _, stderr = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGINT)
        _, stderr = proc.communicate()
        reached = float("nan")
        for path in (out, out + ".partial"):
            if os.path.exists(path):
                with h5py.File(path, "r") as f:
                    reached = float(f["time"][-1]) if len(f["time"]) else reached
                break
        return None, "timeout after %g s (stopped at t = %.4g s)" % (timeout, reached)
    if not os.path.exists(out):
        return None, (stderr.strip().splitlines() or ["no result"])[-1]
    with h5py.File(out, "r") as f:
        status = f.attrs.get("status", b"?")
        status = status.decode() if isinstance(status, bytes) else str(status)
        wall = float(f.attrs.get("wall_seconds", float("nan")))
        steps = int(f.attrs.get("steps", 0))
    cmp = subprocess.run([sys.executable, os.path.join(os.path.dirname(__file__), "compare_benchmark.py"),
                          key, out] + compare_args, capture_output=True, text=True)
    reason = "" if status == "completed" else (stderr.strip().splitlines() or [status])[-1]
    return {"error": first_error(cmp.stdout), "energy": energy(cmp.stdout), "wall": wall, "steps": steps,
            "status": status}, reason


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--gmbd", default=os.path.join(REPO, "build", "release", "apps", "gmbd", "gmbd"))
    ap.add_argument("--only", default="", help="comma-separated compare keys (a01, a02, …)")
    ap.add_argument("--out", help="also write the table here")
    ap.add_argument("--skip", default="", help="comma-separated KEY:METHOD cases to leave out")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per run before SIGINT")
    a = ap.parse_args()
    only = set(filter(None, a.only.split(",")))
    rows = ["| problem | integrator | rtol = atol / dt | max error (quantity) | energy drift (J) | wall time (s) | steps | status |",
            "|---|---|---|---|---|---|---|---|"]
    print("\n".join(rows), flush=True)
    with tempfile.TemporaryDirectory() as work:
        for label, key, run_file, cargs, quantity, variants in CASES:
            if only and key not in only:
                continue
            for method, settings in variants:
                if "%s:%s" % (key, method) in a.skip.split(","):
                    continue
                setting = settings.get("integrator.dt") or settings.get("integrator.rtol")
                res, reason = run_case(a.gmbd, key, run_file, cargs, method, settings, work, a.timeout)
                if res is None:
                    row = "| %s | %s | %s | — | — | — | — | failed: %s |" % (label, method, setting, shorten(reason))
                else:
                    # gmbd's status attribute already carries the reason of a failure
                    status = res["status"] if (not reason or ":" in res["status"]) else "%s: %s" % (res["status"], reason)
                    status = shorten(status)
                    row = "| %s | %s | %s | %s (%s) | %s | %.2f | %d | %s |" % (
                        label, method, setting, res["error"], quantity, res["energy"], res["wall"],
                        res["steps"], status)
                rows.append(row)
                print(row, flush=True)
    if a.out:
        with open(a.out, "w") as f:
            f.write("\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
