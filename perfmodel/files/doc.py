"""Reading one of perfmodel's own TOML documents field by field, with the key's line in every
error: :class:`DocReader` and the tables profiles and saved fits share (a parameter with its
value, standard error, status and source; a covariance; a fit's degrees of freedom and noise).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, cast

import numpy as np

from perfmodel.errors import InputError
from perfmodel.params import Estimate

STATUSES = ("fitted", "derived", "fixed", "selected", "bound", "assumed")
_PARAM = {"value", "stderr", "unit", "status", "source"}

MAX_NOISE = 100.0
"""The largest noise a profile or saved fit may give: the standard deviation of log-ratio
residuals, so 100 is a spread of e^100; a larger one is no measurement, and squaring it in a
prediction interval overflows."""
NOISE_FIX = (f"the noise is a standard deviation of log-ratio residuals: at least 0 and at "
             f"most {MAX_NOISE:g}, or nan")


def as_float(v: Any) -> float | None:
    """``v`` (a number, not a bool) as a float, or None where it is not one or too large for
    one (TOML integers have no bound: 10**400 is one)."""
    if isinstance(v, bool) or not isinstance(v, int | float):
        return None
    try:
        return float(v)
    except OverflowError:
        return None


class DocReader:
    """Checks one loaded TOML document field by field, naming the key in every error.

    ``redo`` is the fix for a document that is broken beyond a value (regenerate a profile,
    save a fit again): the profile and the saved application fit (:mod:`perfmodel.apps.saved`)
    read their parameter tables with it."""

    def __init__(self, path: str, prefix: str = "",
                 redo: str = "regenerate the profile with calibrate", text: str = "") -> None:
        self.path = path
        self.prefix = prefix
        self.redo = redo
        self.source = text   # the file's text, to name the line of a key in errors

    def at(self, prefix: str) -> DocReader:
        return DocReader(self.path, prefix, self.redo, self.source)

    def fail(self, key: str, what: str, fix: str) -> InputError:
        from perfmodel.files.toml import key_line

        where = f"{self.prefix}{key}".rstrip(".")
        return InputError(f"{where}: {what}", file=self.path,
                          line=key_line(self.source, where) if self.source else None, fix=fix)

    def table(self, doc: Mapping[str, Any], key: str) -> Mapping[str, Any]:
        v = doc.get(key)
        if not isinstance(v, dict):
            raise self.fail(key, "missing or not a table", self.redo)
        return v

    def number(self, doc: Mapping[str, Any], key: str, finite: bool = True) -> float:
        v = doc.get(key)
        if isinstance(v, bool) or not isinstance(v, int | float):
            raise self.fail(key, f"is {v!r}, not a number", "give a number")
        x = as_float(v)
        if x is None or (finite and not math.isfinite(x)):
            raise self.fail(key, f"is {v if x is not None else 'too large'}",
                            "give a finite number")
        return x

    def text(self, doc: Mapping[str, Any], key: str, default: str | None = None) -> str:
        v = doc.get(key, default)
        if not isinstance(v, str):
            raise self.fail(key, f"is {v!r}, not text", "give a quoted string")
        return v

    def only(self, doc: Mapping[str, Any], allowed: set[str]) -> None:
        from perfmodel.files.toml import unknown_key

        unknown_key(doc, allowed, self.path, self.source, self.prefix)

    def quality(self, doc: Mapping[str, Any], dof: str = "dof", noise: str = "noise_rel"
                ) -> tuple[int, float]:
        """A fit's degrees of freedom (a whole number, 0 when not written) and noise (the
        standard deviation of its log-ratio residuals, NaN when not written)."""
        d = self.number(doc, dof) if dof in doc else 0.0
        if not (d.is_integer() and 0 <= d <= 1e9):
            raise self.fail(dof, f"is {d:g}", "degrees of freedom are a whole number >= 0")
        n = self.number(doc, noise, finite=False) if noise in doc else math.nan
        if not (math.isnan(n) or 0 <= n <= MAX_NOISE):
            raise self.fail(noise, f"is {n:g}", NOISE_FIX)
        return int(d), n


def read_estimate(rp: DocReader, name: str, p: Any, check: Any, unit: str | None) -> Estimate:
    """One ``params.NAME`` table: value checked by ``check`` (which says why a value is not
    physical, or None), stderr, status and source; ``unit`` overrides the stored one."""
    if not isinstance(p, dict):
        raise rp.fail("", "is not a table", "give value, stderr, unit, status, source")
    rp.only(p, _PARAM)
    status = rp.text(p, "status", "fitted")
    if status not in STATUSES:
        raise rp.fail("status", f"is {status!r}", f"use one of {', '.join(STATUSES)}")
    value = rp.number(p, "value", finite=unit is None)
    why = check(name, value)
    if why:
        raise rp.fail("value", f"is {value}: {why}", f"give a physical value, or {rp.redo}")
    stderr = rp.number(p, "stderr", finite=False) if "stderr" in p else math.nan
    return Estimate(name, value, stderr, rp.text(p, "unit", "") if unit is None else unit,
                    cast(Any, status), rp.text(p, "source", ""))


def read_covariance(r: DocReader, raw: Any, k: int) -> np.ndarray:
    """A k × k covariance: non-negative variances, all finite or all NaN (not estimable)."""
    try:
        cov = np.array(raw if raw is not None else [], dtype=np.float64)
    except (TypeError, ValueError):   # ragged rows or text
        cov = np.full((k + 1, k + 1), np.nan)
    if cov.size == 0:   # none written: nothing could be estimated (an exactly determined fit)
        cov = np.full((k, k), np.nan)
    if cov.shape != (k, k) or np.any(np.diag(cov) < 0) or \
            not (np.all(np.isfinite(cov)) or np.all(np.isnan(cov))):
        raise r.fail("covariance", f"is not a valid {k}×{k} covariance matrix", r.redo)
    return cov


def number_list(r: DocReader, doc: Mapping[str, Any], key: str, table: str = "corrections",
                finite: bool = False) -> np.ndarray | None:
    """``[…TABLE].KEY``, a list of numbers (``finite``: of finite ones), or None when absent;
    an integer too large for a float is not a number."""
    v = doc.get(key)
    if v is None:
        return None
    got = [as_float(x) for x in v] if isinstance(v, list) else [None]
    if not all(x is not None and (math.isfinite(x) or not finite) for x in got):
        where = f"{table}.{key}" if table else key
        raise r.fail(where, f"is not a list of {'finite ' if finite else ''}numbers",
                     "regenerate the profile with calibrate")
    return np.asarray(got, dtype=np.float64)
