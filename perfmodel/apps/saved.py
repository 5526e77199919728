"""Saved application fits: a model's constants as fitted, with their covariance, as plain TOML.

``perfmodel predict APP --fit TIMINGS --save FILE`` writes one; ``predict APP --from FILE``
predicts from it without the timings, with the same uncertainty bands and the same warning
beyond the node counts it was fitted on.  The file names the model and checks that its
constants are the model's, so a fit is never applied to another model by mistake.  Like every
input, it is data: read by a TOML parser, checked key by key, never run.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeGuard, cast, get_args

import numpy as np

from perfmodel.apps.fit import AppFit
from perfmodel.apps.machine import Machine
from perfmodel.apps.model import AppModel
from perfmodel.errors import InputError
from perfmodel.network.fit import Estimate, Status

KIND = "perfmodel application fit"
_STATS = ("n", "k", "rss", "median_rel_err", "max_rel_err")
STATUSES: tuple[str, ...] = get_args(Status)


def to_dict(fit: AppFit, provenance: Mapping[str, str]) -> dict[str, Any]:
    """The fit as a TOML-ready document (SI units; NaN where nothing could be estimated)."""
    return {
        "kind": KIND,
        "schema_version": 1,
        "model": fit.model.name,
        "provenance": dict(provenance),
        "fit": {"dof": fit.dof, "noise": fit.noise, "processes": list(fit.processes),
                **{k: float(v) for k, v in fit.fit.items()}},
        "notes": list(fit.notes),
        "params": {p.name: {"value": p.value, "stderr": p.stderr, "unit": p.unit,
                            "status": p.status, "source": p.source} for p in fit.params},
        "covariance": [[float(x) for x in row] for row in np.asarray(fit.covariance)],
    }


def dumps(fit: AppFit, provenance: Mapping[str, str]) -> str:
    from perfmodel.tomlw import dumps as toml

    head = (f"# perfmodel application fit of {fit.model.name!r}: plain data, safe to read and "
            "edit.\n# Predict from it with: perfmodel predict "
            f"{fit.model.name} --from THIS_FILE --machine PROFILE\n")
    return head + toml(to_dict(fit, provenance))


def load(path: str | Path, model: AppModel, machine: Machine | None = None) -> AppFit:
    """The fit saved at ``path`` for ``model``; one line naming the key for anything wrong."""
    from perfmodel.readers import parse_toml

    where = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(f"cannot be read ({getattr(exc, 'strerror', None) or exc})",
                         file=where, fix="give a fit written by predict --save") from None
    doc = parse_toml(text, where)

    def fail(key: str, what: str, fix: str) -> InputError:
        return InputError(f"{key}: {what}" if key else what, file=where, fix=fix)

    if doc.get("kind") != KIND:
        raise fail("", "is not an application fit",
                   "give a file written by perfmodel predict --save")
    if doc.get("schema_version") != 1:
        raise fail("schema_version", f"is {doc.get('schema_version')!r}",
                   "this perfmodel reads application fits of schema_version = 1")
    unknown = sorted(set(doc) - {"kind", "schema_version", "model", "provenance", "fit",
                                 "notes", "params", "covariance"})
    if unknown:
        raise fail(unknown[0], "is not a key of an application fit", "remove it")
    if doc.get("model") != model.name:
        raise fail("model", f"is {doc.get('model')!r}, not {model.name!r}",
                   f"save a fit of {model.name} first, or predict {doc.get('model')}")
    raw = doc.get("params")
    if not isinstance(raw, dict) or sorted(raw) != sorted(model.param_names):
        have = ", ".join(raw) if isinstance(raw, dict) else "none"
        raise fail("params", f"has {have}; the model's constants are "
                   f"{', '.join(model.param_names)}", "fit the model again and --save")
    params = tuple(_estimate(raw[q.name], q.name, q.unit, fail) for q in model.params)
    fitted = [p for p in params if p.status == "fitted"]
    cov = np.array(doc.get("covariance", []) or np.zeros((0, 0)), dtype=np.float64) \
        if _is_matrix(doc.get("covariance", [])) else None
    if cov is None or cov.reshape(-1).size != len(fitted) ** 2:
        raise fail("covariance", f"is not a {len(fitted)} x {len(fitted)} matrix of numbers",
                   "one row per fitted constant, in the order of params")
    cov = cov.reshape(len(fitted), len(fitted))
    if np.any(np.diag(cov) < 0):
        raise fail("covariance", "has a negative variance", "fit the model again and --save")
    info = doc.get("fit", {})
    if not isinstance(info, dict):
        raise fail("fit", "is not a table", "fit the model again and --save")
    dof, noise = info.get("dof", 0), info.get("noise", math.nan)
    span = info.get("processes", [1.0, math.inf])
    if isinstance(dof, bool) or not isinstance(dof, int) or dof < 0:
        raise fail("fit.dof", f"is {dof!r}", "a whole number of at least 0")
    if not _number(noise) or not (math.isnan(noise) or noise >= 0):
        raise fail("fit.noise", f"is {noise!r}", "a number of at least 0, or nan")
    if not (isinstance(span, list) and len(span) == 2 and all(_number(x) for x in span)
            and 1 <= span[0] <= span[1]):
        raise fail("fit.processes", f"is {span!r}", "[smallest, largest] node count fitted")
    stats = {k: float(info[k]) for k in _STATS if k in info and _number(info[k])}
    notes = doc.get("notes", [])
    if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
        raise fail("notes", "is not a list of text", "give a list of quoted strings")
    return AppFit(model, params, cov, dof, float(noise), (float(span[0]), float(span[1])),
                  stats, tuple(notes), machine)


def _number(x: object) -> TypeGuard[float]:
    return isinstance(x, int | float) and not isinstance(x, bool)


def _is_matrix(raw: object) -> bool:
    return isinstance(raw, list) and all(
        isinstance(row, list) and all(_number(x) for x in row) for row in raw)


def _estimate(raw: object, name: str, unit: str, fail: Any) -> Estimate:
    key = f"params.{name}"
    if not isinstance(raw, dict) or set(raw) - {"value", "stderr", "unit", "status", "source"}:
        raise fail(key, "is not a table of value, stderr, unit, status, source",
                   "fit the model again and --save")
    value, stderr = raw.get("value"), raw.get("stderr", math.nan)
    if not _number(value) or not math.isfinite(value):
        raise fail(f"{key}.value", f"is {value!r}", "give a finite number (SI units)")
    if not _number(stderr) or not (math.isnan(stderr) or stderr >= 0):
        raise fail(f"{key}.stderr", f"is {stderr!r}", "give a number of at least 0, or nan")
    status = raw.get("status", "fitted")
    if status not in STATUSES:
        raise fail(f"{key}.status", f"is {status!r}", f"use one of {', '.join(STATUSES)}")
    source = raw.get("source", "")
    if not isinstance(source, str):
        raise fail(f"{key}.source", "is not text", "write it in quotes")
    return Estimate(name, float(value), float(stderr), unit, cast(Status, status), source)
