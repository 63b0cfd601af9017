"""Helpers shared by the benchmark reference scripts (scripts/benchmarks/ref_*.py).

Only numpy; no gmbd code is imported: the references are independent of the engine.
"""
import datetime
import os
import sys

import numpy as np

REPO = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
REFERENCE_DIR = os.path.join(REPO, "examples", "benchmarks", "reference")


def write_csv(name, header_lines, columns, data, fmt="%.15e"):
    """Writes examples/benchmarks/reference/<name>: '# ' comment lines, one line of column
    names, then the rows (numpy.loadtxt(..., delimiter=',', skiprows=...) or
    numpy.genfromtxt(..., delimiter=',', names=True, comments='#') read it)."""
    os.makedirs(REFERENCE_DIR, exist_ok=True)
    path = os.path.join(REFERENCE_DIR, name)
    data = np.asarray(data, dtype=float)
    assert data.shape[1] == len(columns), (data.shape, columns)
    with open(path, "w") as f:
        for line in header_lines:
            f.write("# " + line + "\n")
        f.write("# written by scripts/benchmarks/%s (%s, numpy %s)\n"
                % (os.path.basename(sys.argv[0]), datetime.date.today().isoformat(), np.__version__))
        f.write(",".join(columns) + "\n")
        for row in data:
            f.write(",".join(fmt % v for v in row) + "\n")
    print("wrote %s (%d rows)" % (os.path.relpath(path, REPO), data.shape[0]))
    return path


def read_csv(name):
    """Reads a reference CSV written by write_csv: (column names, 2-D array)."""
    path = name if os.path.isabs(name) else os.path.join(REFERENCE_DIR, name)
    with open(path) as f:
        lines = [l for l in f if not l.startswith("#")]
    columns = lines[0].strip().split(",")
    data = np.array([[float(v) for v in l.split(",")] for l in lines[1:] if l.strip()])
    return columns, data
