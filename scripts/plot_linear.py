#!/usr/bin/env python3
"""Plot a gmbd linear-analysis file (HDF5): Bode plot, mode shapes, thermal noise, Q per mode.

Usage: plot_linear.py LIN.h5 OUT.png [--modes OUT_modes.png] [--noise OUT_noise.png]
                      [--quality OUT_q.png] [--pairs out1:in1,out2:in2,...] [--max-pairs 6]
Reads the file written by `gmbd linearize` (docs/results-format.md, "Linear analysis").
OUT.png: magnitude (log-log) and phase (degrees) of the chosen output / input pairs, mode
frequencies marked by thin vertical lines. Default pairs: for each input the output it drives
(force:X -> X, else the first output that responds); with a single input, every responding
output; pairs with a frequency-independent |H| are left out unless nothing else responds; at
most --max-pairs. Names may contain ':' (force:mass.x, vel:mass.x): a pair is split at the ':'
that leaves a valid output name and a valid input name.
--modes: one bar chart per mode (the first 12): |shape| per coordinate, or the signed real part
when the shape is essentially real.
--noise: the thermal-noise amplitude spectral density sqrt(S) of every output in /thermal_noise
(m/sqrt(Hz) for positions, rad/sqrt(Hz) for angles; one panel per unit) on log-log axes, with the
temperature in the title (docs/suspensions.md). The file must have /thermal_noise (gmbd linearize
--noise).
--quality: Q per mode from /losses (the loss functions with the stage's dilution, and naive:
every tagged stiffness lossy) against the mode frequency, log-log; lossless modes (Q infinite or
beyond 1e15, round-off) as triangles at the top. The file must have /losses.
Needs python3-h5py, python3-matplotlib.
"""
import argparse
import math
import os
import sys

import h5py
import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker as ticker  # noqa: E402
import numpy as np  # noqa: E402
from gmbd_h5 import attribute, column_names, require_format, root_attr, text  # noqa: E402

PROG = "plot_linear.py"
MAX_MODES = 12
# A pair is negligible when its peak |H| is below this fraction of the largest response of the
# same output (over all inputs) or of the same input (over all outputs): structural zeros.
NEGLIGIBLE = 1e-10
# A mode shape is drawn signed (real part) when every imaginary part is below this fraction of
# its largest entry (then |shape| and the real part differ by less than that in the chart).
REAL_SHAPE = 0.02
# Angle coordinates (their noise is in rad/sqrt(Hz)); every other position output is in m.
ANGLE_NAMES = ("yaw", "pitch", "roll", "rx", "ry", "rz", "theta")
# |Q| at or above this is a lossless mode whose imaginary part is round-off.
LOSSLESS_Q = 1e15


def fail(message):
    sys.exit("%s: %s" % (PROG, message))


def read(path, want_modes, want_noise=False, want_quality=False):
    """The transfer functions, the modes and the title of a linear file, as a dict (with the
    thermal noise and the Q table when asked for)."""
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        fail("cannot open %s as HDF5 (%s)" % (path, e))
    with f:
        require_format(f, "gaussmbd-linear", PROG)
        for group in ("transfer_functions", "modes"):
            if group not in f:
                fail("%s has no /%s group" % (path, group))
        try:
            tf = f["transfer_functions"]
            d = {
                "freq": tf["frequency_hz"][:],
                "H": tf["H_real"][:] + 1j * tf["H_imag"][:],
                "inputs": column_names(tf, "input_names"),
                "outputs": column_names(tf, "output_names"),
                "model": text(root_attr(f, "model_type", "")),
                "model_file": text(root_attr(f, "model_file", "")),
            }
            m = f["modes"]
            d["mode_freq"] = m["frequency_hz"][:]
            d["mode_zeta"] = m["damping_ratio"][:]
            d["dominant"] = column_names(m, "dominant")
            if want_modes:
                d["shape"] = m["shape_real"][:] + 1j * m["shape_imag"][:]
                d["coordinates"] = column_names(m["shape_real"], "coordinates")
            if want_noise:
                if "thermal_noise" not in f:
                    fail("%s has no /thermal_noise group (run gmbd linearize with --noise OUTPUTS and "
                         "loss functions)" % path)
                n = f["thermal_noise"]
                d["noise_freq"] = n["frequency_hz"][:]
                d["noise_psd"] = n["psd"][:]
                d["noise_outputs"] = column_names(n["psd"], "outputs")
                d["temperature"] = float(attribute(n, "temperature_K", float("nan")))
            if want_quality:
                if "losses" not in f:
                    fail("%s has no /losses group (the model file needs damping tags and a losses: "
                         "section)" % path)
                g = f["losses"]
                d["q_freq"] = g["mode_frequency_hz"][:]
                d["q"] = g["q"][:]
                d["q_naive"] = g["q_naive"][:]
                d["symmetry"] = (column_names(f["symmetry"], "mode_block") if "symmetry" in f else [])
            if want_noise or want_quality:
                d["stage"] = text(attribute(f["losses"], "stage", "")) if "losses" in f else ""
        except KeyError as e:
            fail("%s: missing dataset (%s)" % (path, e))
    if want_noise and d["noise_psd"].shape != (len(d["noise_freq"]), len(d["noise_outputs"])):
        fail("%s: /thermal_noise/psd has shape %s, expected (%d, %d) (frequencies, outputs)"
             % (path, d["noise_psd"].shape, len(d["noise_freq"]), len(d["noise_outputs"])))
    if d["H"].shape != (len(d["freq"]), len(d["outputs"]), len(d["inputs"])):
        fail("%s: /transfer_functions H has shape %s, expected (%d, %d, %d) (frequencies, outputs, inputs)"
             % (path, d["H"].shape, len(d["freq"]), len(d["outputs"]), len(d["inputs"])))
    return d


def responding(H):
    """ny x nu booleans: the pair's peak |H| is not negligible (see NEGLIGIBLE)."""
    peak = np.abs(H).max(axis=0) if H.shape[0] else np.zeros(H.shape[1:])
    row = peak.max(axis=1, keepdims=True) if peak.size else peak
    col = peak.max(axis=0, keepdims=True) if peak.size else peak
    return (peak > 0) & (peak > NEGLIGIBLE * np.maximum(row, col))


def default_pairs(d, max_pairs):
    """(output, input) index pairs: the diagonal-ish choice described in the module docstring."""
    ok = responding(d["H"])
    outputs, inputs = d["outputs"], d["inputs"]
    pairs = []
    if len(inputs) == 1:
        pairs = [(i, 0) for i in range(len(outputs)) if ok[i, 0]]
    else:
        for j, name in enumerate(inputs):
            target = name[len("force:"):] if name.startswith("force:") else name
            if target in outputs and ok[outputs.index(target), j]:
                pairs.append((outputs.index(target), j))
                continue
            first = [i for i in range(len(outputs)) if ok[i, j]]
            if first:
                pairs.append((first[0], j))
    # A flat |H| (a static load path, e.g. the support force per unit force along a guided
    # direction) says little: drop such pairs unless nothing else responds.
    mag = np.abs(d["H"])
    dynamic = [(i, j) for i, j in pairs if mag[:, i, j].max() > (1 + 1e-6) * mag[:, i, j].min()]
    return (dynamic or pairs)[:max_pairs]


def parse_pairs(spec, outputs, inputs):
    """'out1:in1,out2:in2' -> index pairs; exits listing the valid names on a bad pair."""
    pairs = []
    for item in [s.strip() for s in spec.split(",") if s.strip()]:
        splits = [(item[:k], item[k + 1:]) for k in range(len(item)) if item[k] == ":"]
        valid = [(o, i) for o, i in splits if o in outputs and i in inputs]
        if len(valid) > 1:
            fail("pair %r is ambiguous: it splits into several (output / input): %s"
                 % (item, "; ".join("%s / %s" % v for v in valid)))
        if not valid:
            fail("no transfer function %r (want OUTPUT:INPUT)\n  outputs: %s\n  inputs: %s"
                 % (item, ", ".join(outputs), ", ".join(inputs)))
        pairs.append((outputs.index(valid[0][0]), inputs.index(valid[0][1])))
    return pairs


def title_of(d):
    name = d["model"] or "model"
    if d["model_file"]:
        name += " (%s)" % os.path.basename(d["model_file"])
    return name


def mark_modes(axes, d, f_lo, f_hi):
    """Thin vertical lines at the mode frequencies inside the plotted range."""
    marked = False
    for fm in d["mode_freq"]:
        if np.isfinite(fm) and f_lo <= fm <= f_hi and fm > 0:
            for ax in axes:
                ax.axvline(fm, color="0.55", lw=0.6, ls="--", zorder=0,
                           label="mode frequencies" if (ax is axes[0] and not marked) else None)
            marked = True


def phase_deg(h):
    """Phase in degrees, unwrapped and starting in (-180, 180]. An undamped model's H keeps one
    direction in the complex plane (real, or imaginary for a velocity): then the phase is that
    direction's angle or its opposite, since unwrapping exact half turns would drift by 360."""
    peak = np.abs(h).max()
    if peak > 0:
        rotated = h * np.exp(-1j * np.angle(h[np.argmax(np.abs(h))]))
        if np.abs(rotated.imag).max() <= 1e-9 * peak:
            base = np.degrees(np.angle(h[np.argmax(np.abs(h))]))
            phase = base + np.where(rotated.real < 0, 180.0, 0.0)
            return phase - 360.0 * np.ceil((phase - 180.0) / 360.0)  # into (-180, 180]
    phase = np.degrees(np.unwrap(np.angle(h)))
    if phase.size and np.isfinite(phase[0]):
        phase -= 360.0 * np.ceil((phase[0] - 180.0) / 360.0)
    return phase


def bode(d, pairs, png):
    f = d["freq"]
    keep = f > 0  # log axis
    if not keep.any():
        fail("no positive frequencies in /transfer_functions/frequency_hz")
    f = f[keep]
    fig, (ax_m, ax_p) = plt.subplots(2, 1, figsize=(10, 7.5), sharex=True,
                                     gridspec_kw={"height_ratios": [3, 2]})
    for i, j in pairs:
        h = d["H"][keep, i, j]
        mag = np.abs(h)
        label = "%s / %s" % (d["outputs"][i], d["inputs"][j])
        line, = ax_m.loglog(f, np.where(mag > 0, mag, np.nan), lw=1.2, label=label)
        phase = phase_deg(h)
        ax_p.semilogx(f, phase, lw=1.2, color=line.get_color())
    mark_modes([ax_m, ax_p], d, f.min(), f.max())
    ax_m.set_ylabel("|H| (output units / input units)")
    ax_m.grid(True, which="both", lw=0.3, alpha=0.6)
    ax_m.legend(fontsize=8, loc="best", title="output / input", title_fontsize=8)
    ax_m.set_title("%s — transfer functions" % title_of(d))
    ax_p.set_ylabel("phase [deg]")
    ax_p.set_xlabel("frequency [Hz]")
    ax_p.yaxis.set_major_locator(ticker.MultipleLocator(90))
    lo, hi = ax_p.get_ylim()
    if hi - lo > 1080:  # many wraps: fall back to automatic ticks
        ax_p.yaxis.set_major_locator(ticker.MaxNLocator(8))
    ax_p.grid(True, which="both", lw=0.3, alpha=0.6)
    ax_p.set_xlim(f.min(), f.max())
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)


def mode_plot(d, png):
    n = min(len(d["mode_freq"]), MAX_MODES)
    if n == 0:
        fail("the file has no modes to plot")
    coords = d["coordinates"]
    shapes = d["shape"][:n]
    if shapes.shape[1] != len(coords):
        fail("/modes/shape_real has %d columns but %d coordinate names" % (shapes.shape[1], len(coords)))
    ncols = min(3 if len(coords) <= 12 else 2, n)  # wider panels when there are many coordinates
    nrows = math.ceil(n / ncols)
    # Wide enough for the bars and the titles, at least for the figure title; at most 18 in.
    width = min(max(max(3.6, 0.28 * len(coords) + 1.2) * ncols, 8.0), 18.0)
    # constrained layout keeps the figure title clear of the panel titles at any figure height.
    fig, axes = plt.subplots(nrows, ncols, figsize=(width, 3.3 * nrows + 0.6), squeeze=False,
                             constrained_layout=True)
    x = np.arange(len(coords))
    tick_font = 8 if len(coords) <= 12 else 7 if len(coords) <= 24 else 6 if len(coords) <= 40 else 5
    for k in range(nrows * ncols):
        ax = axes[k // ncols][k % ncols]
        if k >= n:
            ax.axis("off")
            continue
        s = shapes[k]
        scale = np.abs(s).max() if s.size else 0.0
        real = scale == 0 or np.abs(s.imag).max() <= REAL_SHAPE * scale
        values = s.real if real else np.abs(s)
        colors = ["tab:blue" if v >= 0 else "tab:red" for v in values] if real else "tab:purple"
        ax.bar(x, values, color=colors, width=0.7)
        ax.axhline(0, color="k", lw=0.5)
        ax.set_xticks(x)
        ax.set_xticklabels(coords, rotation=90, fontsize=tick_font)
        ax.tick_params(axis="y", labelsize=7)
        lo, hi = min(0.0, values.min()), max(0.0, values.max())
        pad = 0.08 * max(hi - lo, 1e-300)
        ax.set_ylim(lo - pad if lo < 0 else 0.0, hi + pad)
        ax.set_ylabel("shape (real part)" if real else "|shape|", fontsize=8)
        dom = d["dominant"][k] if k < len(d["dominant"]) else "?"
        ax.set_title("mode %d: f = %.4g Hz, ζ = %.3g, %s" % (k + 1, d["mode_freq"][k], d["mode_zeta"][k] + 0.0, dom),
                     fontsize=9)
        ax.grid(True, axis="y", lw=0.3, alpha=0.6)
    total = len(d["mode_freq"])
    extra = "" if total <= MAX_MODES else " (first %d of %d)" % (MAX_MODES, total)
    fig.suptitle("%s — mode shapes%s; largest entry = 1" % (title_of(d), extra), fontsize=11)
    fig.savefig(png, dpi=110)
    plt.close(fig)


def noise_unit(name):
    """'rad' for an angle coordinate or a point's angle, 'm' for positions and points, '' when the
    output's unit is not known from its name (a measure: m for a length, rad for an angle)."""
    if name.startswith("measure:"):
        return ""
    tail = name.rsplit(".", 1)[-1]
    return "rad" if tail in ANGLE_NAMES else "m"


def noise_plot(d, png):
    """Amplitude spectral density sqrt(S) of each noise output, one panel per unit."""
    f = d["noise_freq"]
    psd = d["noise_psd"]
    names = d["noise_outputs"]
    if not names or f.size == 0:
        fail("/thermal_noise has no outputs or no frequencies")
    keep = f > 0
    units = []
    for name in names:
        u = noise_unit(name)
        if u not in units:
            units.append(u)
    fig, axes = plt.subplots(len(units), 1, figsize=(10, 3.6 * len(units) + 1.0), sharex=True,
                             squeeze=False)
    axes = [row[0] for row in axes]
    for ax, unit in zip(axes, units):
        drawn = False
        for j, name in enumerate(names):
            if noise_unit(name) != unit:
                continue
            s = psd[keep, j]
            # A lossless direction gives S = 0 (or a round-off value of either sign): not drawn.
            asd = np.where(s > 0, np.sqrt(np.abs(s)), np.nan)
            if np.isfinite(asd).any():
                ax.loglog(f[keep], asd, lw=1.2, label=name)
                drawn = True
            else:
                ax.plot([], [], lw=1.2, label="%s (zero: no loss couples to it)" % name)
        label = {"m": "m/√Hz", "rad": "rad/√Hz", "": "(measure unit)/√Hz"}[unit]
        ax.set_ylabel("√S  [%s]" % label)
        if drawn:
            ax.set_yscale("log")
        ax.set_xscale("log")
        ax.grid(True, which="both", lw=0.3, alpha=0.6)
    mark_modes(axes, d, f[keep].min(), f[keep].max())
    for ax in axes:
        ax.legend(fontsize=8, loc="best")
    axes[-1].set_xlabel("frequency [Hz]")
    axes[-1].set_xlim(f[keep].min(), f[keep].max())
    temperature = d["temperature"]
    stage = (", stage %s" % d["stage"]) if d.get("stage") else ""
    axes[0].set_title("%s — thermal noise (amplitude spectral density), T = %g K%s"
                      % (title_of(d), temperature, stage))
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)


def quality_plot(d, png):
    """Q per mode (with the losses and naive) against the mode frequency."""
    f, q, qn = d["q_freq"], d["q"], d["q_naive"]
    if f.size == 0:
        fail("/losses has no modes")
    fig, ax = plt.subplots(figsize=(10, 5.5))
    finite = [(q_ > 0) & np.isfinite(q_) & (np.abs(q_) < LOSSLESS_Q) & (f > 0) for q_ in (q, qn)]
    values = np.concatenate([q[finite[0]], qn[finite[1]]])
    top = values.max() * 3 if values.size else 1.0
    for series, ok, style, label in ((q, finite[0], "o", "Q (loss functions, stage %s)" % (d.get("stage") or "?")),
                                     (qn, finite[1], "x", "Q naive (every tagged stiffness lossy)")):
        line, = ax.loglog(f[ok], series[ok], style, ms=6, label=label, mfc="none" if style == "o" else None)
        lossless = (f > 0) & ~ok & ((~np.isfinite(series)) | (np.abs(series) >= LOSSLESS_Q))
        if lossless.any():
            ax.plot(f[lossless], np.full(lossless.sum(), top), "^", color=line.get_color(), ms=7,
                    label="%s: lossless (drawn at the top)" % label.split(" (")[0])
    # /symmetry has one block per row of /modes; use it only when those rows are the /losses
    # modes (not when the mode table lists a split zero-frequency pair twice).
    blocks = d.get("symmetry") or []
    if len(blocks) != f.size:
        blocks = []
    for k in range(f.size):
        if f[k] > 0 and (finite[0][k] or finite[1][k] or abs(q[k]) >= LOSSLESS_Q):
            y = q[k] if finite[0][k] else top if abs(q[k]) >= LOSSLESS_Q else qn[k]
            tag = "%d" % (k + 1) + (" %s" % blocks[k] if k < len(blocks) else "")
            ax.annotate(tag, (f[k], y), textcoords="offset points", xytext=(4, 4), fontsize=7)
    ax.set_xlabel("mode frequency [Hz]")
    ax.set_ylabel("Q")
    ax.grid(True, which="both", lw=0.3, alpha=0.6)
    ax.legend(fontsize=8, loc="best")
    ax.set_title("%s — Q per mode (label: mode number%s)" % (title_of(d), ", block" if blocks else ""))
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("linear", help="HDF5 file written by gmbd linearize")
    ap.add_argument("png", help="Bode plot to write")
    ap.add_argument("--modes", metavar="OUT_modes.png", help="also write mode-shape bar charts")
    ap.add_argument("--noise", metavar="OUT_noise.png",
                    help="also write the thermal-noise amplitude spectral densities (needs /thermal_noise)")
    ap.add_argument("--quality", metavar="OUT_q.png",
                    help="also write Q per mode, with the losses and naive (needs /losses)")
    ap.add_argument("--pairs", default="", help="comma-separated OUTPUT:INPUT pairs (default: see above)")
    ap.add_argument("--max-pairs", type=int, default=6, help="most default pairs (default 6)")
    a = ap.parse_args()
    if a.max_pairs < 1:
        fail("--max-pairs must be at least 1")
    d = read(a.linear, a.modes is not None, a.noise is not None, a.quality is not None)
    if not d["inputs"] or not d["outputs"] or len(d["freq"]) == 0:
        fail("%s has no transfer functions (%d outputs, %d inputs, %d frequencies)"
             % (a.linear, len(d["outputs"]), len(d["inputs"]), len(d["freq"])))
    if a.pairs:
        pairs = parse_pairs(a.pairs, d["outputs"], d["inputs"])
    else:
        pairs = default_pairs(d, a.max_pairs)
        if not pairs:
            fail("every transfer function in %s is zero; choose pairs with --pairs" % a.linear)
    bode(d, pairs, a.png)
    if a.modes:
        mode_plot(d, a.modes)
    if a.noise:
        noise_plot(d, a.noise)
    if a.quality:
        quality_plot(d, a.quality)


if __name__ == "__main__":
    main()
