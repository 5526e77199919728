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
from typing import Any

import numpy as np

from perfmodel.apps.fit import AppFit
from perfmodel.apps.model import AppModel
from perfmodel.machine import Machine

KIND = "perfmodel application fit"
_STATS = ("n", "k", "rss", "median_rel_err", "max_rel_err")


def to_dict(fit: AppFit, provenance: Mapping[str, str]) -> dict[str, Any]:
    """The fit as a TOML-ready document (SI units; NaN where nothing could be estimated)."""
    return {
        "kind": KIND,
        "schema_version": 1,
        "model": fit.model.name,
        "provenance": dict(provenance),
        "fit": {"dof": fit.dof, "noise": fit.noise, "processes": list(fit.processes),
                "sizes": list(fit.sizes),
                **{k: float(v) for k, v in fit.fit.items()}},
        "notes": list(fit.notes),
        "params": {p.name: {"value": p.value, "stderr": p.stderr, "unit": p.unit,
                            "status": p.status, "source": p.source} for p in fit.params},
        "covariance": [[float(x) for x in row] for row in np.asarray(fit.covariance)],
    }


def dumps(fit: AppFit, provenance: Mapping[str, str]) -> str:
    from perfmodel.files.write import dumps as toml

    head = (f"# perfmodel application fit of {fit.model.name!r}: plain data, safe to read and "
            "edit.\n# Predict from it with: perfmodel predict "
            f"{fit.model.name} --from THIS_FILE --machine PROFILE\n")
    return head + toml(to_dict(fit, provenance))


def load(path: str | Path, model: AppModel, machine: Machine | None = None) -> AppFit:
    """The fit saved at ``path`` for ``model``; one line naming the key for anything wrong
    (read with the profile's checks, :class:`~perfmodel.machine.profile.DocReader`)."""
    from perfmodel.files.doc import DocReader, read_covariance, read_estimate
    from perfmodel.files.toml import check_header, read_toml

    where = str(path)
    doc, text = read_toml(path, "an application fit (written by predict --save)", "fit")
    r = DocReader(where, redo="fit the model again and --save", text=text)
    check_header(doc, where, KIND, "application fit", text,
                 fix="give a file written by perfmodel predict --save")
    r.only(doc, {"kind", "schema_version", "model", "provenance", "fit", "notes", "params",
                 "covariance"})
    if doc.get("model") != model.name:
        raise r.fail("model", f"is {doc.get('model')!r}, not {model.name!r}",
                     f"save a fit of {model.name} first, or predict {doc.get('model')}")
    raw = r.table(doc, "params")
    if sorted(raw) != sorted(model.param_names):
        raise r.fail("params", f"has {', '.join(raw)}; the model's constants are "
                     f"{', '.join(model.param_names)}", r.redo)
    params = tuple(read_estimate(r.at(f"params.{q.name}."), q.name, raw[q.name], _finite,
                                 q.unit) for q in model.params)
    cov = read_covariance(r, doc.get("covariance"), sum(p.status == "fitted" for p in params))
    info = r.table(doc, "fit") if "fit" in doc else {}
    at = r.at("fit.")
    dof, noise = at.quality(info, noise="noise")
    span = info.get("processes", [1.0, math.inf])
    if not (isinstance(span, list) and len(span) == 2 and
            all(isinstance(x, int | float) and not isinstance(x, bool) for x in span)
            and 1 <= span[0] <= span[1]):
        raise at.fail("processes", f"is {span!r}", "[smallest, largest] node count fitted")
    sizes = info.get("sizes", [0.0, math.inf])
    if not (isinstance(sizes, list) and len(sizes) == 2 and
            all(isinstance(x, int | float) and not isinstance(x, bool) for x in sizes)
            and 0 <= sizes[0] <= sizes[1]):
        raise at.fail("sizes", f"is {sizes!r}", "[smallest, largest] problem size fitted")
    stats = {k: at.number(info, k, finite=False) for k in _STATS if k in info}
    notes = doc.get("notes", [])
    if not isinstance(notes, list) or not all(isinstance(n, str) for n in notes):
        raise r.fail("notes", "is not a list of text", "give a list of quoted strings")
    if "sizes" not in info and model.uses_size and any(p.status == "fitted" for p in params):
        notes = [*notes, "the saved fit does not record the problem sizes it was fitted on "
                         "(saved by an older perfmodel), so sizes are not checked for "
                         "extrapolation: save it again"]
    return AppFit(model, params, cov, int(dof), noise, (float(span[0]), float(span[1])),
                  stats, tuple(notes), machine, (float(sizes[0]), float(sizes[1])))


def _finite(name: str, value: float) -> str | None:
    return None if math.isfinite(value) else f"{name} must be a finite number (SI units)"
