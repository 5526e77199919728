"""Plain data for JSON: NumPy values as Python's, whole columns as rows.

Results carry their own ``to_dict()`` (a calibration, a network prediction, rates, an Exchange
ring, an application's scaling), built from these; the command line prints them as JSON
(``--json``) and reports read the same documents.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np


def jsonable(obj: Any) -> Any:
    """Plain JSON values: NumPy scalars and arrays unpacked, NaN and inf as null.

    >>> jsonable({"a": np.float64(1.5), "b": [np.nan, np.int64(2)], "c": np.bool_(True)})
    {'a': 1.5, 'b': [None, 2], 'c': True}
    """
    if isinstance(obj, Mapping):
        return {str(k): jsonable(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple | np.ndarray):
        return [jsonable(v) for v in obj]
    if isinstance(obj, np.bool_ | bool):
        return bool(obj)
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, float | np.floating):
        f = float(obj)
        return f if math.isfinite(f) else None
    return obj


def rows(columns: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Rows of a document from whole columns (NumPy arrays of one length), as Python numbers:
    one pass per column, not one array read per cell.

    >>> rows({"size": np.array([1.0, 8.0]), "ok": np.array([True, False])})
    [{'size': 1.0, 'ok': True}, {'size': 8.0, 'ok': False}]
    """
    names = list(columns)
    values = [np.ravel(c).tolist() for c in columns.values()]
    return [dict(zip(names, row, strict=True)) for row in zip(*values, strict=True)]
