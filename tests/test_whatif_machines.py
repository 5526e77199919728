"""``whatif --vary machine=A.toml,B.toml``: the same code, its constants fitted once on
--machine, swept across machine profiles; each machine's rows equal ``predict --on`` that
machine, and the fitted-on machine's equal a sweep without the axis."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from perfmodel.apps.fit import AppFit
from perfmodel.apps.metrics import scaling
from perfmodel.cli.app import app
from perfmodel.machine.hardware import changed, node_speed
from perfmodel.machine.profile import load
from perfmodel.whatif.sweep import Grid, sweep
from tests.conftest import ROOT

runner = CliRunner(env={"COLUMNS": "200"})
CAL = ROOT / "calibration"
BEOWULF = str(CAL / "beowulf-1995.toml")
HYGLAC = str(CAL / "hyglac.toml")
BEOWULF_II = str(CAL / "beowulf-ii.toml")
MYRINET = str(CAL / "myrinet-cluster.toml")
APPS = str(ROOT / "data" / "seeds" / "beowulf-1995-apps.csv")
PPM = ["ppm", "--machine", BEOWULF, "--fit", APPS, "--where", "code=ppm", "--where", "use=fit"]
COUNTS = [1.0, 2.0, 4.0, 8.0, 16.0]


def _json(args: list[str]) -> dict:
    r = runner.invoke(app, args)
    assert r.exit_code == 0, r.output
    return json.loads(r.stdout)


def _csv(args: list[str]) -> list[dict[str, str]]:
    r = runner.invoke(app, [*args, "--csv"])
    assert r.exit_code == 0, r.output
    return list(csv.DictReader(io.StringIO(r.stdout)))


def test_each_machine_answers_what_predict_on_it_answers() -> None:
    """The sweep across machines is the sum of its machines: each one's times and bands are
    ``predict --on`` that machine's (the same fit, the same node stand-in and work speed)."""
    rows = _csv(["whatif", *PPM, "--vary", f"machine={HYGLAC},{BEOWULF_II},{MYRINET}",
                 "--vary", "nodes=1,2,4,8,16"])
    assert [r["machine"] for r in rows[::5]] == ["hyglac", "beowulf-ii", "myrinet-cluster"]
    for other, label in ((HYGLAC, "hyglac"), (BEOWULF_II, "beowulf-ii"),
                         (MYRINET, "myrinet-cluster")):
        got = _json(["predict", *PPM, "--on", other, "--nodes", "1,2,4,8,16", "--json"])
        want = {row["nodes"]: row for row in got["rows"]}
        mine = [r for r in rows if r["machine"] == label]
        assert [float(r["nodes"]) for r in mine] == COUNTS
        for r in mine:
            w = want[float(r["nodes"])]
            assert float(r["time_s"]) == pytest.approx(w["time"], rel=1e-9)
            assert float(r["time_lo_s"]) == pytest.approx(w["time_lo"], rel=1e-4)
            assert float(r["time_hi_s"]) == pytest.approx(w["time_hi"], rel=1e-4)


def test_the_fitted_on_machine_is_the_sweep_without_the_axis(ppm: AppFit) -> None:
    prof = load(BEOWULF)
    counts = np.array(COUNTS)
    alone = sweep(ppm, prof, Grid({"nodes": counts}))
    both = sweep(ppm, prof, Grid({"nodes": counts, "machine": np.array([0.0, 1.0])},
                                 machines=(("beowulf-1995", None), ("hyglac", load(HYGLAC)))))
    assert list(both.grid.axes) == ["machine", "nodes"]   # the machine axis comes first
    assert both.time[:5] == pytest.approx(alone.time, rel=1e-12)
    assert both.lo[:5] == pytest.approx(alone.lo, rel=1e-12)
    assert both.speedup[:5] == pytest.approx(alone.speedup, rel=1e-12)
    assert both.baseline == {"nodes": 1.0, "machine": 0.0}
    assert both.config["machine"].tolist() == [0.0] * 5 + [1.0] * 5


def test_a_faster_node_divides_work_fitted_in_seconds(tmp_path: Path) -> None:
    """A model whose work is fitted seconds: on a node of twice the flop rate its compute
    takes half as long, its communication (costed on the machine) does not move."""
    model = tmp_path / "halves.toml"
    model.write_text('kind = "perfmodel application model"\nschema_version = 1\n'
                     'name = "halves"\ndescription = "work and one exchange"\n'
                     'source = "test"\n[params.work]\nunit = "s"\n'
                     'description = "work"\n[parts.run]\ncompute = "work / p"\n'
                     'communication = "exchange(1024, 4)"\n')
    a, b = load(BEOWULF), load(BEOWULF_II)
    speed, said = node_speed(a, b)
    assert speed == pytest.approx(2.0) and "2× as fast" in said
    got = _json(["whatif", str(model), "--machine", BEOWULF, "--set", "work=100",
                 "--vary", f"machine={BEOWULF},{BEOWULF_II}", "--vary", "nodes=1,4",
                 "--json"])
    rows = {(r["machine"], r["nodes"]): r for r in got["baseline"] + got["best"]}
    assert rows[("beowulf-ii", 1.0)]["time"] == pytest.approx(50.0, rel=1e-9)
    assert rows[("beowulf-1995", 1.0)]["time"] == pytest.approx(100.0, rel=1e-9)
    assert any("2× as fast" in n for n in got["notes"])
    # predict --on moves it the same way
    on = changed(b, work_speed=speed)
    from perfmodel.apps.model_file import load as load_model

    m = load_model(str(model))
    t = m.evaluate(np.array([4.0]), {"work": 100.0}, on)
    assert float(t[("run", "compute")][0]) == pytest.approx(12.5, rel=1e-12)


def test_a_machine_without_a_node_takes_the_fitted_ones_and_says_so() -> None:
    got = _json(["whatif", *PPM, "--vary", f"machine={HYGLAC}", "--vary", "nodes=1,4",
                 "--json"])
    assert any("hyglac has no node" in n and "beowulf-1995's stands in" in n
               for n in got["notes"])
    assert got["axes"]["machine"] == ["hyglac"]
    assert got["held"]["machine"] == {"value": "hyglac", "profiles_own": False}


def test_messages_are_judged_by_each_machines_own_calibration() -> None:
    """beowulf-1995 was calibrated on 1–8 KiB messages, the specified profiles on none: the
    note about messages outside names beowulf-1995, and the specified ones are said as
    such."""
    r = runner.invoke(app, ["whatif", *PPM, "--vary", f"machine={BEOWULF},{HYGLAC}",
                            "--vary", "nodes=1..16"])
    assert r.exit_code == 0, r.output
    assert "the profile beowulf-1995 was calibrated on" in r.output
    assert "hyglac: the profile's network is specified" in r.output
    assert "machine beowulf-1995 → hyglac" in r.output


@pytest.mark.parametrize(("vary", "said"), [
    (f"machine={BEOWULF},{BEOWULF}", "names a profile twice"),
    ("machine=nowhere.toml", "nowhere.toml"),
])
def test_bad_machine_axes_are_one_line(vary: str, said: str) -> None:
    r = runner.invoke(app, ["whatif", *PPM, "--vary", vary])
    assert r.exit_code == 2
    assert said in r.output
    assert "Traceback" not in r.output


def test_a_machine_axis_with_catalogue_entries_is_refused() -> None:
    r = runner.invoke(app, ["whatif", "nbody", "--machine", BEOWULF, "--candidates",
                            str(ROOT / "data" / "catalogues" / "beowulf-1995.toml"), "--fit",
                            APPS, "--where", "code=nbody", "--vary", "network=all",
                            "--vary", f"machine={HYGLAC}"])
    assert r.exit_code == 2
    assert "--vary machine sets the node and the network" in r.output


def test_scaling_on_another_machine_matches_the_sweep(ppm: AppFit) -> None:
    """The core: a machine's part of the sweep is :func:`scaling` on that machine."""
    a, b = load(BEOWULF), load(BEOWULF_II)
    speed, _ = node_speed(a, b)
    s = sweep(ppm, a, Grid({"nodes": np.array(COUNTS), "machine": np.array([0.0])},
                           machines=(("beowulf-ii", b),)))
    ref = scaling(ppm, COUNTS, machine=changed(b, work_speed=speed))
    assert s.time == pytest.approx(ref.time, rel=1e-12)


def _offers(tmp_path: Path, extra: str = "", second: str = BEOWULF_II) -> Path:
    """A catalogue of two whole machines (prices constructed for the test)."""
    cat = tmp_path / "machines.toml"
    cat.write_text(f'''kind = "perfmodel hardware catalogue"
schema_version = 1
name = "two-machines"
currency = "USD"
source = "test: constructed prices"
{extra}
[machines.first]
profile = "{BEOWULF}"
node_price = 2500
max_nodes = 16
source = "test"

[machines.second]
profile = "{second}"
node_price = 3000
switch_price = 2000
max_nodes = 8
source = "test"
''')
    return cat


def test_plan_weighs_whole_machines_by_their_prices(tmp_path: Path) -> None:
    cat = _offers(tmp_path)
    got = _json(["plan", *PPM, "--candidates", str(cat), "--target-time", "2s", "--json"])
    sweep_rows = _csv(["whatif", *PPM, "--candidates", str(cat), "--vary", "machine=all",
                       "--vary", "nodes=1..16"])
    price = {(r["machine"], float(r["nodes"])): r["price"] for r in sweep_rows}
    time = {(r["machine"], float(r["nodes"])): float(r["time_s"]) for r in sweep_rows}
    assert price[("first", 4.0)] == "10000" and price[("second", 4.0)] == "14000"
    assert price[("second", 9.0)] == ""   # beyond its largest size: not offered
    # the plan's choice is the cheapest configuration whose band's upper end meets 2 s
    sure = [(float(r["price"]), r["machine"], float(r["nodes"])) for r in sweep_rows
            if r["price"] and float(r["time_hi_s"]) <= 2.0]
    cheapest = min(sure)
    c = got["chosen"]
    assert (c["price"], c["machine"], c["nodes"]) == cheapest
    assert c["time"] == pytest.approx(time[(c["machine"], c["nodes"])], rel=1e-9)
    assert c["price_parts"]["nodes"] + c["price_parts"]["switches"] == c["price"]
    assert got["runners_up"] and {r["machine"] for r in got["runners_up"]} | {
        c["machine"]} == {"first", "second"}


def test_a_speedup_plan_counts_from_the_fitted_on_machine(tmp_path: Path) -> None:
    got = _json(["plan", *PPM, "--candidates", str(_offers(tmp_path)), "--target-speedup",
                 "4", "--json"])
    assert got["reference_time"] == pytest.approx(9.6, rel=1e-6)   # one node of first
    other = tmp_path / "other"
    other.mkdir()
    r = runner.invoke(app, ["plan", "ppm", "--machine", BEOWULF_II, "--fit", APPS, "--where",
                            "code=ppm", "--where", "use=fit", "--candidates",
                            str(_offers(other, second=MYRINET)), "--target-speedup", "4"])
    assert r.exit_code == 2 and "fitted on" in r.output and "Traceback" not in r.output


@pytest.mark.parametrize(("change", "said"), [
    (lambda t: t.replace("max_nodes = 8\n", ""), "[machines.second] max_nodes is None"),
    (lambda t: t.replace("node_price = 3000\n", ""), "[machines.second] has no node_price"),
    (lambda t: t + '\n[nodes.x]\nflop_rate = "1Gflop/s"\nprice = 1\nsource = "s"\n',
     "offers both whole machines and node types"),
    (lambda t: t.replace("switch_price = 2000", "switch_price = -1"), "switch_price is -1"),
    (lambda t: t.replace('[machines.second]\n', '[machines.second]\nrack = 1\n'),
     "unknown key 'rack'"),
])
def test_bad_machine_offers_are_one_line(tmp_path: Path, change: Any, said: str) -> None:
    cat = _offers(tmp_path)
    cat.write_text(change(cat.read_text()))
    r = runner.invoke(app, ["plan", *PPM, "--candidates", str(cat), "--budget", "20000"])
    assert r.exit_code == 2, r.output
    assert said in r.output and str(cat) in r.output
    assert len(r.output.strip().splitlines()) == 1


def test_an_offer_whose_profile_is_missing_is_named(tmp_path: Path) -> None:
    cat = _offers(tmp_path, second=str(tmp_path / "gone.toml"))
    r = runner.invoke(app, ["plan", *PPM, "--candidates", str(cat), "--budget", "20000"])
    assert r.exit_code == 2 and "gone.toml" in r.output and "Traceback" not in r.output


def test_without_the_fitted_on_machine_the_baseline_is_the_first_machines_own() -> None:
    got = _json(["whatif", *PPM, "--vary", f"machine={MYRINET}", "--vary", "channels=1,2",
                 "--vary", "nodes=1,4", "--json"])
    assert got["baseline_hardware"]["channels"] == 1.0   # myrinet's, not beowulf-1995's 2
    assert got["held"]["channels"] == {"value": 1.0, "profiles_own": True}
    assert {r["channels"] for r in got["baseline"]} == {1.0}


@pytest.mark.parametrize(("args", "said"), [
    (["--candidates", str(ROOT / "data" / "catalogues" / "beowulf-1995.toml"), "--vary",
      f"machine={BEOWULF_II}"], "prices node types and networks, not these machines"),
    (["--vary", "machine=all"], "machine=all names a catalogue's machines"),
])
def test_a_machine_axis_the_catalogue_cannot_price_is_refused(args: list[str], said: str
                                                              ) -> None:
    r = runner.invoke(app, ["whatif", *PPM, *args])
    assert r.exit_code == 2 and said in r.output and "Traceback" not in r.output


def test_a_machine_catalogue_refuses_node_axes_and_counts_past_its_machines(tmp_path: Path
                                                                           ) -> None:
    cat = str(_offers(tmp_path))
    r = runner.invoke(app, ["whatif", *PPM, "--candidates", cat, "--vary", "node=x"])
    assert r.exit_code == 2 and "offers whole machines" in r.output
    r = runner.invoke(app, ["plan", *PPM, "--candidates", cat, "--budget", "1e5",
                            "--nodes", "32..64"])
    assert r.exit_code == 2 and "offers at most 16 nodes" in r.output


ALASKA = ["--fit", str(ROOT / "data" / "alaska-apps" / "ib-gcc9-openmpi4-ucx" / "cp2k"),
          "--where", "figure=cp2k_time", "--machine", str(CAL / "alaska-edr.toml")]
ROCE = str(CAL / "alaska-roce.toml")


def test_without_a_model_each_machine_answers_what_predict_on_it_answers() -> None:
    """whatif with timings and no APP moves them to every machine: each machine's rows are
    ``predict --fit … --on`` that machine's, counts A never ran (32) included."""
    rows = _csv(["whatif", *ALASKA, "--vary", f"machine={CAL / 'alaska-edr.toml'},{ROCE}",
                 "--vary", "nodes=1,2,4,8,16,32"])
    got = _json(["predict", *ALASKA, "--on", ROCE, "--nodes", "1,2,4,8,16,32", "--json"])
    want = {r["nodes"]: r for r in got["rows"]}
    mine = [r for r in rows if r["machine"] == "alaska-roce"]
    assert [float(r["nodes"]) for r in mine] == [1.0, 2.0, 4.0, 8.0, 16.0, 32.0]
    for r in mine:
        w = want[int(float(r["nodes"]))]
        for col, key in (("time_s", "time"), ("time_lo_s", "time_lo"), ("time_hi_s", "time_hi")):
            assert float(r[col]) == pytest.approx(w[key], rel=1e-9)
        assert (r["extrapolated"] == "1") == (not w["measured_on_a"])
    edr = [r for r in rows if r["machine"] == "alaska-edr"]
    assert float(edr[3]["speedup"]) == pytest.approx(float(edr[0]["time_s"])
                                                     / float(edr[3]["time_s"]), rel=1e-9)


def test_without_a_model_plan_chooses_among_machine_offers(tmp_path: Path) -> None:
    cat = tmp_path / "alaska.toml"
    cat.write_text('kind = "perfmodel hardware catalogue"\nschema_version = 1\n'
                   'name = "two"\ncurrency = "USD"\nsource = "test: constructed prices"\n'
                   f'[machines.edr]\nprofile = "{CAL / "alaska-edr.toml"}"\nnode_price = 12000\n'
                   'switch_price = 20000\nmax_nodes = 16\nsource = "test"\n'
                   f'[machines.roce]\nprofile = "{ROCE}"\nnode_price = 10000\n'
                   'max_nodes = 16\nsource = "test"\n')
    got = _json(["plan", *ALASKA, "--candidates", str(cat), "--target-time", "200s", "--json"])
    rows = _csv(["whatif", *ALASKA, "--candidates", str(cat), "--vary", "machine=all",
                 "--vary", "nodes=1..16"])
    sure = min((float(r["price"]), r["machine"], float(r["nodes"])) for r in rows
               if r["price"] and float(r["time_hi_s"]) <= 200.0)
    c = got["chosen"]
    assert (c["price"], c["machine"], c["nodes"]) == sure
    assert any("without a model" in n for n in got["notes"])


@pytest.mark.parametrize(("args", "said"), [
    (["whatif", "--machine", str(CAL / "alaska-edr.toml"), "--vary", f"machine={ROCE}"],
     "no APP"),
    (["whatif", *ALASKA, "--vary", "nodes=1,2"], "moves timings to machines"),
    (["whatif", *ALASKA, "--vary", f"machine={ROCE}", "--vary", "channels=1,2"],
     "varies machines and node counts only"),
    (["whatif", *ALASKA, "--vary", f"machine={ROCE}", "--set", "x=1"], "give a model's"),
    (["plan", *ALASKA, "--candidates", str(ROOT / "data" / "catalogues" / "beowulf-1995.toml"),
      "--budget", "1e5"], "to a catalogue's machines"),
])
def test_without_a_model_what_needs_one_is_refused(args: list[str], said: str) -> None:
    r = runner.invoke(app, args)
    assert r.exit_code == 2, r.output
    assert said in r.output and "Traceback" not in r.output
