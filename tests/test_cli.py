"""The command line: fast start, JSON contracts in SI units, safe writes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from perfmodel import __version__
from perfmodel.cli.app import app
from tests.conftest import DATA, MPICH

runner = CliRunner(env={"COLUMNS": "200"})
HEAVY = ("lmfit", "scipy", "sympy", "matplotlib", "numpy")


@pytest.mark.parametrize("args", [["--help"], ["--version"], ["calibrate", "--help"],
                                  ["inspect", "--help"], ["measure", "--help"]])
def test_help_and_version_load_no_heavy_library(args: list[str]) -> None:
    code = (
        "import sys\n"
        "from perfmodel.cli.app import app\n"
        f"try:\n    app({args!r})\nexcept SystemExit:\n    pass\n"
        f"print(sorted(m for m in {HEAVY!r} if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout


def test_version() -> None:
    result = runner.invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout.strip() == f"perfmodel {__version__}"


def test_calibrate_json_contract(in_tmp: Path) -> None:
    result = runner.invoke(app, ["calibrate", str(MPICH), "--name", "m", "--json"])
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["model"] == "piecewise" and doc["profile"] == "calibration/m.toml"
    assert (in_tmp / "calibration" / "m.toml").is_file()
    units = {p["name"]: p["unit"] for p in doc["parameters"]}
    assert units["alpha_1"] == "s" and units["beta_1"] == "B/s" and units["breakpoint_1"] == "B"
    for p in doc["parameters"]:
        assert set(p) == {"name", "value", "stderr", "unit", "status", "source"}
    fit = doc["fit"]
    assert fit["median_rel_err"] <= 0.05 and fit["n_points"] == 24
    assert {"aic", "bic", "max_rel_err", "dof"} <= set(fit)
    assert len(doc["points"]) == 24
    last = doc["points"][-1]
    assert last["size"] == 4194304 and last["measured"] == pytest.approx(461.695e-6)
    assert last["fitted"] > 0 and last["line"] == 32
    models = {c["model"] for c in doc["selection"]["candidates"]}
    assert models == {"hockney", "packet", "piecewise"}
    assert "lowest BIC" in doc["selection"]["reason"]


def test_calibrate_table_and_refusal_to_overwrite(in_tmp: Path) -> None:
    first = runner.invoke(app, ["calibrate", str(MPICH), "--model", "hockney", "--name", "h"])
    assert first.exit_code == 0
    assert "alpha" in first.stdout and "profile written: calibration/h.toml" in first.stdout
    before = (in_tmp / "calibration" / "h.toml").read_text()
    again = runner.invoke(app, ["calibrate", str(MPICH), "--name", "h"])
    assert again.exit_code == 2
    assert again.stderr.strip() == ("error: calibration/h.toml: exists already — use --force "
                                    "to replace it, or another name")
    assert (in_tmp / "calibration" / "h.toml").read_text() == before
    forced = runner.invoke(app, ["calibrate", str(MPICH), "--name", "h", "--force", "--quiet"])
    assert forced.exit_code == 0 and "piecewise" in forced.stdout


def test_network_json_in_si(in_tmp: Path) -> None:
    runner.invoke(app, ["calibrate", str(MPICH), "--name", "m", "--quiet"])
    result = runner.invoke(app, ["network", "calibration/m.toml", "--sizes", "1B,8KiB,1MiB,16MiB",
                                 "--json"])
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    rows = doc["rows"]
    assert [r["size"] for r in rows] == [1, 8192, 1048576, 16777216]
    for r in rows:
        assert 0 < r["time_lo"] < r["time"] < r["time_hi"]
        assert r["bandwidth"] == pytest.approx(r["size"] / r["time"])
    assert [r["extrapolated"] for r in rows] == [False, False, False, True]
    # the measured 1 MiB one-way time is 129.13 us; the model must be close
    assert rows[2]["time"] == pytest.approx(129.13e-6, rel=0.05)


def test_network_table(in_tmp: Path) -> None:
    runner.invoke(app, ["calibrate", str(MPICH), "--name", "m", "--quiet"])
    result = runner.invoke(app, ["network", "calibration/m.toml", "--sizes", "8KiB"])
    assert result.exit_code == 0 and "8 KiB" in result.stdout and "95 % range" in result.stdout


def test_spec_only_profile(in_tmp: Path) -> None:
    spec = DATA / "seeds" / "sci-cluster.spec.toml"
    result = runner.invoke(app, ["calibrate", "--spec", str(spec), "--name", "sci", "--json"])
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert [p["status"] for p in doc["parameters"]] == ["fixed", "fixed"]
    assert doc["fit"]["n_points"] == 0 and doc["points"] == []
    net = runner.invoke(app, ["network", "calibration/sci.toml", "--sizes", "0", "--json"])
    assert json.loads(net.stdout)["rows"][0]["time"] == pytest.approx(2e-6)


@pytest.mark.parametrize(("args", "fragment"), [
    (["calibrate"], "no measurements given"),
    (["network", "nope.toml"], "nope.toml: no such file"),
    (["network", str(MPICH)], "this is a perfmodel CSV of pingpong measurements"),
    (["network", "x.toml", "--sizes", "1 parsec"], "unknown size unit"),
])
def test_usage_errors_are_one_line(in_tmp: Path, args: list[str], fragment: str) -> None:
    result = runner.invoke(app, args)
    assert result.exit_code == 2
    assert len(result.stderr.strip().splitlines()) == 1 and fragment in result.stderr


def test_models_lists_the_registry() -> None:
    result = runner.invoke(app, ["models"])
    assert result.exit_code == 0
    for name in ("hockney", "loggp", "packet", "piecewise"):
        assert name in result.stdout


def test_console_script_runs() -> None:
    exe = Path(sys.executable).parent / "perfmodel"
    out = subprocess.run([str(exe), "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == f"perfmodel {__version__}"


@pytest.mark.parametrize(("args", "fragment"), [
    # a bad value says its own fix; the others point to the help
    (["network", "x.toml", "--level", "2"], "--level '2' is not a number from 0.5 to 0.999"),
    (["calibrate", "--bogus"], "No such option: --bogus"),
    (["network"], "Missing argument"),
])
def test_option_errors_from_the_console_script_are_one_line(args: list[str],
                                                            fragment: str) -> None:
    exe = Path(sys.executable).parent / "perfmodel"
    out = subprocess.run([str(exe), *args], capture_output=True, text=True)
    assert out.returncode == 2 and out.stdout == ""
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and fragment in lines[0]
    assert ("--help'" in lines[0]) == ("--level" not in args)


def test_no_arguments_shows_help() -> None:
    exe = Path(sys.executable).parent / "perfmodel"
    out = subprocess.run([str(exe)], capture_output=True, text=True)
    assert out.returncode == 0 and "calibrate" in out.stdout and out.stderr == ""


def test_several_inputs_are_fitted_together(in_tmp: Path) -> None:
    """Two files of one measurement (MPICH's rows, split in two) make one law of every row;
    MPICH and Open MPI on one machine, their times 2.4 times apart at the same sizes, do not:
    one table's law, the other named."""
    from tests.conftest import OMPI

    lines = MPICH.read_text().splitlines()
    head = [ln for ln in lines if ln.startswith("#") or ln.startswith("bytes")]
    rows = [ln for ln in lines if ln not in head]
    halves = [in_tmp / "a.csv", in_tmp / "b.csv"]
    for i, path in enumerate(halves):
        path.write_text("\n".join([*head, *rows[i::2]]) + "\n")
    result = runner.invoke(app, ["calibrate", *map(str, halves), "--model", "hockney",
                                 "--name", "both", "--json"])
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["fit"]["n_points"] == 24 and len(doc["inputs"]) == 2
    assert [i["path"] for i in doc["inputs"]] == [str(p) for p in halves]
    apart = json.loads(runner.invoke(app, ["calibrate", str(MPICH), str(OMPI), "--model",
                                           "hockney", "--no-write", "--json"]).stdout)
    assert apart["fit"]["n_points"] == 24 and len(apart["inputs"]) == 2
    assert any(n.startswith("the ping-pong tables disagree") for n in apart["notes"])


BENCH = Path(__file__).parent / "fixtures" / "benchmarks"


def test_inspect_json_contract() -> None:
    result = runner.invoke(app, ["inspect", str(BENCH / "imb_np4.txt"),
                                 str(BENCH / "osu_bibw.txt"), "--json", "--rows", "2"])
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["units"]["time"] == "s" and doc["units"]["size"] == "B"
    imb, osu = doc["files"]
    assert (imb["format"], imb["version"], len(imb["tables"])) == ("imb", "2021.11", 3)
    ping, ar2, ar4 = imb["tables"]
    assert ping["calibrate_default"] and not ar2["calibrate_default"]
    assert (ping["benchmark"], ping["processes"], ping["pairs"], ping["rows"]) == \
        ("PingPong", [2], [1], 5)
    assert ar4["processes"] == [4] and ar4["rows"] == 1
    assert any("time-out" in n for n in ar4["notes"])
    first = ping["first_rows"]
    assert len(first) == 2 and first[1]["size"] == 1
    assert first[1]["time"] == pytest.approx(3.36e-6) and first[1]["line"] == 38
    (bibw,) = osu["tables"]
    assert bibw["pattern"] == "bidirectional" and "both directions" in bibw["meaning"]
    # one direction's bandwidth is half the printed sum of both
    assert bibw["first_rows"][0]["bandwidth"] == pytest.approx(2.57e6 / 2)
    assert bibw["first_rows"][0]["rate"] == pytest.approx(2.57e6)


def test_inspect_table_names_what_it_found() -> None:
    result = runner.invoke(app, ["inspect", str(BENCH / "imb_mpi1.txt")])
    assert result.exit_code == 0, result.stderr
    out = result.stdout
    assert "imb 2021.11, 6 tables" in out
    assert "calibrate uses PingPong (2 processes)" in out
    assert "t[usec] as printed: one-way" in out   # markup-like text is shown as written


def test_calibrate_says_which_table_it_used(in_tmp: Path) -> None:
    result = runner.invoke(app, ["calibrate", str(BENCH / "imb_mpi1.txt"), "--json"])
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    used = [n for n in doc["notes"] if "used" in n]
    assert used and "imb 2021.11 PingPong (2 processes), 22 rows, lines 40–61 (of 6 tables)" \
        in used[0]
    assert doc["inputs"][0]["benchmark"] == "PingPong (2 processes)"
    assert doc["inputs"][0]["format"] == "imb 2021.11"


def test_calibrate_another_benchmark(in_tmp: Path) -> None:
    result = runner.invoke(app, ["calibrate", str(BENCH / "imb_mpi1.txt"), "--benchmark",
                                 "Exchange", "--no-write", "--json"])
    assert result.exit_code == 0, result.stderr
    doc = json.loads(result.stdout)
    assert doc["inputs"][0]["benchmark"] == "Exchange (2 processes)"
    assert any("not a ping-pong" in n for n in doc["notes"])
    assert doc["points"][-1]["measured"] == pytest.approx(269.83e-6)
    bad = runner.invoke(app, ["calibrate", str(BENCH / "imb_mpi1.txt"), "-b", "Alltoall"])
    assert bad.exit_code == 2
    assert "has no benchmark 'Alltoall' — it holds: PingPong, PingPing, Sendrecv" in bad.stderr
