"""perfmodel: analytical performance models and capacity planning for parallel clusters.

The package is a set of pure functions on plain data (see ``../shared/DESIGN.md``):
benchmark output is read into :class:`~perfmodel.measurements.Measurements`, fitted into a
network model, saved as a machine profile, and predicted from.  Only :mod:`perfmodel.cli`
knows about the terminal.
"""

__version__ = "0.1.0"

SCHEMA_VERSION = 1
"""Version of the machine-profile schema written by this release."""
