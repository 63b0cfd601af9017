#!/usr/bin/env python3
"""Plot the acceleration histories of a recorded motion, one panel per channel (gmbd motion --plot).

Usage: plot_motion.py CHANNELS.csv OUT.png [TITLE]
CHANNELS.csv is the table `gmbd motion` writes (io/motion_inspect.hpp, write_motion_csv): per
channel a column pair t (s), a (m/s^2), the acceleration column headed by the channel's label
("0 '180': horizontal, azimuth 180 deg"); a channel shorter than the others has empty cells after
its end. Each panel marks the peak |a| with its value in m/s^2 and g. Needs python3-matplotlib.
"""
import csv
import math
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

G = 9.80665  # m/s^2 per g (standard gravity, exact)


def read_channels(path):
    """[(label, times, accelerations)] from the column pairs of the table."""
    with open(path, newline="") as f:
        rows = csv.reader(f)
        header = next(rows)
        channels = [(header[j + 1], [], []) for j in range(0, len(header) - 1, 2)]
        for row in rows:
            for k, (_, t, a) in enumerate(channels):
                if 2 * k + 1 < len(row) and row[2 * k] != "":
                    t.append(float(row[2 * k]))
                    a.append(float(row[2 * k + 1]))
    return channels


def draw(ax, label, t, a):
    ax.plot(t, a, lw=0.6, color="tab:blue")
    ax.axhline(0.0, color="0.6", lw=0.5)
    if a:
        k = max(range(len(a)), key=lambda i: abs(a[i]))
        ax.plot([t[k]], [a[k]], "o", color="tab:red", ms=4)
        ax.annotate("peak %.4g m/s$^2$ (%.3g g) at %.4g s" % (abs(a[k]), abs(a[k]) / G, t[k]),
                    (t[k], a[k]), textcoords="offset points", xytext=(6, -12 if a[k] > 0 else 6),
                    fontsize=8, color="tab:red")
        limit = 1.15 * abs(a[k]) or 1.0
        ax.set_ylim(-limit, limit)
    ax.set_ylabel("a [m/s$^2$]")
    ax.set_title(label, fontsize=9, loc="left")
    ax.grid(True, alpha=0.3)


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    channels = read_channels(sys.argv[1])
    if not channels or all(not t for _, t, _ in channels):
        sys.exit("plot_motion.py: %s has no samples" % sys.argv[1])
    fig, axes = plt.subplots(len(channels), 1, figsize=(10, 2.4 * len(channels) + 0.8), sharex=True,
                             squeeze=False)
    for ax, (label, t, a) in zip(axes[:, 0], channels):
        draw(ax, label, t, a)
    axes[-1, 0].set_xlabel("t [s]")
    end = max((t[-1] for _, t, _ in channels if t), default=1.0)
    axes[-1, 0].set_xlim(0.0, end if end > 0 and math.isfinite(end) else 1.0)
    if len(sys.argv) == 4:
        fig.suptitle(sys.argv[3], fontsize=10)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=110)


if __name__ == "__main__":
    main()
