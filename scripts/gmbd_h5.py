"""Small readers for gmbd result files (docs/results-format.md), shared by the plot scripts.

h5py returns HDF5 variable-length strings as bytes or str depending on its version; these
helpers always give str.
"""
import sys


def text(value):
    """An attribute value as str (bytes are decoded as UTF-8)."""
    return value.decode() if isinstance(value, bytes) else str(value)


def column_names(dataset, attr):
    """The column names stored in a dataset attribute (e.g. q's "coordinates"), [] if absent.

    Works on groups too (e.g. /state_space's "state_names" in a linear-analysis file).
    """
    return [text(n) for n in dataset.attrs.get(attr, [])]


def root_attr(f, name, default=None):
    """A root attribute of the file: decoded when a string, `default` when absent."""
    value = f.attrs.get(name, default)
    return value.decode() if isinstance(value, bytes) else value


def attribute(obj, name, default=None):
    """An attribute of any group or dataset: decoded when a string, `default` when absent."""
    value = obj.attrs.get(name, default)
    return value.decode() if isinstance(value, bytes) else value


def require_format(f, expected, prog):
    """Exits (message on stderr) unless the file's root attribute "format" is `expected`."""
    found = root_attr(f, "format")
    if found is None or text(found) != expected:
        sys.exit("%s: %s is not a %s file (root attribute format = %r)"
                 % (prog, f.filename, expected, None if found is None else text(found)))
