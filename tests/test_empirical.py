"""Empirical scaling (perfmodel.empirical): synthetic series of known form, with noise, must
give back their form and predict 16 times beyond the largest measured count within 10 %."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from perfmodel.empirical.fit import AMDAHL_WEIGHT, fit_scaling, predict_scaling, weights
from perfmodel.empirical.forms import candidates
from perfmodel.errors import FitError, InputError

KNOWN: dict[str, tuple[str, str, Callable[[np.ndarray], np.ndarray]]] = {
    # name: (family, the form that made it, T(p))
    "amdahl": ("strong", "work+serial", lambda p: 100 / p + 2),
    "tree": ("strong", "work+log", lambda p: 100 / p + 0.8 * np.log2(p)),
    "halo": ("strong", "work+halo2", lambda p: 100 / p + 8 * p ** -0.5),
    "alltoall": ("strong", "work+linear", lambda p: 100 / p + 0.3 * (p - 1)),
    "weak-tree": ("weak", "serial+log", lambda p: 10 + 0.5 * np.log2(p)),
    "weak-linear": ("weak", "serial+linear", lambda p: 10 + 0.05 * (p - 1)),
    "weak-sqrt": ("weak", "serial+sqrt", lambda p: 10 + 1.0 * (np.sqrt(p) - 1)),
}
COUNTS = np.repeat([1.0, 2, 4, 8, 16, 32], 3)     # three repetitions at each count


@pytest.mark.parametrize("name", list(KNOWN))
@pytest.mark.parametrize("seed", range(5))
def test_known_forms_come_back_and_predict_16_times_further(name: str, seed: int) -> None:
    family, form, law = KNOWN[name]
    rng = np.random.default_rng(seed)
    t = law(COUNTS) * (1 + 0.01 * rng.standard_normal(COUNTS.size))   # 1 % noise
    fit = fit_scaling(COUNTS, t, family)
    assert fit.chosen.fit.form.name == form
    truth = law(np.array([512.0]))[0]                      # 16 x the largest count
    assert fit.chosen.fit.time([512.0])[0] == pytest.approx(truth, rel=0.10)
    # the prediction averages every form by its cross-validation (on real series that beats
    # the one chosen form: bench/scaling_corpus.py), so it need not be the law's own; its
    # range must hold the law, the forms' own average must not stray far, and Amdahl's law
    # carries AMDAHL_WEIGHT of the average in ln t beside them
    pred = predict_scaling(fit, [512.0])
    assert pred.lo[0] <= truth <= pred.hi[0]
    forms = weights(np.array([c.score for c in fit.candidates]))
    own = math.exp(forms @ np.log([c.fit.time([512.0])[0] for c in fit.candidates]))
    assert own == pytest.approx(truth, rel=0.6)
    assert fit.amdahl is not None and fit.amdahl.fit.form.name == "work+serial"
    leaning = math.exp((1 - AMDAHL_WEIGHT) * math.log(own)
                       + AMDAHL_WEIGHT * math.log(fit.amdahl.fit.time([512.0])[0]))
    assert pred.time[0] == pytest.approx(leaning, rel=1e-9)
    assert pred.trust == ("far",)


@pytest.mark.parametrize("name", ["amdahl", "tree", "weak-tree"])
def test_the_family_is_detected_when_not_given(name: str) -> None:
    family, _, law = KNOWN[name]
    t = law(COUNTS) * (1 + 0.01 * np.random.default_rng(7).standard_normal(COUNTS.size))
    fit = fit_scaling(COUNTS, t)
    assert fit.family == family and "detected" in fit.notes[0]
    sizes = 1000 * (COUNTS if family == "weak" else np.ones_like(COUNTS))
    assert fit_scaling(COUNTS, t, sizes=sizes).family == family


def test_four_points_are_enough_and_three_are_not() -> None:
    """The issue's example: 900 s on 4 nodes, 480 on 8, 260 on 16 — with one more count."""
    fit = fit_scaling([4, 8, 16, 32], [900, 480, 260, 150])
    pred = predict_scaling(fit, [64, 128, 1024])
    assert np.all(pred.time > 0) and np.all(pred.lo > 0)
    assert np.all(pred.lo < pred.time) and np.all(pred.time < pred.hi)
    assert pred.trust == ("near", "near", "beyond")
    with pytest.raises(InputError, match="4096 is 128x the largest measured count"):
        predict_scaling(fit, [64, 4096])
    assert predict_scaling(fit, [4096], force=True).trust == ("beyond",)
    with pytest.raises(FitError, match="needs 4"):
        fit_scaling([4, 8, 16], [900, 480, 260])


def test_no_form_can_predict_a_negative_time() -> None:
    """Extra-P's plain-time fit of a falling series extrapolates below zero; these forms are
    sums of terms ≥ 0 with coefficients ≥ 0."""
    p = np.array([1.0, 2, 4, 8, 16, 32, 64, 128, 1024, 1e6])
    for family in ("strong", "weak"):
        for form in candidates(family):
            assert np.all(form.basis(p) >= 0), form.name
    fit = fit_scaling([4, 8, 16, 32, 64], [900, 480, 260, 150, 95], "strong")
    assert np.all(fit.chosen.fit.coefficients >= 0)
    assert np.all(predict_scaling(fit, [128, 256, 1024]).time > 0)


def test_bad_series_are_refused_in_one_line() -> None:
    with pytest.raises(InputError, match="positive"):
        fit_scaling([1, 2, 4, 8], [10, 5, -1, 2])
    with pytest.raises(InputError, match="neither stays fixed"):
        fit_scaling([1, 2, 4, 8], [10, 5, 3, 2], sizes=[1, 5, 3, 9])
    with pytest.raises(InputError, match="at least 1"):
        predict_scaling(fit_scaling([1, 2, 4, 8], [10, 5, 3, 2]), [0])
