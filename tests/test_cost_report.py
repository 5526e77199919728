"""The cost of fitting application models and of reports (issue 29): the same fits for less.
Equivalences and known answers, never timings: the least-squares solver called directly is
lmfit's, bit for bit; a model linear in its constants is fitted through a matrix that equals
its formulas, to the fit through the formulas; a report fits each distinct run once, and
what it shows is what fitting every run afresh shows."""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

from perfmodel.apps import fit as F
from perfmodel.apps.model_file import load, loads
from perfmodel.apps.timings import read_timings
from perfmodel.report import build as builder
from perfmodel.report.context import Context
from perfmodel.report.spec import load as load_spec
from tests.conftest import ROOT

PO = ROOT / "data" / "seeds" / "physical-optics.csv"
TABLES = [(m, t) for m in ("beowulf", "t3d") for t in ("1", "2")]
HEAD = 'kind = "perfmodel application model"\nschema_version = 1\nname = "toy"\n'


def toy(compute: str, lower: float = 0.0) -> str:
    return HEAD + f"""
[params.serial]
unit = "s"
description = "done once"
lower = {lower}

[params.work]
unit = "s"
description = "shared work on one process"

[parts.run]
serial = "serial"
compute = "{compute}"
"""


def test_the_solver_is_lmfits_least_squares_bit_for_bit() -> None:
    """A nonlinear fit with a bound, from two starts: the same x and the same (JᵀJ)⁻¹ as
    lmfit.minimize(method="least_squares", scale_covar=False) gives."""
    import lmfit

    x = np.linspace(0.0, 4.0, 25)
    rng = np.random.default_rng(4)
    y = 3.0 * np.exp(-1.3 * x) + 0.2 + 0.01 * rng.standard_normal(x.size)

    def residual(v: np.ndarray) -> np.ndarray:
        return np.asarray(v[0] * np.exp(-v[1] * x) + v[2] - y, dtype=np.float64)

    for start in ([1.0, 1.0, 1.0], [10.0, 0.1, 0.0]):
        ps = lmfit.Parameters()
        for name, value in zip("abc", start, strict=True):
            ps.add(name, value=value, min=0.0)
        ref = lmfit.minimize(lambda q: residual(np.array([q[n].value for n in "abc"])), ps,
                             method="least_squares", scale_covar=False)
        got, covar = F.least_squares(residual, np.array(start), np.zeros(3))
        assert got.tolist() == [ref.params[n].value for n in "abc"]
        assert covar is not None and np.array_equal(covar, ref.covar)


def test_a_fit_without_constants_to_fit_keeps_the_given_ones() -> None:
    model = loads(toy("work / p"))
    fit = F.fit_app(model, [1, 2, 4, 8], [12.0, 7.0, 4.5, 3.2], fixed={"serial": 2.0,
                                                                      "work": 10.0})
    assert fit.values == {"serial": 2.0, "work": 10.0} and fit.fit["k"] == 0
    expected = np.log(2.0 + 10.0 / np.array([1, 2, 4, 8.0])) - np.log([12.0, 7.0, 4.5, 3.2])
    assert fit.fit["rss"] == pytest.approx(float(expected @ expected), rel=1e-12)


@pytest.mark.parametrize(("text", "linear"), [
    (toy("work / p"), True),
    (toy("work * log2(p) / p + 0.5 * serial"), True),
    (toy("work ** 2 / p"), False),
    (toy("max(work, 1) / p"), False),
    (toy("work * serial / p"), False),
])
def test_linear_in_the_constants_known_answers(text: str, linear: bool) -> None:
    assert F.linear_in(loads(text), ["serial", "work"]) is linear


def test_builtin_models_linear_or_not() -> None:
    po = load("physical-optics")
    assert F.linear_in(po, po.param_names)
    ppm = load("ppm")   # constants inside machine calls (kernel, exchange): not linear
    assert not F.linear_in(ppm, [q.name for q in ppm.params if q.name == "flops_per_zone"])


def _rows(machine: str, table: str) -> tuple[np.ndarray, np.ndarray, list[str]]:
    rows = read_timings(PO).select(machine=machine, table=table)
    return rows.processes, rows.times, list(rows.parts)


@pytest.mark.parametrize(("machine", "table"), TABLES)
def test_the_matrix_is_the_formulas(machine: str, table: str) -> None:
    """offset + basis·c equals the model's formulas at any constants ≥ 0 (to rounding), and
    its Jacobian of ln T equals central differences of the formulas."""
    model = load("physical-optics")
    p, _, labels = _rows(machine, table)
    free = list(model.param_names)
    rows = F.linear_rows(model, free, {}, np.zeros(len(free)), p, labels, None, None,
                         np.ones(len(free)))
    assert rows is not None
    rng = np.random.default_rng(1)
    for _ in range(5):
        c = rng.uniform(0.0, 100.0, len(free)) * (rng.uniform(size=len(free)) > 0.3)
        exact = F._predicted(model, dict(zip(free, c, strict=True)), p, labels, None)
        np.testing.assert_allclose(rows.times(c), exact, rtol=1e-13, atol=0.0)
        c = c + 1.0
        jac = rows.log_jacobian(c)
        for j in range(len(free)):
            h = np.zeros(len(free))
            h[j] = 1e-6 * c[j]
            d = (np.log(rows.times(c + h)) - np.log(rows.times(c - h))) / (2 * h[j])
            np.testing.assert_allclose(jac[:, j], d, rtol=1e-5, atol=1e-9)


def test_no_matrix_where_a_term_could_turn_negative() -> None:
    """A constant allowed below zero may make a term negative, which the formulas clip and no
    matrix does: the fit goes through the formulas."""
    model = loads(toy("work / p", lower=-5.0))
    p = np.array([1.0, 2.0, 4.0, 8.0])
    assert F.linear_rows(model, ["serial", "work"], {}, np.array([-5.0, 0.0]), p, [""] * 4,
                         None, None, np.ones(2)) is None


def _fit_without_matrix(monkeypatch: pytest.MonkeyPatch, *args: object) -> F.AppFit:
    with monkeypatch.context() as m:
        m.setattr(F, "linear_rows", lambda *a, **k: None)
        return F.fit_app(*args)   # type: ignore[arg-type]


@pytest.mark.parametrize(("machine", "table"), [("beowulf", "1"), ("t3d", "2")])
def test_fit_through_the_matrix_is_the_fit_through_the_formulas(
        machine: str, table: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Two physical-optics tables of seed 004 (the four are in the hyglac report, which
    tests/test_reports.py compares with its committed numbers): the same least squares (RSS
    to 1e-9), the same constants held on their bounds, notes and degrees of freedom, every
    value and standard error within 1e-5 (the solver's own tolerance, 1e-8 on the cost,
    leaves that much)."""
    model = load("physical-optics")
    p, t, labels = _rows(machine, table)
    fast = F.fit_app(model, p, t, labels)
    slow = _fit_without_matrix(monkeypatch, model, p, t, labels)
    assert fast.fit["rss"] == pytest.approx(slow.fit["rss"], rel=1e-9)
    assert (fast.notes, fast.dof, [q.status for q in fast.params]) == \
        (slow.notes, slow.dof, [q.status for q in slow.params])
    for a, b in zip(fast.params, slow.params, strict=True):
        assert a.value == pytest.approx(b.value, rel=1e-5, abs=1e-12)
        if math.isfinite(b.stderr):
            assert a.stderr == pytest.approx(b.stderr, rel=1e-5)
    np.testing.assert_allclose(fast.covariance, slow.covariance, rtol=1e-5, atol=1e-18)


SPEC = """kind = "perfmodel report"
schema_version = 1
title = "Two sections, one fit"
figures = "svg"

[[section]]
kind = "scaling"
title = "First"
nodes = "1,2,4,8,16"
metric = "time"

[[section.run]]
label = "Hyglac, Table 1"
model = "physical-optics"
fit = "{po}"
where = {{ machine = "beowulf", table = "1" }}

[[section.run]]
label = "T3D, Table 1"
model = "physical-optics"
fit = "{po}"
where = {{ machine = "t3d", table = "1" }}

[[section]]
kind = "scaling"
title = "Again"
nodes = "1,2,4,8,16,32"
metric = "speedup"

[[section.run]]
label = "Hyglac, Table 1, again"
model = "physical-optics"
fit = "{po}"
where = {{ machine = "beowulf", table = "1" }}
"""


def test_a_report_fits_each_distinct_run_once_and_shows_what_fresh_fits_show(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    spec_path = tmp_path / "two.toml"
    spec_path.write_text(SPEC.format(po=PO.as_posix()))
    spec = load_spec(spec_path)
    fitted: list[object] = []
    fit_app = F.fit_app

    def counted(*a: object, **k: object) -> F.AppFit:
        fitted.append(a[0])
        return fit_app(*a, **k)   # type: ignore[arg-type]

    monkeypatch.setattr(F, "fit_app", counted)
    shared = builder.build(spec, tmp_path / "two.md")
    assert len(fitted) == 2                          # three runs, two distinct fits
    assert fitted[0] is fitted[1]                    # one model, compiled once
    fitted.clear()
    with monkeypatch.context() as m:                 # every run fitted afresh, as before
        m.setattr(Context, "once", lambda self, key, make: make())
        m.setattr(Context, "app_model", lambda self, name: load(name))
        fresh = builder.build(spec, tmp_path / "two.md")
    assert len(fitted) == 3
    assert shared.markdown == fresh.markdown and shared.figures == fresh.figures
