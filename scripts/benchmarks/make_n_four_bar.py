#!/usr/bin/env python3
"""Writes the GaussMBD model file of MBS benchmark A02, the N four-bar mechanism.

Usage: make_n_four_bar.py N [-o FILE]
       (default FILE: examples/benchmarks/models/a02_n_four_bar_n<N>.yaml)

2N+1 uniform planar bars of length L and mass m (J = m L^2/12 about the centre): cranks
crank0 ... crankN pinned to the ground at A_i = (i L, 0), couplers coupler1 ... couplerN, coupler i
pinned to the tips B_{i-1} and B_i of cranks i-1 and i. Gravity g along -y. Initially every crank
is vertical (B_i = (i L, L)) and B0 moves along +x at v0: every crank turns at -v0/L, every
coupler translates at (v0, 0). 3(2N+1) coordinates, 2(3N+1) rows: one degree of freedom, and a
rank drop of N at the horizontal positions (the benchmark's singular configurations).
See docs/benchmarks.md#a02; the reference is scripts/benchmarks/ref_a02_n_four_bar.py.
"""
import argparse
import os

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))


def model_text(n):
    out = []
    w = out.append
    w("# MBS benchmark A02: N four-bar mechanism with N = %d (%d bars), written by" % (n, 2 * n + 1))
    w("# scripts/benchmarks/make_n_four_bar.py %d -- edit the script, not this file." % n)
    w("# IFToMM TC multibody benchmark library (lim.ii.udc.es/mbsbenchmark, problem A02); docs/benchmarks.md#a02.")
    w("# Cranks crank0..crank%d pinned to the ground at A_i = (i L, 0); coupler i joins the tips B_(i-1), B_i." % n)
    w("# Initially vertical cranks, B0 = (0, L) moving at v0 along +x. B0 = crank0 centre + (L/2)(cos, sin)(crank0.theta).")
    w("name: a02_n_four_bar_n%d" % n)
    w("description: MBS benchmark A02, N four-bar mechanism, N = %d" % n)
    w("dimension: 2")
    w("parameters:")
    w("  m: 1.0           # kg, every bar")
    w("  L: 1.0           # m, every bar")
    w("  g: 9.81          # m/s^2, along -y")
    w("  v0: 1.0          # m/s, initial x-velocity of B0")
    w("  J: m*L^2/12      # kg m^2, bar about its centre")
    w("bodies:")
    for i in range(n + 1):
        w("  crank%d: {type: planar, mass: m, inertia: J}" % i)
    for i in range(1, n + 1):
        w("  coupler%d: {type: planar, mass: m, inertia: J}" % i)
    w("points:")
    for i in range(n + 1):
        w("  A%d: {body: ground, at: [%d*L, 0]}" % (i, i))
        w("  crank%d_base: {body: crank%d, at: [-L/2, 0]}" % (i, i))
        w("  B%d: {body: crank%d, at: [L/2, 0]}" % (i, i))
    for i in range(1, n + 1):
        w("  coupler%d_left: {body: coupler%d, at: [-L/2, 0]}" % (i, i))
        w("  coupler%d_right: {body: coupler%d, at: [L/2, 0]}" % (i, i))
    w("elements:")
    w("  gravity: {type: gravity, g: [0, -g]}")
    for i in range(n + 1):
        w("  pivot%d: {type: coincident, a: A%d, b: crank%d_base}" % (i, i, i))
    for i in range(1, n + 1):
        w("  pin%d_left: {type: coincident, a: B%d, b: coupler%d_left}" % (i, i - 1, i))
        w("  pin%d_right: {type: coincident, a: B%d, b: coupler%d_right}" % (i, i, i))
    w("outputs:                  # the benchmark's reference quantities (docs/model-files.md, outputs)")
    w("  B0_pos: {type: position, point: B0}")
    w("  B0_vel: {type: velocity, point: B0}")
    w("  crank_angle: {type: orientation, body: crank0}")
    w("initial:")
    for i in range(n + 1):
        w("  crank%d.x: %d*L" % (i, i))
        w("  crank%d.y: L/2" % i)
        w("  crank%d.theta: pi/2" % i)
    for i in range(1, n + 1):
        w("  coupler%d.x: (%d - 0.5)*L" % (i, i))
        w("  coupler%d.y: L" % i)
    w("initial_velocity:")
    for i in range(n + 1):
        w("  crank%d.x: v0/2" % i)
        w("  crank%d.theta: -v0/L" % i)
    for i in range(1, n + 1):
        w("  coupler%d.x: v0" % i)
    # No `independent:` partition: the initial state above is exact, and holding crank0.theta
    # fixed in DSC would make the correction singular at every horizontal crossing (the
    # dependent Jacobian loses rank there; docs/theory.md §2.2.1), costing accuracy.
    return "\n".join(out) + "\n"


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("n", type=int, help="number of four-bar windows N >= 1 (the benchmark: 40)")
    p.add_argument("-o", "--output", help="model file to write")
    a = p.parse_args()
    if a.n < 1:
        p.error("N must be >= 1")
    path = a.output or os.path.join(REPO, "examples", "benchmarks", "models", "a02_n_four_bar_n%d.yaml" % a.n)
    with open(path, "w") as f:
        f.write(model_text(a.n))
    print("wrote %s: %d bodies, %d coordinates, %d constraint rows"
          % (os.path.relpath(path, REPO) if path.startswith(REPO) else path, 2 * a.n + 1, 3 * (2 * a.n + 1), 2 * (3 * a.n + 1)))


if __name__ == "__main__":
    main()
