"""The Beowulf's two science codes (seed 000 §4.3) as application models on the calibrated
1995 machine: each figure against the sentence it checks.

Targets (fitted, so they hold by construction within the fit's residual): the one-node rates
(4.5 and 3.5 MFLOPS set the node rate and the tree code's share of it) and the fixed-size rows
marked ``use=fit`` at 8 and 16 nodes (PPM: one constant, ``end_wait``, fitted to the rate the
overhead sentence allows; N-body: ``end_wait`` and ``top_build``).  Predictions (nothing was
fitted to them): the PPM scaled-size rate, the communication share, what the overhead is made
of, and what a second channel changes.  Tolerances are the issue's: 15 % on a rate.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from perfmodel.apps.fit import AppFit, fit_app, timing_inputs
from perfmodel.apps.metrics import Scaling, scaling
from perfmodel.apps.model_file import load
from perfmodel.apps.timings import read_timings
from perfmodel.machine import Machine
from perfmodel.machine.profile import load as load_profile
from tests.conftest import ROOT

RATES = ROOT / "data" / "seeds" / "beowulf-1995-apps.csv"


@cache
def beowulf(channels: int | None = None) -> Machine:
    return Machine(load_profile(ROOT / "calibration" / "beowulf-1995.toml"), channels)


@cache
def fitted(code: str, share: float | None = None) -> AppFit:
    """The code's constants fitted to its ``use=fit`` MFLOPS rows, as `predict --fit` does
    (``share``: N-body's moved_share, held there instead of its default)."""
    model = load(code)
    rows = read_timings(RATES).select(code=code, use="fit")
    assert rows.measure == "mflops"
    times, sizes = timing_inputs(model, rows, {})
    fixed = {} if share is None else {"moved_share": share}
    return fit_app(model, rows.processes, times, rows.parts, fixed, machine=beowulf(),
                   sizes=sizes)


def run(code: str, channels: int | None = None, weak: bool = False,
        size: float | None = None) -> Scaling:
    return scaling(fitted(code), [1, 8, 16], machine=beowulf(channels), weak=weak, size=size)


def test_rates_file_cites_every_row() -> None:
    rows = read_timings(RATES)
    assert len(rows) == 9
    assert set(rows.labels["kind"]) == {"seed", "derived"}
    assert set(rows.labels["use"]) == {"fit", "check"}
    assert all(s.startswith(("seed 000", "28.8 /", "19 /", "16 x 4.5 x (1 - 0.60)"))
               for s in rows.labels["source"])
    # every derived row is used by a fit; the rows no fit uses are the seed's own numbers
    pairs = list(zip(rows.labels["kind"], rows.labels["use"], strict=True))
    assert all(u == "fit" for k, u in pairs if k == "derived")
    assert all(k == "seed" for k, u in pairs if u == "check")


def test_ppm_fixed_size_rates() -> None:
    """'the PPM code achieved 4.5 MFLOPS on a single processor'; '31 MFLOPS' on 16 (a check:
    the fit used 28.8, the most the overhead sentence allows)."""
    s = run("ppm")
    assert s.mflops[0] == pytest.approx(4.5, rel=1e-6)
    prose = read_timings(RATES).select(code="ppm", problem="fixed", use="check")
    assert prose.processes.tolist() == [16.0] and prose.times.tolist() == [31.0]
    assert s.mflops[2] == pytest.approx(31, rel=0.15)
    # measured: 28.7 MFLOPS at 16 (7.5 % below the prose's 31), 26.5 at 8
    assert s.mflops[2] == pytest.approx(28.68, abs=0.1)


def test_ppm_scaled_size_is_a_prediction() -> None:
    """'The full 16 processor Beowulf delivered 62 MFLOPS': each process keeps the 1-node
    problem (16 tiles); nothing was fitted to the scaled rows."""
    s = run("ppm", weak=True, size=16)
    seed = read_timings(RATES).select(code="ppm", problem="scaled")
    assert seed.processes.tolist() == [1.0, 16.0]
    assert s.mflops[2] == pytest.approx(seed.times[1], rel=0.15)          # 62 MFLOPS
    assert s.mflops[2] == pytest.approx(65.6, abs=0.5)     # measured: 6 % above the seed
    assert 1 - s.efficiency[2] == pytest.approx(0.089, abs=0.01)  # seed: 'only 16%' below


def test_ppm_overhead_is_synchronisation_and_communication_about_one_percent() -> None:
    """'The total time required for the communication routines is only 1% of the wall clock
    time. The majority of the overhead time appears to be taken up by synchronization.'"""
    s = run("ppm")
    comm_of_wall = s.terms["communication"][2] / s.time[2]
    assert 0 < comm_of_wall < 0.015            # measured 0.76 %
    assert s.shares["synchronisation"][2] > 0.9 * s.overhead[2]     # measured 98.7 %


def test_ppm_overhead_above_sixty_percent() -> None:
    """'For 16 processors, the overhead is greater than 60%'.  The fit's 16-node row is the
    highest rate that sentence allows, so the fitted overhead lands just above 60 %: the 8-node
    row (the '10%' gain) pulls the single constant up.  With the prose's 31 MFLOPS instead, the
    overhead could not pass 57 %."""
    s = run("ppm")
    assert s.overhead[2] > 0.60                                      # measured 60.16 %
    assert s.overhead[2] == pytest.approx(0.6016, abs=0.001)
    fixed = read_timings(RATES).select(code="ppm", problem="fixed")
    prose = fixed.select(use="check").times[0]
    one = fixed.times[fixed.processes == 1][0]
    assert 1 - prose / (16 * one) < 0.58                             # 57 % with the prose's 31


def test_ppm_second_channel_changes_almost_nothing() -> None:
    """'For the PPM code (both cases) the effect was negligible.'"""
    for weak, size in ((False, None), (True, 16.0)):
        one = run("ppm", 1, weak, size).time[2]
        two = run("ppm", 2, weak, size).time[2]
        assert abs(one / two - 1) < 0.01


def test_fixed_size_codes_gain_little_from_8_to_16() -> None:
    """'Both fixed-size codes gain only about 10% going from 8 to 16 nodes.'  PPM's is a
    prediction (one constant, fitted to 1, 8 and 16 together); the N-body code's two constants
    are exactly determined by its 8- and 16-node rows, so its gain is a target."""
    ppm = run("ppm")
    assert 1.05 < ppm.time[1] / ppm.time[2] < 1.20       # measured 1.084
    nbody = run("nbody")
    assert nbody.time[1] / nbody.time[2] == pytest.approx(1.10, rel=0.01)   # measured 1.098
    assert any("exactly determined" in note for note in fitted("nbody").notes)


def test_nbody_rates_and_overhead() -> None:
    """'3.5 MFLOPS' on one node, '19 MFLOPS' on 16, 'the overhead actually exceeds 50%'."""
    s = run("nbody")
    assert s.mflops[0] == pytest.approx(3.5, rel=1e-3)
    assert s.mflops[2] == pytest.approx(19, rel=0.15)      # measured 19.0 (fitted)
    assert s.overhead[2] > 0.5                             # measured 66 %


def test_nbody_second_channel_few_percent_but_half_again_in_load_balancing() -> None:
    """'the overall improvement obtained by using two networks was only a few percent.
    However, ... Using two networks provided a 50% improvement for this portion.'"""
    model, values = fitted("nbody").model, fitted("nbody").values
    p = np.array([16.0])
    one = model.part_times(p, values, beowulf(1))
    two = model.part_times(p, values, beowulf(2))
    overall = sum(one.values())[0] / sum(two.values())[0]
    balance = one["balance"][0] / two["balance"][0]
    # measured 1.043: the load-balancing phase gives 3 points, the gather of the top cells
    # (16 per process, assumed) the rest
    assert 1.02 < overall < 1.05
    assert 1.35 < balance < 1.8              # measured 1.63 (the shared medium's dual gain)


@pytest.mark.parametrize(("share", "inside"), [(0.12, False), (0.14, True), (0.5, True),
                                               (0.59, True), (0.62, False)])
def test_nbody_moved_share_window(share: float, inside: bool) -> None:
    """The window the model's note gives for ``moved_share`` (0.131 to 0.606): inside it a second
    network gains 2 % to 5 % overall; the default, 0.5, sits inside."""
    fit = fitted("nbody", share)
    model = fit.model
    p = np.array([16.0])
    one = sum(model.part_times(p, fit.values, beowulf(1)).values())[0]
    two = sum(model.part_times(p, fit.values, beowulf(2)).values())[0]
    assert bool(1.02 < one / two < 1.05) is inside
    assert next(q.value for q in model.params if q.name == "moved_share") == 0.5


def test_predict_cli_reads_the_rates_file() -> None:
    """The command of docs/howto/model-your-code.md: MFLOPS rows become times through ppm's
    flop count at each row's size, and the fit gives back the seed's rates."""
    import json

    from typer.testing import CliRunner

    from perfmodel.cli.app import app

    out = CliRunner().invoke(app, ["predict", "ppm", "--machine", str(ROOT / "calibration" /
                                                                   "beowulf-1995.toml"),
                                   "--fit", str(RATES), "--where", "code=ppm",
                                   "--where", "use=fit", "--nodes", "1,8,16", "--json"])
    assert out.exit_code == 0, out.output
    rows = json.loads(out.output)["rows"]
    assert rows[0]["mflops"] == pytest.approx(4.5, rel=1e-6)
    assert rows[2]["mflops"] == pytest.approx(28.68, abs=0.1)
    fitted_wait = next(q for q in json.loads(out.output)["parameters"] if q["name"] == "end_wait")
    assert fitted_wait["value"] == pytest.approx(fitted("ppm").values["end_wait"], rel=1e-6)


def test_every_figure_has_a_band_from_the_fitted_constant() -> None:
    """PPM has one fitted constant, so each figure's band is, to first order, the figure at
    end_wait -/+ t * stderr: its width is checked against that direct evaluation (within 3 %;
    the direct ends are a little skewed where the figure curves, as 1/T does).
    N-body's fit is exactly determined: no band at all, never a made-up one."""
    from dataclasses import replace

    from scipy.special import stdtrit

    fit = fitted("ppm")
    s = run("ppm")
    est = next(q for q in fit.params if q.name == "end_wait")
    step = stdtrit(fit.dof, 0.975) * est.stderr
    moved = [scaling(replace(fit, params=tuple(replace(q, value=q.value + d)
                                               if q.name == "end_wait" else q
                                               for q in fit.params)),
                     [1, 8, 16], machine=beowulf()) for d in (-step, step)]
    for key, got in (("speedup", s.speedup), ("overhead", s.overhead),
                     ("mflops", s.mflops), ("karp_flatt", s.karp_flatt)):
        lo, hi = s.bands[key]
        ends = sorted(float(getattr(m, key)[2]) for m in moved)
        assert lo[2] < got[2] < hi[2]
        assert hi[2] - lo[2] == pytest.approx(ends[1] - ends[0], rel=0.03)
    assert s.bands["overhead"][0][2] < 0.60 < s.bands["overhead"][1][2]   # 55-65 %, measured
    nbody = run("nbody")
    assert all(np.all(np.isnan(lo)) and np.all(np.isnan(hi)) for lo, hi in nbody.bands.values())
