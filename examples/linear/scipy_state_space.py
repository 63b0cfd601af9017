#!/usr/bin/env python3
"""Use a gmbd linear-analysis file with scipy.signal: state space, poles, one frequency response.

Usage: scipy_state_space.py [LIN.h5] [--output NAME] [--input NAME] [--plot BODE.png]

Make the file first, e.g.
    gmbd linearize examples/linear/toy_float.yaml -o lin.h5
then run  /usr/bin/python3 examples/linear/scipy_state_space.py lin.h5 --plot bode.png
Needs numpy, scipy, h5py (Debian: python3-scipy python3-h5py; matplotlib only for --plot).
"""
import argparse
import sys
import warnings

import h5py
import numpy as np
from scipy import signal


def fail(message):
    sys.exit("scipy_state_space.py: " + message)


def names(obj, attr):
    """A string-array attribute as a list of str (h5py gives bytes or str depending on its version)."""
    return [n.decode() if isinstance(n, bytes) else str(n) for n in obj.attrs.get(attr, [])]


def scalar(obj, attr, default=""):
    value = obj.attrs.get(attr, default)
    return value.decode() if isinstance(value, bytes) else value


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", nargs="?", default="lin.h5", help="file written by gmbd linearize (default lin.h5)")
    ap.add_argument("--output", help="output of the pair to check (default: the input's own coordinate for force:X, "
                    "else the first output that responds)")
    ap.add_argument("--input", help="input of the pair to check (default: the first input)")
    ap.add_argument("--plot", metavar="PNG", help="write a Bode plot of that pair")
    a = ap.parse_args()

    # --- 1. Read the file ---------------------------------------------------------------------
    try:
        f = h5py.File(a.file, "r")
    except OSError as e:
        fail("cannot open %s as HDF5: %s" % (a.file, e))
    with f:
        if scalar(f, "format") != "gaussmbd-linear":
            fail("%s is not a gmbd linear-analysis file (root attribute format = %r)"
                 % (a.file, scalar(f, "format", None)))
        try:
            ss = f["state_space"]
            # Row-major HDF5 datasets: numpy reads them as the matrices themselves.
            A, B, C, D, E = (ss[k][:] for k in ("A", "B", "C", "D", "E"))
            states, inputs, outputs = names(ss, "state_names"), names(ss, "input_names"), names(ss, "output_names")
            # The transfer functions gmbd computed, H[k, i, j] = output i / input j at freq[k] Hz.
            tf = f["transfer_functions"]
            freq = tf["frequency_hz"][:]
            H_file = tf["H_real"][:] + 1j * tf["H_imag"][:]
            modes_hz = f["modes/frequency_hz"][:]
        except KeyError as e:
            fail("%s: missing group or dataset (%s)" % (a.file, e))
        print("model %s, convention: %s" % (scalar(f, "model_type"), scalar(ss, "convention")))

    # gmbd writes E dx/dt = A x + B u with E = I; StateSpace has no E (a general one would need
    # A, B replaced by E^-1 A, E^-1 B first).
    if E.shape != A.shape or not np.allclose(E, np.eye(A.shape[0]), rtol=0, atol=1e-12):
        fail("%s: E is not the identity; this example handles E = I only" % a.file)

    print("states  (%d): %s" % (len(states), ", ".join(states)))
    print("inputs  (%d): %s" % (len(inputs), ", ".join(inputs)))
    print("outputs (%d): %s" % (len(outputs), ", ".join(outputs)))

    # --- 2. Poles: eigenvalues of A, one per conjugate pair, as frequency and damping ratio ----
    poles = np.linalg.eigvals(A)
    poles = poles[poles.imag >= 0]                     # drop the conjugates (Im < 0)
    wn = np.abs(poles)                                 # undamped natural frequency, rad/s
    zeta = np.divide(-poles.real, wn, out=np.zeros_like(wn), where=wn > 0) + 0.0  # + 0.0: no -0
    order = np.argsort(wn)
    print("\npoles (Im >= 0):        f [Hz]       zeta")
    for p, w, z in zip(poles[order], wn[order], zeta[order]):
        print("  %-24s %11.5g %10.4g" % ("%.4g%+.4gj" % (p.real, p.imag), w / (2 * np.pi), z))
    if len(modes_hz) == len(order):
        print("max |f - f(/modes)|: %.3g Hz" % np.max(np.abs(wn[order] / (2 * np.pi) - modes_hz)))

    # --- 3. One (output, input) pair with scipy.signal -----------------------------------------
    i, j = pick_pair(a, outputs, inputs, H_file)
    print("\npair: %s / %s" % (outputs[i], inputs[j]))
    system = signal.StateSpace(A, B, C, D)             # the whole MIMO system
    # freqresp handles single-input single-output systems: take column j of B, row i of C.
    siso = signal.StateSpace(A, B[:, [j]], C[[i], :], D[[i]][:, [j]])
    w = 2 * np.pi * freq                               # scipy works in rad/s
    with warnings.catch_warnings():
        # The numerator of C (sI - A)^-1 B has leading coefficients that are zero up to
        # rounding; scipy warns "Badly conditioned filter coefficients" and trims them. Harmless.
        warnings.simplefilter("ignore", signal.BadCoefficients)
        _, H_scipy = signal.freqresp(siso, w)
    H_ref = H_file[:, i, j]
    # Relative to the largest |H| of the pair (a pointwise relative difference would blow up
    # at anti-resonances, where |H| itself is nearly zero).
    scale = max(np.abs(H_ref).max(), 1e-300)
    print("scipy.signal.freqresp vs stored H: max |difference| / max |H| = %.3g"
          % (np.abs(H_scipy - H_ref).max() / scale))
    # freqresp goes through zeros/poles/gain (characteristic polynomial and its roots), which
    # loses digits as the model grows and for repeated poles (about 1e-8 for a 6-DOF mount with
    # double frequencies, 1e-11..1e-14 for small models). The resolvent C (sI - A)^-1 B + D
    # evaluated directly matches the stored H to rounding.
    H_direct = np.array([(C[i] @ np.linalg.solve(1j * wk * np.eye(len(A)) - A, B[:, j])) + D[i, j]
                         for wk in w])
    print("direct C (sI - A)^-1 B + D vs stored H:  max |difference| / max |H| = %.3g"
          % (np.abs(H_direct - H_ref).max() / scale))
    print("(the MIMO system has %d states, %d inputs, %d outputs)"
          % (system.A.shape[0], system.B.shape[1], system.C.shape[0]))

    if a.plot:
        bode_plot(a.plot, freq, H_scipy, H_ref, "%s / %s" % (outputs[i], inputs[j]))
        print("wrote", a.plot)


def pick_pair(a, outputs, inputs, H):
    """The requested pair; by default the first input and its own output (force:X -> X),
    else the first output that responds to it."""
    if a.output is not None and a.output not in outputs:
        fail("no output %r; outputs: %s" % (a.output, ", ".join(outputs)))
    if a.input is not None and a.input not in inputs:
        fail("no input %r; inputs: %s" % (a.input, ", ".join(inputs)))
    if not outputs or not inputs or H.shape[0] == 0:
        fail("the file has no transfer functions")
    j = inputs.index(a.input) if a.input else 0
    if a.output:
        return outputs.index(a.output), j
    own = inputs[j][len("force:"):] if inputs[j].startswith("force:") else None
    if own in outputs:
        return outputs.index(own), j
    peak = np.abs(H[:, :, j]).max(axis=0)             # per output; units differ, so no argmax
    responding = np.flatnonzero(peak > 1e-10 * peak.max())
    return (int(responding[0]) if responding.size else 0), j


def phase_deg(h):
    """Unwrapped phase in degrees. An undamped model's H stays on one line through 0 (real, or
    imaginary for a velocity output); its phase then only flips by 180 degrees, and unwrapping
    those exact half turns would drift at random, so it is taken directly, in (-180, 180]."""
    ref = h[np.argmax(np.abs(h))]
    rotated = h * np.conj(ref) / max(abs(ref), 1e-300)          # the line turned onto the real axis
    if np.abs(rotated.imag).max() <= 1e-9 * abs(ref):
        phase = np.degrees(np.angle(ref)) + np.where(rotated.real < 0, 180.0, 0.0)
        return phase - 360.0 * np.ceil((phase - 180.0) / 360.0)
    return np.degrees(np.unwrap(np.angle(h)))


def bode_plot(png, freq, H_scipy, H_ref, label):
    import matplotlib
    matplotlib.use("Agg")                              # no display needed
    import matplotlib.pyplot as plt
    fig, (ax1, ax2) = plt.subplots(2, 1, sharex=True, figsize=(8, 6))
    ax1.loglog(freq, np.abs(H_ref), lw=3, alpha=0.4, label="gmbd (stored)")
    ax1.loglog(freq, np.abs(H_scipy), "k--", lw=1, label="scipy.signal.freqresp")
    ax2.semilogx(freq, phase_deg(H_ref), lw=3, alpha=0.4)
    ax2.semilogx(freq, phase_deg(H_scipy), "k--", lw=1)
    ax1.set_title(label)
    ax1.set_ylabel("|H|")
    ax2.set_ylabel("phase [deg]")
    ax2.set_xlabel("frequency [Hz]")
    ax1.legend()
    for ax in (ax1, ax2):
        ax.grid(True, which="both", lw=0.3)
    fig.tight_layout()
    fig.savefig(png, dpi=100)


if __name__ == "__main__":
    main()
