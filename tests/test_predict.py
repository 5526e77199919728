"""Prediction intervals hold what they promise, never go negative, and flag extrapolation."""

import math
from dataclasses import replace

import numpy as np
import pytest

from perfmodel.network.fit import NetworkModel, fit_model
from perfmodel.network.predict import predict
from tests.conftest import log_grid, synthetic

TRUTH = {"alpha": 5e-6, "beta": 1e9}


def test_95_percent_intervals_cover_about_95_percent_of_new_measurements() -> None:
    rng = np.random.default_rng(7)
    inside = total = 0
    for seed in range(20):
        model = fit_model(synthetic("hockney", TRUTH, seed, reps=2), "hockney").model
        sizes = log_grid()
        pred = predict(model, sizes, 0.95)
        noise = 1 + 0.05 * rng.standard_normal(sizes.size)
        new = (TRUTH["alpha"] + sizes / TRUTH["beta"]) * noise
        inside += int(np.sum((new >= pred.time_lo) & (new <= pred.time_hi)))
        total += sizes.size
    assert 0.92 <= inside / total <= 0.98, inside / total


def test_wider_level_wider_interval_and_bandwidth_consistent() -> None:
    model = fit_model(synthetic("hockney", TRUTH, 1), "hockney").model
    p90, p99 = predict(model, [1024.0], 0.90), predict(model, [1024.0], 0.99)
    assert p99.time_lo[0] < p90.time_lo[0] < p90.time[0] < p90.time_hi[0] < p99.time_hi[0]
    assert p90.bandwidth[0] == pytest.approx(1024 / p90.time[0])
    assert p90.bandwidth_lo[0] == pytest.approx(1024 / p90.time_hi[0])


def test_never_negative_and_extrapolation_flagged() -> None:
    model = fit_model(synthetic("hockney", TRUTH, 2, sizes=np.array([64.0, 512, 4096]),
                                reps=1, noise=0.3), "hockney").model
    pred = predict(model, [0.0, 64.0, 4096.0, 1e9], 0.999)
    assert np.all(pred.time > 0) and np.all(pred.time_lo > 0)
    assert pred.extrapolated.tolist() == [True, False, False, True]
    assert math.isnan(pred.bandwidth[0])  # no bandwidth for a zero-byte message


def test_uncertainty_grows_away_from_the_data() -> None:
    model = fit_model(synthetic("hockney", TRUTH, 3, sizes=np.geomspace(1e3, 1e5, 12)),
                      "hockney").model
    pred = predict(model, [1e4, 1e8])
    width = np.log(pred.time_hi / pred.time_lo)
    assert width[1] > width[0]


def test_a_model_without_uncertainty_gives_no_interval() -> None:
    from perfmodel.params import Estimate

    model = NetworkModel("hockney", (Estimate("alpha", 2e-6, math.nan, "s", "fixed"),
                                     Estimate("beta", 5.33e9 / 8, math.nan, "B/s", "fixed")),
                         np.zeros((0, 0)), math.nan, 0, (0.0, math.inf))
    pred = predict(model, [1024.0])
    assert pred.time[0] == pytest.approx(2e-6 + 1024 / (5.33e9 / 8))
    assert math.isnan(pred.time_lo[0]) and not pred.extrapolated[0]


def test_interval_uses_student_t_at_the_fit_dof() -> None:
    from scipy import stats

    data = synthetic("hockney", TRUTH, 8, sizes=np.array([10.0, 1e3, 1e5, 1e6, 4e6]), reps=1)
    fitted = fit_model(data, "hockney").model
    model = replace(fitted, measured=None)   # the law's own interval
    assert model.dof == 3
    pred = predict(model, [1e4], 0.95)
    g = np.array([1.0, -1e4 / model.values["beta"] ** 2]) / pred.time[0]
    h = stats.t.ppf(0.975, 3) * np.sqrt(g @ model.covariance @ g + model.noise**2)
    assert pred.time_hi[0] == pytest.approx(pred.time[0] * np.exp(h), rel=1e-4)
    # held to the table, the same half-width joined in quadrature by z × the table's spread
    assert fitted.measured is not None
    held = predict(fitted, [1e4], 0.95)
    s = float(fitted.measured.uncertainty(np.array([1e4]))[0])
    assert 0 < s <= model.noise
    wide = math.sqrt(h**2 + (stats.norm.ppf(0.975) * s) ** 2)
    assert held.time[0] == pytest.approx(pred.time[0] * fitted.measured.factor([1e4])[0])
    assert held.time_hi[0] / held.time[0] == pytest.approx(math.exp(wide), rel=1e-4)


def test_inside_the_sizes_measured_the_model_follows_the_table_and_the_law_beyond() -> None:
    """A table the law cannot follow (a bump the law has no term for): at each size measured
    the model gives that size's median, between two sizes the ratio interpolated in
    ln(1 + size), past the largest the law alone or, where that is slower, the table's top
    rate; the law's parameters are as fitted."""
    sizes = np.geomspace(1.0, 2**20, 21)
    law = TRUTH["alpha"] + sizes / TRUTH["beta"]
    bump = np.where((sizes > 100) & (sizes < 5000), 1.3, 1.0)
    times = np.repeat(law * bump, 3) * np.tile([0.99, 1.0, 1.01], len(sizes))
    from perfmodel.measurements import Measurements

    data = Measurements("bump", np.repeat(sizes, 3), times, tuple(range(2, 65)))
    model = fit_model(data, "hockney").model
    assert model.measured is not None
    med = law * bump
    assert model.time(sizes) == pytest.approx(med, rel=1e-9)
    mid = math.sqrt(sizes[9] * sizes[10])
    r = np.log(med[9:11] / model.law(sizes[9:11]))
    w = (math.log1p(mid) - math.log1p(sizes[9])) / (math.log1p(sizes[10]) - math.log1p(sizes[9]))
    want = model.law([mid])[0] * math.exp(r[0] * (1 - w) + r[1] * w)
    assert model.time([mid])[0] == pytest.approx(want, rel=1e-9)
    far = np.array([2.0**22, 2.0**26])
    # the table's top (2^19 to 2^20 B) rises at the true rate: past it, the true law
    true = TRUTH["alpha"] + far / TRUTH["beta"]
    assert model.time(far) == pytest.approx(np.minimum(model.law(far), true), rel=1e-9)
    assert model.top_rate == pytest.approx(TRUTH["beta"], rel=1e-9)


def test_past_the_largest_size_calibrated_the_range_widens_by_the_stated_law() -> None:
    """Inside the calibrated sizes the interval is the fit's own; past them its ln half-width
    is √(own² + (K·√log2(m / largest))²), K from EXTRAPOLATION_K at the level."""
    from perfmodel.network import models as registry
    from perfmodel.network.predict import EXTRAPOLATION_K, extrapolation_half, log_interval

    model = replace(fit_model(synthetic("hockney", TRUTH, 4, sizes=np.geomspace(8.0, 65536.0,
                                                                                14)),
                              "hockney").model, measured=None)   # the law's own interval
    sizes = np.array([1024.0, 65536.0, 4 * 65536.0, 16 * 65536.0])
    pred = predict(model, sizes, 0.95)
    own_lo, own_hi = log_interval(lambda v: registry.evaluate("hockney", sizes, v),
                                  model.values, model.fitted_names, model.covariance,
                                  model.dof, model.noise, 0.95)
    largest = model.size_range[1]
    assert pred.time_lo[:2] == pytest.approx(own_lo[:2], rel=1e-12)
    own = np.log(own_hi / pred.time)
    want = np.sqrt(own**2 + (EXTRAPOLATION_K[0.95] * np.sqrt(np.log2(sizes / largest)
                                                            .clip(0)))**2)
    assert np.log(pred.time_hi / pred.time) == pytest.approx(want, rel=1e-9)
    assert extrapolation_half(np.array([16.0]), 1.0, 0.95)[0] == pytest.approx(
        2 * EXTRAPOLATION_K[0.95], rel=1e-12)
    halves = [extrapolation_half(np.array([8.0]), 1.0, q)[0] for q in (0.3, 0.5, 0.9, 0.95,
                                                                          0.99, 0.999)]
    assert halves == sorted(halves) and halves[0] > 0
    assert any("past the largest size calibrated" in n for n in pred.notes)


def test_a_line_rate_holds_the_lower_end() -> None:
    model = fit_model(synthetic("hockney", TRUTH, 5, sizes=np.geomspace(8.0, 65536.0, 14)),
                      "hockney").model
    sizes = np.array([1e6, 1e8])
    free, capped = predict(model, sizes, 0.95), predict(model, sizes, 0.95, ceiling=1.05e9)
    assert np.all(free.time_lo < sizes / 1.05e9)   # without it, faster than the wire
    assert capped.time_lo == pytest.approx(sizes / 1.05e9, rel=1e-12)
    assert capped.time_hi == pytest.approx(free.time_hi, rel=1e-12)
    assert any("line rate" in n for n in capped.notes)


def test_past_the_table_no_byte_costs_more_than_at_its_top() -> None:
    """A table whose rate rises at its top (a protocol switch at 8 KiB: 2 GB/s below, 8 GB/s
    above) under a law fitted to all of it (Hockney's one rate, slower than the top): past the
    largest size the time is the largest size's plus the extra bytes at the top rate, and the
    prediction says so."""
    sizes = np.geomspace(8.0, 65536.0, 14)
    times = np.where(sizes < 8192, 2e-6 + sizes / 2e9, 4e-6 + sizes / 8e9)
    from perfmodel.measurements import Measurements

    data = Measurements("switch", sizes, times, tuple(range(2, 16)))
    model = fit_model(data, "hockney").model
    assert model.top_rate == pytest.approx(8e9, rel=1e-9)
    far = np.array([2.0**20, 2.0**24])
    want = times[-1] + (far - sizes[-1]) / 8e9
    assert np.all(model.law(far) > want)           # the law alone is slower there
    assert model.time(far) == pytest.approx(want, rel=1e-9)
    pred = predict(model, far, 0.95)
    assert any("no byte costs more than the table's did from 32 KiB to 64 KiB (8 GB/s)" in n
               and "jumped" not in n for n in pred.notes)


def test_a_switch_inside_the_top_doubling_is_paid_once_not_by_every_byte() -> None:
    """A rendezvous handshake between the table's last two sizes (8 µs more from 64 KiB on, at
    the same 5 GB/s): the top doubling then adds bytes at 2.25 GB/s, slower than the table's
    average rate at its top (2.83 GB/s), so the doubling below it sets the rate: exactly 5 GB/s,
    and past the table the time is the largest size's plus the extra bytes at 5 GB/s.  Without
    the jump the top doubling's own rate stands."""
    from perfmodel.measurements import Measurements

    sizes = 2.0 ** np.arange(3, 17)
    times = 2e-6 + sizes / 5e9 + np.where(sizes >= 65536, 8e-6, 0.0)
    model = fit_model(Measurements("jump", sizes, times, tuple(range(2, 16))), "hockney").model
    assert 65536 / (times[-1] - times[-2]) / 2 < sizes[-1] / times[-1]   # the jump, as built
    assert model.top_rate == pytest.approx(5e9, rel=1e-9)
    assert model.top_span is not None and model.top_span[1:] == (16384.0, 32768.0, True)
    far = np.array([2.0**20, 2.0**24])
    want = times[-1] + (far - sizes[-1]) / 5e9
    assert model.time(far) == pytest.approx(np.minimum(model.law(far), want), rel=1e-9)
    if np.any(model.law(far) > want):
        notes = predict(model, far, 0.95).notes
        assert any("from 16 KiB to 32 KiB" in n and "jumped" in n for n in notes)
    # a doubling below whose time barely grew (10 ns on 5 µs) gives no rate: the top's stands
    flat = times.copy()
    flat[-2] = flat[-3] + 1e-8
    kept_flat = fit_model(Measurements("flat", sizes, flat, tuple(range(2, 16))),
                          "hockney").model
    assert kept_flat.top_rate == pytest.approx(32768 / (flat[-1] - flat[-2]), rel=1e-6)
    # a jump whose doubling below added bytes no faster keeps the top's own rate
    slow = 2e-6 + sizes / 5e9
    slow[-3:] = 10e-6, 30e-6, 69e-6   # 16, 32, 64 KiB: 0.82 GB/s below, 0.84 at the top
    kept = fit_model(Measurements("slow", sizes, slow, tuple(range(2, 16))), "hockney").model
    assert 32768 / 39e-6 < 65536 / 69e-6   # the top is slower than the average: a jump
    assert kept.top_rate == pytest.approx(32768 / 39e-6, rel=1e-6)


def test_a_dense_table_s_top_rate_spans_a_doubling() -> None:
    """NetPIPE's sizes n − 3, n, n + 3: the top rate is read between sizes a doubling apart, so
    1 % noise on the last few sizes moves it by about 1 %, not by their few bytes' worth."""
    base = np.geomspace(64.0, 65536.0, 11)
    sizes = np.sort(np.concatenate([base - 3, base, base + 3]))
    rng = np.random.default_rng(7)
    times = (3e-6 + sizes / 5e9) * (1 + 0.01 * rng.standard_normal(len(sizes)))
    from perfmodel.measurements import Measurements

    model = fit_model(Measurements("dense", sizes, times, tuple(range(2, 2 + len(sizes)))),
                      "hockney").model
    assert model.top_rate == pytest.approx(5e9, rel=0.06)
