#!/usr/bin/env python3
"""Plot the tables of `gmbd sweep` / `gmbd sweep-report`: IDA curves per output, fragility curves
and annual rates of exceedance, as PNGs next to the tables.

Usage: plot_sweep.py REPORT_DIR
For every ida_<output>.csv: ida_<output>.png, one panel per design (at most 16), intensity on the
vertical axis against the peak response, a thin grey line per record (sample) in level order, the
median (thick) and the 16 %/84 % percentiles (dashed) from ida_summary.csv. Runs without a peak
(failed or pending) are left out of their record's line and counted in the panel.
With fragility.csv: fragility_<output>.png, the observed fraction of runs exceeding each threshold
per design (markers) and, where fitted, the lognormal curve Phi(ln(x/theta)/beta).
With hazard.csv: hazard.png, the mean annual rate of exceedance per output, threshold and design.
Needs python3-numpy, python3-matplotlib.
"""
import csv
import glob
import math
import os
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

PROG = "plot_sweep.py"
MAX_DESIGNS = 16
MAX_COLUMNS = 4
MAX_LEGEND = 12
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]

IDA_COLUMNS = ["design", "parameters", "sample", "level", "intensity", "peak"]
SUMMARY_COLUMNS = ["output", "unit", "design", "parameters", "level", "intensity", "finished", "failed",
                   "median", "p16", "p84"]
FRAGILITY_COLUMNS = ["output", "threshold", "design", "parameters", "level", "intensity", "runs", "exceeding",
                     "fraction", "fitted_probability", "theta", "beta", "note"]
HAZARD_COLUMNS = ["output", "threshold", "design", "parameters", "annual_rate", "return_period_years",
                  "fragility"]


def fail(message):
    sys.exit("%s: %s" % (PROG, message))


def warn(message):
    print("%s: warning: %s" % (PROG, message), file=sys.stderr)


def as_float(s):
    """A CSV field as a float; empty or unparsable fields are NaN."""
    try:
        return float(s)
    except (TypeError, ValueError):
        return math.nan


def read_table(path, columns, numeric=()):
    """Rows of a CSV table as dicts. Checks the header; the `numeric` columns become floats (empty
    fields NaN; a non-empty field that is not a number is an error)."""
    try:
        with open(path, newline="") as f:
            reader = csv.DictReader(f)
            header = reader.fieldnames or []
            missing = [c for c in columns if c not in header]
            if missing:
                fail("%s: missing column(s) %s (header: %s)" % (path, ", ".join(missing),
                                                                ",".join(header) or "empty file"))
            rows = []
            for r in reader:
                if not any((v or "").strip() for v in r.values() if isinstance(v, str)):
                    continue  # blank line
                for c in columns:
                    r[c] = (r.get(c) or "").strip()
                for c in numeric:
                    x = as_float(r[c])
                    if math.isnan(x) and r[c] and r[c].lower() != "nan":
                        fail("%s line %d: column %s is not a number: %r" % (path, reader.line_num, c, r[c]))
                    r[c] = x
                rows.append(r)
            return rows
    except OSError as e:
        fail("cannot read %s (%s)" % (path, e.strerror or e))
    except csv.Error as e:
        fail("%s: malformed CSV (%s)" % (path, e))


def design_key(d):
    """Designs sort numerically when they are numbers (they are in gmbd's tables)."""
    x = as_float(d)
    return (0, x, d) if not math.isnan(x) else (1, 0.0, d)


def grid_shape(n):
    cols = min(MAX_COLUMNS, max(n, 1))
    return int(math.ceil(n / cols)), cols


# --- IDA -----------------------------------------------------------------------------------------


def ida_plot(csv_path, output, summary, png):
    rows = read_table(csv_path, IDA_COLUMNS, numeric=("level", "intensity", "peak"))
    if not rows:
        warn("%s has no rows: no IDA plot for %s" % (csv_path, output))
        return False
    by_design = defaultdict(list)
    params = {}
    for r in rows:
        by_design[r["design"]].append(r)
        params.setdefault(r["design"], r["parameters"] or "base")
    designs = sorted(by_design, key=design_key)
    shown = designs[:MAX_DESIGNS]

    mine = [s for s in summary if s["output"] == output]
    units = sorted({s["unit"] for s in mine if s["unit"]})
    if summary and not mine:
        warn("ida_summary.csv has no rows for output %s: no median / percentiles drawn" % output)

    nrows, ncols = grid_shape(len(shown))
    fig, axes = plt.subplots(nrows, ncols, figsize=(4.2 * ncols + 0.6, 3.6 * nrows + 0.9), sharex=True,
                             sharey=True, squeeze=False)
    for ax in axes.flat[len(shown):]:
        ax.axis("off")
    total_missing = 0
    for ax, design in zip(axes.flat, shown):
        drs = by_design[design]
        samples = []
        for r in drs:
            if r["sample"] not in samples:
                samples.append(r["sample"])
        missing = 0
        for sample in samples:
            pts = sorted((r for r in drs if r["sample"] == sample), key=lambda r: r["level"])
            good = [(r["peak"], r["intensity"]) for r in pts
                    if math.isfinite(r["peak"]) and math.isfinite(r["intensity"])]
            missing += len(pts) - len(good)
            if good:
                ax.plot([g[0] for g in good], [g[1] for g in good], "-o", color="0.55", lw=0.8, ms=2.5,
                        zorder=1)
        total_missing += missing
        srows = sorted((s for s in mine if s["design"] == design), key=lambda s: s["level"])
        for key, style, lw in (("median", "-", 2.6), ("p16", "--", 1.4), ("p84", "--", 1.4)):
            pts = [(s[key], s["intensity"]) for s in srows if math.isfinite(s[key]) and math.isfinite(s["intensity"])]
            if pts:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], style, color="tab:red", lw=lw, zorder=3)
        runs = len(drs)
        subtitle = params[design]
        if len(subtitle) > 45:
            subtitle = subtitle[:42] + "..."
        ax.set_title("%s (design %s)" % (subtitle, design), fontsize=10)
        note = "%d record%s" % (len(samples), "" if len(samples) == 1 else "s")
        if missing:
            note += "\n%d of %d runs without a peak\n(failed / pending)" % (missing, runs)
        ax.text(0.98, 0.03, note, transform=ax.transAxes, ha="right", va="bottom", fontsize=8,
                color="tab:orange" if missing else "0.35")
        ax.grid(True, alpha=0.3)
    # only after all panels are drawn: fixing a limit stops the autoscaling of the shared axes
    axes.flat[0].set_xlim(left=0)
    axes.flat[0].set_ylim(bottom=0)
    unit = " [%s]" % "/".join(units) if units else ""
    # the bottom panel of each column (possibly above an empty cell) carries the x label
    for i, ax in enumerate(axes.flat[:len(shown)]):
        if i + ncols >= len(shown):
            ax.set_xlabel("peak %s%s" % (output, unit))
            ax.xaxis.set_tick_params(labelbottom=True)
    for ax in axes[:, 0]:
        ax.set_ylabel("intensity")
    handles = [Line2D([], [], color="0.55", lw=0.8, marker="o", ms=2.5, label="one record (sample)")]
    if mine:
        handles += [Line2D([], [], color="tab:red", lw=2.6, label="median"),
                    Line2D([], [], color="tab:red", lw=1.4, linestyle="--", label="16 % / 84 %")]
    axes.flat[0].legend(handles=handles, loc="upper left", fontsize=8)
    title = "IDA: %s — %s" % (output, csv_path)
    if len(designs) > len(shown):
        title += "\n(first %d of %d designs shown)" % (len(shown), len(designs))
    fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)
    return True


# --- fragility -----------------------------------------------------------------------------------


def phi(z):
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def fragility_plots(report_dir, path, units):
    rows = read_table(path, FRAGILITY_COLUMNS,
                      numeric=("level", "intensity", "runs", "exceeding", "fraction", "theta", "beta"))
    if not rows:
        warn("%s has no rows: no fragility plot" % path)
        return []
    written = []
    outputs = []
    for r in rows:
        if r["output"] not in outputs:
            outputs.append(r["output"])
    for output in outputs:
        orows = [r for r in rows if r["output"] == output]
        groups = defaultdict(list)
        for r in orows:
            groups[(r["threshold"], r["design"])].append(r)
        keys = sorted(groups, key=lambda k: (as_float(k[0]), k[0], design_key(k[1])))
        thresholds = sorted({k[0] for k in keys}, key=lambda t: (as_float(t), t))
        intens = [r["intensity"] for r in orows if math.isfinite(r["intensity"]) and r["intensity"] > 0]
        if not intens:
            warn("%s: no positive intensities for output %s: no fragility plot" % (path, output))
            continue
        x = np.linspace(0.5 * min(intens), 1.5 * max(intens), 300)
        colours = plt.get_cmap("tab10" if len(keys) <= 10 else "tab20").colors

        fig, ax = plt.subplots(figsize=(9, 6))
        handles = []
        for i, key in enumerate(keys):
            threshold, design = key
            grs = sorted(groups[key], key=lambda r: r["level"])
            colour = colours[i % len(colours)]
            # identical curves (designs that do not matter for this output) would hide each other:
            # with a few curves, draw the earlier ones wider underneath
            wide = (len(keys) - 1 - i) / (len(keys) - 1) if 1 < len(keys) <= 6 else 0.0
            marker = MARKERS[thresholds.index(threshold) % len(MARKERS)]
            obs = [(r["intensity"], r["fraction"]) for r in grs
                   if math.isfinite(r["intensity"]) and math.isfinite(r["fraction"])]
            if obs:
                ax.plot([o[0] for o in obs], [o[1] for o in obs], marker, color=colour, ms=7 + 5 * wide, alpha=0.8,
                        linestyle="", mfc="none" if len(keys) > 1 else colour, mew=1.6, zorder=3)
            fit = next((r for r in grs if math.isfinite(r["theta"]) and math.isfinite(r["beta"])
                        and r["theta"] > 0 and r["beta"] > 0), None)
            if fit is not None:
                theta, beta = fit["theta"], fit["beta"]
                ax.plot(x, [phi(math.log(xi / theta) / beta) for xi in x], "-", color=colour, lw=1.6 + 3 * wide,
                        alpha=0.6 if wide else 1.0, zorder=2)
            label = "> %s [%s]" % (threshold, grs[0]["parameters"] or "base")
            if fit is None:
                label += " (not fitted)"
            handles.append(Line2D([], [], color=colour, marker=marker, mfc="none" if len(keys) > 1 else colour,
                                  linestyle="-" if fit is not None else "", lw=1.6, label=label))
        legend_title = None
        if len(handles) > MAX_LEGEND:
            legend_title = "first %d of %d in legend" % (MAX_LEGEND, len(handles))
            handles = handles[:MAX_LEGEND]
        ax.legend(handles=handles, loc="lower right", fontsize=8, title=legend_title, title_fontsize=8)
        ax.set_ylim(-0.03, 1.03)
        ax.set_xlim(left=0)
        ax.set_xlabel("intensity")
        unit = units.get(output, "")
        ax.set_ylabel("probability of exceedance")
        ax.set_title("Fragility: P(peak %s > threshold%s | intensity)\nmarkers: observed fraction of runs; "
                     "lines: lognormal fit Φ(ln(x/θ)/β)" % (output, " [%s]" % unit if unit else ""), fontsize=10)
        ax.grid(True, alpha=0.3)
        fig.tight_layout()
        png = os.path.join(report_dir, "fragility_%s.png" % output)
        fig.savefig(png, dpi=100)
        plt.close(fig)
        written.append(png)
    return written


# --- hazard --------------------------------------------------------------------------------------


def hazard_plot(report_dir, path, units):
    rows = read_table(path, HAZARD_COLUMNS, numeric=("annual_rate", "return_period_years"))
    if not rows:
        warn("%s has no rows: no hazard plot" % path)
        return None
    labels = []
    for r in rows:
        unit = units.get(r["output"], "")
        labels.append("%s > %s%s [%s]" % (r["output"], r["threshold"], " " + unit if unit else "",
                                          r["parameters"] or "base"))
    dup = {l for l in labels if labels.count(l) > 1}
    labels = [l + " (design %s)" % r["design"] if l in dup else l for l, r in zip(labels, rows)]
    rates = np.array([r["annual_rate"] for r in rows])
    positive = rates[np.isfinite(rates) & (rates > 0)]
    if positive.size == 0:
        warn("%s: no positive annual rate: hazard.png shows only the labels" % path)
    lo = positive.min() / 10 if positive.size else 1e-6
    hi = positive.max() * 10 if positive.size else 1.0

    n = len(rows)
    fig, ax = plt.subplots(figsize=(10, 1.2 + 0.42 * n))
    y = np.arange(n)[::-1]  # first row on top
    for yi, r, rate in zip(y, rows, rates):
        if math.isfinite(rate) and rate > 0:
            ax.barh(yi, rate - lo, left=lo, height=0.6,
                    color="tab:blue" if r["fragility"] == "lognormal fit" else "tab:gray")
            period = r["return_period_years"]
            text = "%.3g /yr" % rate + (", T = %.3g yr" % period if math.isfinite(period) else "")
            ax.text(rate * 1.15, yi, text, va="center", fontsize=8)
        else:
            why = "0 (never exceeded)" if rate == 0 else "no rate"
            ax.text(lo * 1.15, yi, why, va="center", fontsize=8, color="tab:orange")
    ax.set_xscale("log")
    ax.set_xlim(lo, hi * 10)  # room for the annotations
    ax.set_yticks(y)
    ax.set_yticklabels(labels, fontsize=8)
    ax.set_ylim(-0.7, n - 0.3)
    ax.set_xlabel("mean annual rate of exceedance [1/yr]")
    ax.grid(True, axis="x", which="major", alpha=0.3)
    handles = [Patch(color="tab:blue", label="from lognormal fit"),
               Patch(color="tab:gray", label="from observed fractions")]
    ax.legend(handles=handles, loc="lower right", fontsize=8)
    ax.set_title("Annual rate of exceedance — %s" % path, fontsize=10)
    fig.tight_layout()
    png = os.path.join(report_dir, "hazard.png")
    fig.savefig(png, dpi=100)
    plt.close(fig)
    return png


def main():
    if len(sys.argv) == 2 and sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    report_dir = sys.argv[1]
    if not os.path.isdir(report_dir):
        fail("%s is not a directory (expected the directory of gmbd sweep-report's tables)" % report_dir)
    ida_files = sorted(glob.glob(os.path.join(glob.escape(report_dir), "ida_*.csv")))
    ida_files = [f for f in ida_files if os.path.basename(f) != "ida_summary.csv"]
    if not ida_files:
        fail("no ida_*.csv in %s: run gmbd sweep-report first" % report_dir)

    summary_path = os.path.join(report_dir, "ida_summary.csv")
    summary = []
    if os.path.exists(summary_path):
        summary = read_table(summary_path, SUMMARY_COLUMNS,
                             numeric=("level", "intensity", "median", "p16", "p84"))
    else:
        warn("no ida_summary.csv in %s: IDA plots without median / percentiles" % report_dir)
    units = {}
    for s in summary:
        if s["unit"]:
            units.setdefault(s["output"], s["unit"])

    written = []
    for path in ida_files:
        output = os.path.basename(path)[len("ida_"):-len(".csv")]
        png = os.path.join(report_dir, "ida_%s.png" % output)
        if ida_plot(path, output, summary, png):
            written.append(png)
    fragility_path = os.path.join(report_dir, "fragility.csv")
    if os.path.exists(fragility_path):
        written += fragility_plots(report_dir, fragility_path, units)
    hazard_path = os.path.join(report_dir, "hazard.csv")
    if os.path.exists(hazard_path):
        png = hazard_plot(report_dir, hazard_path, units)
        if png:
            written.append(png)
    if not written:
        fail("no plot written: the tables in %s have no rows" % report_dir)
    for png in written:
        print(png)


if __name__ == "__main__":
    main()
