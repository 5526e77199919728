"""``perfmodel models``, model files' ``[valid]`` tables, and warnings outside them."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from perfmodel.apps.fit import given_fit, predict_app
from perfmodel.apps.model_file import builtin_names, load, loads
from perfmodel.cli.app import app
from perfmodel.errors import InputError

runner = CliRunner(env={"COLUMNS": "200"})
ROOT = Path(__file__).resolve().parent.parent

TOY = """kind = "perfmodel application model"
schema_version = 1
name = "toy"
{valid}
[size]
value = 16
unit = "tiles"
description = "tiles"

[params.work]
unit = "s"
description = "work on one process"

[parts.main]
compute = "work * n / p"
"""

# model -> (lowest, highest or None, powers of two)
STATED = {"npb-ep": (1, 4096, False), "npb-cg": (1, None, True), "npb-ft": (1, 128, True),
          "npb-lu": (1, 256, True), "npb-is": (1, 1024, True), "ppm": (1, "n", False)}


@pytest.mark.parametrize("name", builtin_names())
def test_each_builtin_model_states_its_range_with_a_reason_or_none(name: str) -> None:
    valid = load(name).valid
    if name not in STATED:
        assert valid is None
        return
    assert valid is not None and len(valid.reason) > 40
    lo, hi, twos = STATED[name]
    assert valid.powers_of_two == twos
    assert valid.text == (str(lo), "inf" if hi is None else str(hi))


def test_ft_holds_to_128_processes_in_powers_of_two() -> None:
    valid = load("npb-ft").valid
    assert valid is not None
    p = [1, 2, 3, 64, 128, 256]
    assert valid.outside(p).tolist() == [False, False, True, False, False, True]


def test_a_range_in_the_problem_size_moves_with_it() -> None:
    valid = load("ppm").valid
    assert valid is not None
    assert valid.outside([16, 32]).tolist() == [False, True]     # the model's 16 tiles
    assert valid.outside([16, 32], [8, 64]).tolist() == [True, False]
    assert valid.describe(16.0) == "p up to n = 16"


def test_predict_flags_and_says_node_counts_outside_the_range() -> None:
    from perfmodel.machine import Machine
    from perfmodel.machine.profile import load as load_profile

    fit = given_fit(load("npb-ep"), {}, Machine(load_profile(ROOT / "calibration/es80.toml")))
    r = predict_app(fit, [1024, 4096, 8192])
    assert r.outside.beyond_model.tolist() == [False, False, True]
    assert r.extrapolated.tolist() == [False, False, True]
    assert r.outside.why(2) == ["model's range"]
    (note,) = r.outside.notes()
    assert note.startswith("node count 8192 lies outside the model's range (p up to 4096)")


def test_predict_json_carries_the_warning() -> None:
    result = runner.invoke(app, ["predict", "npb-ft", "-m", str(ROOT / "calibration/es80.toml"),
                                 "--nodes", "2,3", "--json"])
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert [r["extrapolated_in"] for r in doc["rows"]] == [[], ["model's range"]]
    assert any("outside the model's range" in n for n in doc["extrapolation"])


def test_predict_text_warns() -> None:
    result = runner.invoke(app, ["predict", "npb-ft", "-m", str(ROOT / "calibration/es80.toml"),
                                 "--nodes", "2,256"])
    assert result.exit_code == 0, result.stderr
    assert "warning: node count 256 lies outside the model's range (p up to 128, powers of " \
           "two): NPB3.3-MPI/FT/ft.f" in result.stdout


@pytest.mark.parametrize(("valid", "fragment", "line"), [
    ('[valid]\nprocesses = [1, 8]\n', "valid needs a reason", 4),
    ('[valid]\nprocesses = [1, 8]\nreason = ""\n', "valid needs a reason", 6),
    ('[valid]\nprocesses = [1, 8]\nreason = "x"\ncolour = 1\n', "unknown key 'colour'", 7),
    ('[valid]\nprocesses = [8, 1]\nreason = "x"\n', "the lowest is above the highest", 5),
    ('[valid]\nprocesses = [0, 8]\nreason = "x"\n', "valid.processes (lowest) is 0", 5),
    ('[valid]\nprocesses = [1]\nreason = "x"\n', "valid.processes is [1]", 5),
    ('[valid]\nprocesses = [1, "m"]\nreason = "x"\n', "unknown name 'm'", 5),
    ('[valid]\npowers_of_two = "yes"\nreason = "x"\n', "powers_of_two is 'yes'", 5),
    ('[valid]\nreason = "x"\n', "valid states no range", 4),
    ('valid = 3\n', "valid is not a table", 4),
])
def test_a_bad_valid_table_is_refused_at_its_line(valid: str, fragment: str,
                                                  line: int) -> None:
    with pytest.raises(InputError) as err:
        loads(TOY.format(valid=valid), "toy.toml")
    assert fragment in err.value.what and err.value.line == line, err.value.one_line()


def test_a_good_valid_table() -> None:
    m = loads(TOY.format(valid='[valid]\nprocesses = [2, inf]\npowers_of_two = true\n'
                               'reason = "pairs"\n'))
    assert m.valid is not None and m.valid.describe() == "p from 2, powers of two"
    assert m.valid.lowest == 2.0 and math.isinf(float(m.valid.highest))  # type: ignore[arg-type]
    assert np.array_equal(m.valid.outside([1, 2, 3, 4]), [True, False, True, False])


def test_unknown_model_names_get_did_you_mean() -> None:
    result = runner.invoke(app, ["predict", "ppn"])
    assert result.exit_code == 2
    assert result.stderr.strip() == ("error: no built-in application model 'ppn' — did you "
                                     "mean 'ppm'? (perfmodel models lists them)")
    result = runner.invoke(app, ["models", "npb-fft"])
    assert result.exit_code == 2 and "did you mean 'npb-ft'" in result.stderr


def test_models_lists_constants_units_and_ranges() -> None:
    result = runner.invoke(app, ["models"])
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "hockney" in out and "alpha [s]" in out
    assert "end_wait [s]" in out and "fitted from --fit TIMINGS, or give with --set" in out
    assert "p up to 128, powers of two" in out


def test_models_json_says_which_constants_are_fitted() -> None:
    result = runner.invoke(app, ["models", "--json"])
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert {s["name"] for s in doc["network"]} >= {"hockney", "loggp"}
    apps = {m["name"]: m for m in doc["application"]}
    assert set(apps) == set(builtin_names())
    fitted = {c["name"] for c in apps["nbody"]["constants"] if c["fitted"]}
    assert fitted == {"end_wait", "top_build"}
    assert apps["npb-ft"]["valid"]["processes"] == ["1", "128"]
    assert apps["physical-optics"]["valid"] is None


def test_models_name_shows_one_in_full() -> None:
    result = runner.invoke(app, ["models", "npb-lu"])
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "point_bytes" in out and "2,300 B" in out and "px = 2 ^ ceil(log2(p) / 2)" in out
    assert "holds for: p up to 256, powers of two" in out
    one = json.loads(runner.invoke(app, ["models", "ppm", "--json"]).stdout)
    assert one["name"] == "ppm" and one["valid"]["processes"] == ["1", "n"]
