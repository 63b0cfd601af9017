"""Small readers for gmbd result files (docs/results-format.md), shared by the plot scripts.

h5py returns HDF5 variable-length strings as bytes or str depending on its version; these
helpers always give str.
"""


def text(value):
    """An attribute value as str (bytes are decoded as UTF-8)."""
    return value.decode() if isinstance(value, bytes) else str(value)


def column_names(dataset, attr):
    """The column names stored in a dataset attribute (e.g. q's "coordinates"), [] if absent."""
    return [text(n) for n in dataset.attrs.get(attr, [])]


def root_attr(f, name, default=None):
    """A root attribute of the file: decoded when a string, `default` when absent."""
    value = f.attrs.get(name, default)
    return value.decode() if isinstance(value, bytes) else value
