"""The Beowulf's two science codes (seed 000 §4.3) as application models on the calibrated
1995 machine: each figure against the sentence it checks.

Targets (fitted, so they hold by construction within the fit's residual): the one-node rates
(4.5 and 3.5 MFLOPS set the node rate and the tree code's share of it) and the fixed-size rates
at 8 and 16 nodes (one constant per code, ``end_wait``).  Predictions (nothing was fitted to
them): the PPM scaled-size rate, the communication share, what the overhead is made of, and what
a second channel changes.  Tolerances are the issue's: 15 % on a rate.
"""

from __future__ import annotations

from functools import cache

import numpy as np
import pytest

from perfmodel.apps.fit import AppFit, fit_app, timing_inputs
from perfmodel.apps.machine import Machine
from perfmodel.apps.metrics import Scaling, scaling
from perfmodel.apps.model import load
from perfmodel.apps.timings import read_timings
from perfmodel.profile import load as load_profile
from tests.conftest import ROOT

RATES = ROOT / "data" / "seeds" / "beowulf-1995-apps.csv"


@cache
def beowulf(channels: int | None = None) -> Machine:
    return Machine(load_profile(ROOT / "calibration" / "beowulf-1995.toml"), channels)


@cache
def fitted(code: str) -> AppFit:
    """The code's constants fitted to its fixed-size MFLOPS rows, as `predict --fit` does."""
    model = load(code)
    rows = read_timings(RATES).select(code=code, problem="fixed")
    assert rows.measure == "mflops"
    times, sizes = timing_inputs(model, rows, {})
    return fit_app(model, rows.processes, times, rows.parts, machine=beowulf(), sizes=sizes)


def run(code: str, channels: int | None = None, weak: bool = False,
        size: float | None = None) -> Scaling:
    return scaling(fitted(code), [1, 8, 16], machine=beowulf(channels), weak=weak, size=size)


def test_rates_file_cites_every_row() -> None:
    rows = read_timings(RATES)
    assert len(rows) == 8
    assert set(rows.labels["kind"]) == {"seed", "derived"}
    assert all(s.startswith(("seed 000", "31 /", "19 /")) for s in rows.labels["source"])


def test_ppm_fixed_size_rates() -> None:
    """'the PPM code achieved 4.5 MFLOPS on a single processor'; '31 MFLOPS' on 16."""
    s = run("ppm")
    assert s.mflops[0] == pytest.approx(4.5, rel=1e-6)
    assert s.mflops[2] == pytest.approx(31, rel=0.15)
    # measured: 31.3 MFLOPS at 16, 27.5 at 8
    assert s.mflops[2] == pytest.approx(31.3, abs=0.3)


def test_ppm_scaled_size_is_a_prediction() -> None:
    """'The full 16 processor Beowulf delivered 62 MFLOPS': each process keeps the 1-node
    problem (16 tiles); nothing was fitted to the scaled rows."""
    s = run("ppm", weak=True, size=16)
    assert s.mflops[2] == pytest.approx(62, rel=0.15)
    assert s.mflops[2] == pytest.approx(66.4, abs=0.5)     # measured: 7 % above the seed
    assert 1 - s.efficiency[2] == pytest.approx(0.078, abs=0.01)  # seed: 'only 16%' below


def test_ppm_overhead_is_synchronisation_and_communication_about_one_percent() -> None:
    """'The total time required for the communication routines is only 1% of the wall clock
    time. The majority of the overhead time appears to be taken up by synchronization.'"""
    s = run("ppm")
    comm_of_wall = s.terms["communication"][2] / s.time[2]
    assert 0 < comm_of_wall < 0.015            # measured 0.8 %
    assert s.shares["synchronisation"][2] > 0.9 * s.overhead[2]
    # 'For 16 processors, the overhead is greater than 60%': with 4.5 -> 31 MFLOPS the overhead
    # 1 - E is 1 - 31/72 = 57 %, so the two sentences cannot both hold exactly; the model
    # follows the rates (known gap, stated in the model's notes and the closing note)
    assert s.overhead[2] == pytest.approx(1 - 31 / 72, abs=0.02)


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
    assert 1.05 < ppm.time[1] / ppm.time[2] < 1.20       # measured 1.14
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
    # measured 1.10, at the top of 'a few percent': the load-balancing phase alone gives 6
    # points, the gather of top cells (64 cells per process, assumed) the rest
    assert 1.02 < overall < 1.12
    assert 1.35 < balance < 1.8              # measured 1.63 (the shared medium's dual gain)


def test_predict_cli_reads_the_rates_file() -> None:
    """The README's command: MFLOPS rows become times through ppm's flop count at each row's
    size, and the fit gives back the seed's rates."""
    import json

    from typer.testing import CliRunner

    from perfmodel.cli.app import app

    out = CliRunner().invoke(app, ["predict", "ppm", "--machine", str(ROOT / "calibration" /
                                                                   "beowulf-1995.toml"),
                                   "--fit", str(RATES), "--where", "code=ppm",
                                   "--where", "problem=fixed", "--nodes", "1,8,16", "--json"])
    assert out.exit_code == 0, out.output
    rows = json.loads(out.output)["rows"]
    assert rows[0]["mflops"] == pytest.approx(4.5, rel=1e-6)
    assert rows[2]["mflops"] == pytest.approx(31.3, abs=0.3)
    fitted_wait = next(q for q in json.loads(out.output)["parameters"] if q["name"] == "end_wait")
    assert fitted_wait["value"] == pytest.approx(fitted("ppm").values["end_wait"], rel=1e-6)
