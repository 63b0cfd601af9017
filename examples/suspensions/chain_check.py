#!/usr/bin/env python3
"""Point-mass chain cross-check of a suspension's longitudinal modes.

A suspension of n stages hung by wires is compared with a chain of n point masses joined by
horizontal springs: stage i (the wires above mass i) has the pendulum stiffness

    k_i = (weight hung below those wires) / (c_i l_i)   (tension / length, summed over the wires)

with l_i the wire length and c_i the cosine of the wires' lean in the y-z plane (so c_i l_i is the
vertical drop). The chain's frequencies are compared with the modes of the gmbd linear-analysis
file that are dominated by the bodies' x coordinates; the difference is the pitch coupling (the
chain has no pitch). The variant with k_i = weight / l_i (c_i := 1) is printed too: it is the
formula "(supported mass) g / l" of the GWINC-style chain, which is not the pendulum stiffness
when the wires lean (the quad's top and uim wires).

Usage:
    gmbd linearize examples/suspensions/quad.yaml -o quad_linear.h5
    /usr/bin/python3 examples/suspensions/chain_check.py examples/suspensions/quad.yaml quad_linear.h5 \
        --masses mn,m1,m2,m3 --lengths ln,l1,l2,l3 --cosines cn,c1,c2,c3
    (triple: --masses m1,m2,m3 --lengths l1,l2,l3 --cosines c1,c2,c3)
MODEL is the model file or a run file with model: {file: …, parameters: …} (value, scale and
increment changes applied as gmbd applies them). Needs numpy, scipy, h5py, PyYAML.
"""
import argparse
import math
import os
import re
import sys

import h5py
import numpy as np
import yaml
from scipy.linalg import eigh

FUNCS = {name: getattr(math, name) for name in
         ("sqrt", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "hypot", "exp", "log", "log10")}
FUNCS.update(abs=abs, min=min, max=max)


def load_parameters(path):
    """Final parameter values of a model file (or of a run file's model), as gmbd resolves them."""
    with open(path) as f:
        doc = yaml.safe_load(f)
    changes = {}
    if "model" in doc and "bodies" not in doc:
        model = doc["model"]
        changes = model.get("parameters") or {}
        path = os.path.join(os.path.dirname(path), model["file"])
        with open(path) as f:
            doc = yaml.safe_load(f)
    exprs = {k: str(v) for k, v in (doc.get("parameters") or {}).items()}
    post = []
    for name, change in changes.items():
        if isinstance(change, dict) and ("scale" in change or "increment" in change):
            post.append((name, change))
        else:
            exprs[name] = str(change["value"] if isinstance(change, dict) else change)
    values = {}

    def value(name, stack=()):
        if name in values:
            return values[name]
        if name in stack:
            sys.exit("cycle in parameters: " + " -> ".join(stack + (name,)))
        text = re.sub(r"\^", "**", exprs[name])
        env = {"pi": math.pi, "e": math.e, **FUNCS}
        for sym in set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text)):
            if sym in exprs:
                env[sym] = value(sym, stack + (name,))
        values[name] = float(eval(text, {"__builtins__": {}}, env))
        return values[name]

    for name in exprs:
        value(name)
    for name, change in post:  # scale and increment change the final value only
        env = {"pi": math.pi, "e": math.e, **FUNCS, **values}
        if "scale" in change:
            values[name] *= float(eval(re.sub(r"\^", "**", str(change["scale"])), {"__builtins__": {}}, env))
        else:
            values[name] += float(eval(re.sub(r"\^", "**", str(change["increment"])), {"__builtins__": {}}, env))
    return values


def chain_frequencies(masses, stiffnesses):
    n = len(masses)
    K = np.zeros((n, n))
    for i, k in enumerate(stiffnesses):  # spring i joins mass i-1 (or the support) and mass i
        K[i, i] += k
        if i > 0:
            K[i - 1, i - 1] += k
            K[i - 1, i] -= k
            K[i, i - 1] -= k
    return np.sqrt(eigh(K, np.diag(masses), eigvals_only=True)) / (2 * math.pi)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("model")
    ap.add_argument("h5")
    ap.add_argument("--masses", required=True, help="mass parameters, top first")
    ap.add_argument("--lengths", required=True, help="wire length parameters, top first")
    ap.add_argument("--cosines", required=True, help="wire cosine parameters, top first")
    ap.add_argument("--g", default="g", help="gravity parameter (default g)")
    a = ap.parse_args()
    p = load_parameters(a.model)
    m = [p[s] for s in a.masses.split(",")]
    l = [p[s] for s in a.lengths.split(",")]
    c = [p[s] for s in a.cosines.split(",")]
    g = p[a.g]
    weight = [g * sum(m[i:]) for i in range(len(m))]
    f_tension = chain_frequencies(m, [w / (ci * li) for w, ci, li in zip(weight, c, l)])
    f_plain = chain_frequencies(m, [w / li for w, li in zip(weight, l)])

    f = h5py.File(a.h5, "r")
    freq = f["modes/frequency_hz"][()]
    shape = f["modes/shape_real"][()]
    coords = [s.decode() if isinstance(s, bytes) else str(s) for s in f["modes/shape_real"].attrs["coordinates"]]
    kept = [s.decode() if isinstance(s, bytes) else str(s) for s in f["reduction"].attrs["kept_coordinates"]]
    M = f["second_order/M"][()]
    col = [coords.index(k) for k in kept]
    share_x = []
    for k in range(len(freq)):
        e = shape[k, col]
        ke = e * (M @ e)
        share_x.append(sum(ke[i] for i, name in enumerate(kept) if name.endswith(".x")) / ke.sum())
    pick = sorted(np.argsort(share_x)[-len(m):])
    print("longitudinal modes (largest x share of kinetic energy) vs point-mass chain:")
    print("   mode   f gmbd (Hz)  x share   chain T/l (Hz)   diff      chain W/l (Hz)   diff")
    for j, k in enumerate(pick):
        print("   %4d  %11.6f  %6.1f %%  %14.6f  %+7.3f %%  %14.6f  %+7.3f %%" % (
            k + 1, freq[k], 100 * share_x[k], f_tension[j], 100 * (freq[k] / f_tension[j] - 1),
            f_plain[j], 100 * (freq[k] / f_plain[j] - 1)))


if __name__ == "__main__":
    main()
