"""Numeric guards: a fit that cannot identify a constant says so, a negative or NaN time is
never shown as a number, bands never go below zero, extrapolation is marked."""

from __future__ import annotations

import json
import math
from pathlib import Path

import numpy as np
import pytest
from typer.testing import CliRunner

from perfmodel.apps.fit import fit_app
from perfmodel.apps.model_file import loads
from perfmodel.cli.app import app
from perfmodel.errors import FitError

runner = CliRunner()
ROOT = Path(__file__).resolve().parent.parent

TREE = """kind = "perfmodel application model"
schema_version = 1
name = "tree"
[params.s]
unit = "s"
description = "serial"
[params.w]
unit = "s"
description = "work"
[params.t]
unit = "s"
description = "one level of a tree"
[parts.run]
serial = "s"
compute = "w / p"
communication = "t * log2(p)"
"""
TRUTH = {"s": 1.0, "w": 100.0, "t": 0.5}


def test_three_constants_from_two_node_counts_are_refused_by_name() -> None:
    """Four timings leave one degree of freedom by count, but at two node counts only two
    combinations of s, w and t are seen: the fit names them instead of printing ± 0."""
    model = loads(TREE, "tree.toml")
    p = np.array([2.0, 2, 4, 4])
    t = model.part_times(p, TRUTH)["run"] * np.array([1.0, 1.01, 1.0, 0.99])
    with pytest.raises(FitError, match=r"cannot tell s, w, t apart: only a combination of "
                                       r"them is determined \(runs at 2 node counts\)"):
        fit_app(model, p, t)


def test_collinear_constants_are_refused_whatever_the_node_counts() -> None:
    model = loads(TREE.replace('serial = "s"', 'serial = "s + t"')
                  .replace('communication = "t * log2(p)"', 'synchronisation = "0 * p"'),
                  "tied.toml")
    p = np.array([1.0, 2, 4, 8, 16])
    with pytest.raises(FitError, match="cannot tell s, t apart") as exc:
        fit_app(model, p, 10.0 + 100.0 / p)
    assert "runs at" not in str(exc.value)   # five counts: the model is at fault, not the runs


def test_identified_constants_fit_and_poor_ones_are_named() -> None:
    model = loads(TREE, "tree.toml")
    p = np.array([1.0, 2, 4, 8, 16])
    clean = fit_app(model, p, model.part_times(p, TRUTH)["run"] * (1 + 0.01 * np.cos(p)))
    assert all(math.isfinite(q.stderr) for q in clean.params if q.status == "fitted")
    assert not [n for n in clean.notes if "determined" in n]
    noisy = fit_app(model, p, model.part_times(p, TRUTH)["run"] * (1 + 0.3 * np.cos(3 * p)))
    poor = [n for n in noisy.notes if "poorly determined by the timings" in n]
    assert poor and all(n.split()[0] in TRUTH for n in poor)


NEGATIVE = """kind = "perfmodel application model"
schema_version = 1
name = "neg"
[params.w]
unit = "s"
description = "work"
value = 100
[params.c]
unit = "s"
description = "a term that goes negative"
value = 1
[parts.run]
compute = "w / p"
communication = "0 - c * (p - 1)"
"""


def test_a_negative_term_is_no_valid_prediction(tmp_path: Path) -> None:
    """100/p − (p − 1) is positive at 8 nodes (5.5 s), but its communication is −7 s: the
    model does not hold there, and no figure of that row is shown as a number."""
    f = tmp_path / "neg.toml"
    f.write_text(NEGATIVE)
    text = runner.invoke(app, ["predict", str(f), "--nodes", "1,8"])
    assert text.exit_code == 0, text.output
    row8 = next(ln for ln in text.stdout.splitlines() if ln.strip().startswith("8 "))
    assert "no valid prediction" in row8 and "%" not in row8 and "5.5" not in row8
    assert "warning: no valid prediction at 8 node(s)" in text.stdout
    doc = json.loads(runner.invoke(app, ["predict", str(f), "--nodes", "1,8", "--json"]).stdout)
    eight = doc["rows"][1]
    assert eight["time"] is None and eight["speedup"] is None
    assert doc["rows"][0]["time"] == pytest.approx(100.0)


def test_whatif_and_plan_bands_stay_positive(tmp_path: Path) -> None:
    """A fit with huge standard errors: the sweep's band is multiplicative, so its lower end
    is a positive time, never -1,040,000 s."""
    model = tmp_path / "tree.toml"
    model.write_text(TREE.replace('communication = "t * log2(p)"',
                                  'communication = "t * (p - 1)"'))
    runs = tmp_path / "runs.csv"
    runs.write_text("nodes,time_s\n1,100\n1,101\n1,99.5\n2,51\n8,14.2\n8,14.6\n8,14.0\n")
    res = runner.invoke(app, ["whatif", str(model), "-m", str(ROOT / "calibration/hyglac.toml"),
                              "--fit", str(runs), "--vary", "nodes=1..64", "--json"])
    assert res.exit_code == 0, res.output
    doc = json.loads(res.stdout)
    lows = [r["time_lo"] for r in doc["best"] if r.get("time_lo") is not None]
    assert lows and all(lo > 0 for lo in lows)


def test_network_bands_that_overflow_are_not_shown(tmp_path: Path) -> None:
    """Four sizes 1–8 B say nothing about bandwidth: at 1 MiB the band is unbounded, and it is
    left out (None), not 0."""
    data = tmp_path / "tiny.csv"
    data.write_text("size_bytes,one_way_us\n1,50\n2,51\n4,49\n8,50.5\n1,50.2\n2,49.8\n4,50.1\n"
                    "8,50\n")
    prof = tmp_path / "tiny.toml"
    assert runner.invoke(app, ["calibrate", str(data), "--model", "hockney", "--out",
                               str(prof), "--quiet"]).exit_code == 0
    res = runner.invoke(app, ["network", str(prof), "--sizes", "1MiB", "--json"])
    assert res.exit_code == 0, res.output
    assert "Warning" not in res.stderr
    row = json.loads(res.stdout)["rows"][0]
    assert row["extrapolated"] is True
    assert row["time_lo"] is None or row["time_lo"] > 0


def test_whatif_and_plan_mark_node_counts_beyond_the_fit(tmp_path: Path) -> None:
    """Constants fitted on 1–16 nodes: a sweep to 64 marks 32 and 64 (text, JSON, CSV), and a
    plan that picks beyond 16 says so."""
    toy = str(ROOT / "tests/fixtures/bad/models/ok_model.toml")
    runs = str(ROOT / "tests/fixtures/bad/timings/ok_timings.csv")
    base = ["whatif", toy, "-m", str(ROOT / "calibration/hyglac.toml"), "--fit", runs,
            "--vary", "nodes=1,16,32"]
    text = runner.invoke(app, base)
    assert text.exit_code == 0, text.output
    assert "warning: node count 32 lies outside 1–16, the range the constants were fitted on" \
        in text.stdout
    row32 = [ln for ln in text.stdout.splitlines() if ln.strip().startswith("32 ")]
    assert row32 and all(ln.rstrip().endswith("extrapolated") for ln in row32)
    doc = json.loads(runner.invoke(app, [*base, "--json"]).stdout)
    assert doc["fitted_nodes"] == [1.0, 16.0]
    assert {r["nodes"]: r["extrapolated"] for r in doc["front"]} == {1: False, 16: False,
                                                                     32: True}
    csv = runner.invoke(app, [*base, "--csv"]).stdout.splitlines()
    assert csv[0].endswith(",extrapolated")
    assert [ln.rsplit(",", 1)[1] for ln in csv[1:]] == ["0", "0", "1"]
    bigger = tmp_path / "bigger.toml"   # Hyglac's catalogue with a 64-port switch
    bigger.write_text((ROOT / "data/catalogues/hyglac-1997.toml").read_text()
                      .replace("ports = 16", "ports = 64"))
    plan = ["plan", toy, "-m", str(ROOT / "calibration/hyglac.toml"), "--fit", runs,
            "--candidates", str(bigger), "--nodes", "16,32",
            "--target-time", "0.7s"]   # 16 nodes take 0.9 s: only 32, beyond the fit, meet it
    chosen = runner.invoke(app, plan)
    assert chosen.exit_code == 0, chosen.output
    assert "extrapolated: node count 32 lies outside 1–16" in chosen.stdout
    pdoc = json.loads(runner.invoke(app, [*plan, "--json"]).stdout)
    assert pdoc["chosen"]["extrapolated"] is True and pdoc["fitted_nodes"] == [1.0, 16.0]
    given = json.loads(runner.invoke(app, [*base[:4], "--fit", runs, "--set", "work=10",
                                           "--set", "hop=0.01", "--vary", "nodes=1,32",
                                           "--json"]).stdout)
    assert not any(r["extrapolated"] for r in given["front"])   # nothing fitted: no range


def test_scaling_marks_counts_below_the_measured_ones(tmp_path: Path) -> None:
    runs = tmp_path / "runs.csv"
    runs.write_text("nodes,time_s\n8,100\n16,52\n32,27\n64,15\n")
    doc = json.loads(runner.invoke(app, ["scaling", str(runs), "--nodes", "2,8,48,128",
                                         "--json"]).stdout)
    assert [r["trust"] for r in doc["predictions"]] == ["below", "measured", "measured", "near"]


def test_an_unidentifiable_fit_names_the_timings_file(tmp_path: Path) -> None:
    model = tmp_path / "tree.toml"
    model.write_text(TREE)
    runs = tmp_path / "runs.csv"
    runs.write_text("nodes,time_s\n2,51\n2,52\n4,26.5\n4,26.0\n")
    res = runner.invoke(app, ["predict", str(model), "--fit", str(runs)])
    assert res.exit_code == 2
    assert res.stderr.startswith(f"error: {runs}: the timings cannot tell s, w, t apart")


def test_a_quoted_header_is_read_by_scaling(tmp_path: Path) -> None:
    """R's write.csv quotes its header: the timing reader of scaling takes it as predict's does."""
    runs = tmp_path / "q.csv"
    runs.write_text('"nodes","time_s"\n1,10\n2,5.2\n4,2.8\n8,1.6\n16,1\n')
    assert runner.invoke(app, ["scaling", str(runs)]).exit_code == 0


def test_messages_beyond_the_calibrated_sizes_are_flagged() -> None:
    """PPM's ghost messages on the 1995 Beowulf are 3840·√⌈16/p⌉·ghost_values bytes: about
    10.6 KiB at 2 nodes, 7.5 KiB at 4, 1.3 KiB at 16.  Its fabric was fitted on 1–8 KiB
    tokens: predict marks the 2-node row, and only it, as extrapolated, and says why."""
    args = ["predict", "ppm", "--machine", str(ROOT / "calibration/beowulf-1995.toml"),
            "--fit", str(ROOT / "data/seeds/beowulf-1995-apps.csv"), "--where", "code=ppm",
            "--where", "use=fit", "--nodes", "2,16"]
    text = runner.invoke(app, args)
    assert text.exit_code == 0, text.output
    assert ("warning: messages up to 10861.2 B (at 2 nodes) reach outside the 1 KiB–8 KiB the "
            "profile beowulf-1995 was calibrated on, and the time depends on them: their "
            "network costs are extrapolated") in text.stdout
    doc = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    below, above = doc["message_sizes_outside_calibration"]   # none below 1 KiB
    assert below is None and above == pytest.approx(10861.2, rel=1e-4)
    assert doc["calibrated_message_sizes"] == [1024.0, 8192.0]
    assert [r["extrapolated_in"] for r in doc["rows"]] == [["messages"], []]
    assert doc["unmeasured_hardware"] == {}
    fast = json.loads(runner.invoke(app, [*args, "--link-speed", "100Mbps", "--json"]).stdout)
    assert fast["unmeasured_hardware"] == {"link_speed": [12.5e6]}
    specified = json.loads(runner.invoke(app, ["predict", "ppm", "--machine",
                                               str(ROOT / "calibration/beowulf-ii.toml"),
                                               "--fit", str(ROOT / "data/seeds/"
                                                            "beowulf-1995-apps.csv"),
                                               "--where", "code=ppm", "--where", "use=fit",
                                               "--nodes", "2", "--json"]).stdout)
    assert specified["message_sizes_outside_calibration"] is None   # nothing measured to leave


BEOWULF = str(ROOT / "calibration/beowulf-1995.toml")
APPS = str(ROOT / "data/seeds/beowulf-1995-apps.csv")


def test_a_watched_machine_keeps_only_the_messages_really_sent() -> None:
    """Per process count: nothing at one process (no message is sent), m at every live level of
    recursive doubling, m/p in a ring; levels a smaller p does not run, and exchanges with no
    neighbour, are left out; an unwatched machine keeps nothing."""
    from perfmodel.machine import Machine
    from perfmodel.machine.collectives import call
    from perfmodel.machine.profile import load

    plain = Machine(load(BEOWULF))
    on = plain.watched()
    p = np.array([1.0, 2.0, 4.0, 8.0])
    call("allreduce", on, (np.full(4, 2048.0),), p, {})
    seen = on.messages(p.shape)
    assert seen.lo.tolist() == [math.inf, 2048, 2048, 2048] and seen.hi[0] == -math.inf
    ring = plain.watched()
    call("allreduce", ring, (np.full(4, 2048.0),), p, {"allreduce": "ring"})
    assert ring.messages(p.shape).lo.tolist() == [math.inf, 1024, 512, 256]
    tree = plain.watched()   # binomial scatter: round i moves m·2^(L-i-1), L levels of the job's
    call("scatter", tree, (np.full(2, 1024.0),), np.array([2.0, 8.0]), {})
    got = tree.messages((2,))
    assert got.lo.tolist() == [1024, 1024] and got.hi.tolist() == [1024, 4096]
    none = plain.watched()
    call("exchange", none, (np.full(2, 1024.0), np.array([0.0, 2.0])), np.array([4.0, 4.0]), {})
    assert none.messages((2,)).lo.tolist() == [math.inf, 1024]
    assert got.outside.tolist() == [False, False] and got.calibrated == (1024.0, 8192.0)
    call("allreduce", plain, (np.full(4, 1e9),), p, {})
    assert plain.log is None and not plain.messages((4,)).outside.any()


def test_sweeps_flag_messages_and_problem_sizes_beyond_what_was_measured() -> None:
    """nbody's messages at 8 nodes run to 14 KiB, past the 1–8 KiB the 1995 Beowulf's fabric was
    fitted on; at 16 nodes they stay inside.  ppm's constants were fitted at 16 tiles: a weak
    sweep at 16 tiles per node reaches 32 and 256 tiles, and 15 KiB messages."""
    base = ["whatif", "nbody", "-m", BEOWULF, "--fit", APPS, "--where", "code=nbody",
            "--where", "use=fit", "--vary", "nodes=8,16", "--vary", "channels=1,2"]
    doc = json.loads(runner.invoke(app, [*base, "--json"]).stdout)
    assert {r["nodes"]: r["extrapolated_in"] for r in doc["front"]} == {8: ["messages"], 16: []}
    assert doc["calibrated_message_sizes"] == [1024.0, 8192.0]
    assert doc["extrapolation"] == ["messages up to 14 KiB (at 8 nodes) reach outside the 1 KiB–"
                                    "8 KiB the profile beowulf-1995 was calibrated on, and the "
                                    "time depends on them: their network costs are extrapolated"]
    assert doc["unmeasured_hardware"] == {}
    faster = runner.invoke(app, [*base, "--vary", "link_speed=10Mbps,100Mbps"])
    assert "note: link speed 100 Mb/s (the profile's 10 Mb/s) was not measured: there the " \
        "fabric's laws carry its calibrated costs" in faster.stdout
    assert json.loads(runner.invoke(app, [*base, "--vary", "link_speed=10Mbps,100Mbps",
                                          "--json"]).stdout)["unmeasured_hardware"] == \
        {"link_speed": [12.5e6]}
    weak = ["whatif", "ppm", "-m", BEOWULF, "--fit", APPS, "--where", "code=ppm", "--where",
            "use=fit", "--vary", "nodes=1,2,16", "--scaling", "weak", "--size", "16"]
    text = runner.invoke(app, weak)
    assert text.exit_code == 0, text.output
    assert ("warning: problem sizes 32–256 tiles (at 2, 16 nodes) lie outside 16 tiles, the "
            "sizes the constants were fitted on: extrapolated") in text.stdout
    csv = runner.invoke(app, [*weak, "--csv"]).stdout.splitlines()
    assert [ln.rsplit(",", 1)[1] for ln in csv[1:]] == ["0", "1", "1"]
    wdoc = json.loads(runner.invoke(app, [*weak, "--json"]).stdout)
    assert wdoc["fitted_sizes"] == [16.0, 16.0]
    assert [r["extrapolated_in"] for r in wdoc["front"]] == [[], ["problem size", "messages"],
                                                             ["problem size", "messages"]]


def test_a_specified_network_is_said_to_have_nothing_to_check_against() -> None:
    """beowulf-ii's fabric is specified from a spec, never measured: no message is marked,
    and a note says there is no calibrated range."""
    args = ["whatif", "ppm", "-m", str(ROOT / "calibration/beowulf-ii.toml"), "--fit", APPS,
            "--where", "code=ppm", "--where", "use=fit", "--vary", "nodes=2,16"]
    text = runner.invoke(app, args)
    assert text.exit_code == 0, text.output
    assert "note: the profile's network is specified, not measured: its costs for the " \
        "messages sent (3840 B–10861.2 B) have no calibrated range" in text.stdout
    one = runner.invoke(app, [*args[:4], "--set", "end_wait=0.05", "--vary", "nodes=2"])
    assert one.exit_code == 0, one.output
    assert "messages sent (10861.2 B) have" in one.stdout   # one size, said once
    doc = json.loads(runner.invoke(app, [*args, "--json"]).stdout)
    assert doc["calibrated_message_sizes"] is None
    assert not any("messages" in r["extrapolated_in"] for r in doc["front"])


def test_a_saved_fit_keeps_the_problem_sizes_it_was_fitted_on(tmp_path: Path) -> None:
    po = str(ROOT / "data/seeds/physical-optics.csv")
    saved = tmp_path / "po.toml"
    fit = ["predict", "physical-optics", "--fit", po, "--where", "table=2", "--where",
           "machine=beowulf", "--nodes", "1", "--save", str(saved)]
    assert runner.invoke(app, fit).exit_code == 0
    doc = json.loads(runner.invoke(app, ["predict", "physical-optics", "--from", str(saved),
                                         "--nodes", "1,4", "--size", "400", "--json"]).stdout)
    assert doc["fitted_sizes"] == [4900.0, 4900.0]
    assert [r["extrapolated_in"] for r in doc["rows"]] == [["problem size"]] * 2


SWITCH = """kind = "perfmodel application model"
schema_version = 1
name = "switch"
description = "a 64 KiB message from 8 processes on, a 2 KiB one always"
[parts.main]
communication = "max(0, min(1, p - 7)) * msg(65536) + msg(2048)"
"""


def test_a_message_switched_off_by_its_factor_is_not_counted(tmp_path: Path) -> None:
    """Below 8 processes the 64 KiB message is costed but multiplied by 0: the time does not
    depend on it, so only 8 processes are extrapolated (2 KiB lies inside 1–8 KiB)."""
    model = tmp_path / "switch.toml"
    model.write_text(SWITCH)
    doc = json.loads(runner.invoke(app, ["predict", str(model), "--machine", BEOWULF,
                                         "--nodes", "2,4,8", "--json"]).stdout)
    assert [r["extrapolated_in"] for r in doc["rows"]] == [[], [], ["messages"]]
    assert doc["message_sizes_outside_calibration"] == [None, 65536.0]
    sweep = json.loads(runner.invoke(app, ["whatif", str(model), "--machine", BEOWULF,
                                           "--vary", "nodes=2,4,8", "--json"]).stdout)
    assert sweep["extrapolation"] == ["messages up to 64 KiB (at 8 nodes) reach outside the "
                                      "1 KiB–8 KiB the profile beowulf-1995 was calibrated on, "
                                      "and the time depends on them: their network costs are "
                                      "extrapolated"]


def test_an_old_saved_fit_says_it_cannot_check_problem_sizes(tmp_path: Path) -> None:
    po = str(ROOT / "data/seeds/physical-optics.csv")
    saved = tmp_path / "po.toml"
    assert runner.invoke(app, ["predict", "physical-optics", "--fit", po, "--where", "table=2",
                               "--where", "machine=beowulf", "--save", str(saved)]).exit_code == 0
    old = tmp_path / "old.toml"
    old.write_text("\n".join(ln for ln in saved.read_text().splitlines()
                             if not ln.startswith("sizes =")) + "\n")
    doc = json.loads(runner.invoke(app, ["predict", "physical-optics", "--from", str(old),
                                         "--nodes", "1", "--size", "400", "--json"]).stdout)
    assert any("does not record the problem sizes" in n for n in doc["notes"])
    assert doc["rows"][0]["extrapolated_in"] == []


def test_the_unmeasured_hardware_note_counts_what_it_names() -> None:
    from perfmodel.apps.trust import unmeasured_note

    own = {"link_speed": 1.25e6, "latency": 1e-4}
    assert unmeasured_note({}, own, False) is None
    assert unmeasured_note({"link_speed": [12.5e6, 125e6]}, own, False) == (
        "link speeds 100 Mb/s, 1 Gb/s (the profile's 10 Mb/s) were not measured: there the "
        "fabric's laws carry its calibrated costs to hardware it does not have")
    assert unmeasured_note({"latency": [5e-5]}, own, True).startswith(
        "latency 50 µs (the profile's 100 µs) was not measured: there the fabric's laws carry "
        "its specified costs")
    many = [1.25e6 * k for k in range(2, 1002)]
    assert unmeasured_note({"link_speed": many}, own, False).startswith(
        "link speeds 20 Mb/s … 10.01 Gb/s (1,000 values; the profile's 10 Mb/s) were not "
        "measured")
