"""A node's roofline (perfmodel.node): the law, specs and profiles carrying it, and the
``kernel``/``host`` functions models call."""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from perfmodel.apps.model_file import loads
from perfmodel.apps.timings import read_timings
from perfmodel.errors import InputError, UnitError
from perfmodel.machine import Machine
from perfmodel.machine.profile import Profile, dumps, from_dict, load
from perfmodel.network.spec import load_spec
from perfmodel.node import PARAMS, kernel_seconds, parse_param, specified
from perfmodel.units import parse_flop_rate
from tests.conftest import ROOT


def from_text(text: str) -> Profile:
    import tomllib

    return from_dict(tomllib.loads(text))


NODE = {"flop_rate": 1e9, "memory_bandwidth": 4e9, "memory_domain": 2.0,
        "domain_bandwidth": 6e9, "cache_line": 64.0}


def test_flop_rate_units() -> None:
    assert parse_flop_rate("4.5Mflop/s") == 4.5e6
    assert parse_flop_rate("2GFLOPS") == 2e9
    assert parse_flop_rate("1.2 Gflop/s") == 1.2e9
    with pytest.raises(UnitError, match="milli"):
        parse_flop_rate("4mflops")
    with pytest.raises(UnitError):
        parse_flop_rate("4.5MB/s")


def test_roofline_takes_the_longer_of_arithmetic_and_memory() -> None:
    # compute bound: 1 Gflop at 1 Gflop/s, 1 GB at 4 GB/s
    assert kernel_seconds(NODE, 1e9, 1e9, 1) == pytest.approx(1.0)
    # memory bound: 8 GB at 4 GB/s
    assert kernel_seconds(NODE, 1e9, 8e9, 1) == pytest.approx(2.0)
    # two processes share a 6 GB/s domain: 3 GB/s each; beyond the domain, no more sharing
    assert kernel_seconds(NODE, 0.0, 6e9, 2) == pytest.approx(2.0)
    assert kernel_seconds(NODE, 0.0, 6e9, 64) == pytest.approx(2.0)
    # no memory traffic is no memory time, even with an unlimited bandwidth
    free = {**NODE, "memory_bandwidth": math.inf, "domain_bandwidth": math.inf}
    assert kernel_seconds(free, 2e9, 0.0, 4) == pytest.approx(2.0)
    grid = kernel_seconds(NODE, np.array([1e9, 2e9]), np.array([[8e9], [0.0]]), 1)
    assert grid.shape == (2, 2)
    np.testing.assert_allclose(grid, [[2.0, 2.0], [1.0, 2.0]])


def test_random_accesses_move_whole_cache_lines() -> None:
    """A random access moves a whole line: 1e8 accesses of 64-byte lines are 6.4 GB of
    traffic, 1.6 s at 4 GB/s; with 32-byte lines half that.  Streamed bytes add to them, the
    domain shares them, and a negative count is NaN."""
    assert kernel_seconds(NODE, 0.0, 0.0, 1, 1e8) == pytest.approx(1.6)
    assert kernel_seconds({**NODE, "cache_line": 32.0}, 0.0, 0.0, 1, 1e8) == pytest.approx(0.8)
    assert kernel_seconds(NODE, 0.0, 1.6e9, 1, 1e8) == pytest.approx(2.0)
    assert kernel_seconds(NODE, 0.0, 0.0, 2, 1e8) == pytest.approx(6.4e9 / 3e9)
    assert kernel_seconds(NODE, 5e9, 0.0, 1, 1e8) == pytest.approx(5.0)   # arithmetic wins
    assert np.isnan(kernel_seconds(NODE, 0.0, 0.0, 1, -1.0))


def test_node_params_checked() -> None:
    assert parse_param("flop_rate", "4.5Mflop/s") == 4.5e6
    assert parse_param("memory_bandwidth", "inf") == math.inf
    for name, text in (("flop_rate", "inf"), ("flop_rate", "0Mflop/s"), ("memory_domain", "1.5"),
                       ("memory_domain", "0"), ("cache", "1MiB"), ("memory_bandwidth", "fast")):
        with pytest.raises(InputError):
            parse_param(name, text)
    node = specified({"flop_rate": 1e9}, {"flop_rate": "a datasheet"})
    assert [p.name for p in node.params] == list(PARAMS)
    assert node.estimate("flop_rate").status == "fixed"
    assert node.estimate("memory_bandwidth").status == "assumed"
    with pytest.raises(InputError, match="flop_rate must be given"):
        specified({}, {})


def test_spec_node_table(tmp_path: Path) -> None:
    spec = load_spec(ROOT / "data" / "seeds" / "beowulf-1995-ethernet.spec.toml")
    assert spec.node is not None and spec.node.fixed["flop_rate"] == 4.5e6
    bad = tmp_path / "bad.spec.toml"
    bad.write_text('kind = "perfmodel network spec"\nschema_version = 1\nmodel = "hockney"\n'
                   '[params.beta]\nvalue = "1MB/s"\nsource = "x"\n'
                   '[node.params.flops]\nvalue = "1Gflop/s"\nsource = "x"\n')
    with pytest.raises(InputError) as err:
        load_spec(bad)
    assert err.value.line == 7 and "no parameter 'flops'" in err.value.what


def test_profile_node_round_trip_and_checks() -> None:
    prof = load(ROOT / "calibration" / "beowulf-1995.toml")
    assert prof.node is not None and prof.node.values["flop_rate"] == 4.5e6
    again = from_text(dumps(prof))
    assert again.node is not None
    assert [(q.name, q.value, q.status, q.source) for q in again.node.params] == \
        [(q.name, q.value, q.status, q.source) for q in prof.node.params]
    text = dumps(prof).replace("flop_rate = { value = 4500000.0", "flop_rate = { value = -1.0")
    with pytest.raises(InputError, match="flop_rate"):
        from_text(text)


MODEL = """kind = "perfmodel application model"
schema_version = 1
name = "triad"
flops = "2 * n"
[size]
value = 1e8
unit = "elements"
description = "vector length"
[parts.run]
compute = "kernel(2 * n / p, 24 * n / p)"
communication = "host(8)"
"""


def test_kernel_and_host_in_formulas() -> None:
    prof = load(ROOT / "calibration" / "es80.toml")
    model = loads(MODEL)
    node = specified({"flop_rate": 1e9, "memory_bandwidth": 2.4e9}, {})
    on = Machine(replace(prof, node=node))
    terms = model.evaluate(np.array([1.0, 2.0]), {}, on)
    # 2.4 GB at 2.4 GB/s (memory bound) on one process, half on each of two
    np.testing.assert_allclose(terms[("run", "compute")], [1.0, 0.5])
    # one host operation: the fabric's per-message overhead (0 on one process)
    assert terms[("run", "communication")][0] == 0.0
    assert terms[("run", "communication")][1] == pytest.approx(
        prof.fabric.values["overhead"] + 8 * prof.fabric.values["copy"])   # type: ignore[union-attr]
    with pytest.raises(InputError, match=r"has no \[node\]"):
        model.evaluate(np.array([2.0]), {}, Machine(replace(prof, node=None)))
    # a what-if flop rate: compute-bound at 1 flop/s... the memory still bounds at 1 s
    assert Machine(replace(prof, node=node), flop_rate=1e12).kernel(2e9, 0.0, 1) == \
        pytest.approx(2e-3)


def test_mflops_timings(tmp_path: Path) -> None:
    f = tmp_path / "rates.csv"
    f.write_text("nodes,mflops\n1,4.5\n16,31\n")
    rows = read_timings(f)
    assert rows.measure == "mflops" and list(rows.times) == [4.5, 31.0]
    model = loads(MODEL)
    np.testing.assert_allclose(model.flop_count(rows.processes), [2e8, 2e8])
    bad = loads(MODEL.replace('flops = "2 * n"', 'flops = "c * n"') +
                '[params.c]\nunit = "flop"\ndescription = "per element"\n')
    with pytest.raises(InputError, match="needs c, which is fitted"):
        bad.flop_count(rows.processes)
    assert bad.flop_count(rows.processes, given={"c": 3.0})[0] == pytest.approx(3e8)


def test_kernel_refuses_negative_and_non_finite_counts() -> None:
    got = kernel_seconds(NODE, np.array([1e9, -1.0, np.nan, 1e9, 1e9]),
                         np.array([0.0, 0.0, 0.0, -1.0, np.inf]), 1)
    assert got[0] == pytest.approx(1.0)
    assert np.all(np.isnan(got[1:]))


def test_host_without_a_fabric_is_the_whole_message() -> None:
    prof = load(ROOT / "calibration" / "hyglac-mpi.toml")
    assert prof.fabric is None
    on = Machine(prof)
    assert on.host(1e6) == pytest.approx(on.message(1e6))
    assert on.host(1e6) > on.host(8.0)


def test_calibrate_carries_the_spec_node() -> None:
    from perfmodel.calibrate import calibrate

    seeds = ROOT / "data" / "seeds"
    one = calibrate([seeds / "beowulf-1995-ethernet.csv"],
                    spec=load_spec(seeds / "beowulf-1995-ethernet.spec.toml")).profile
    assert one.node is not None
    assert one.node.estimate("flop_rate").value == 4.5e6
    assert one.node.estimate("flop_rate").status == "fixed"
    two = calibrate([], spec=load_spec(seeds / "beowulf-ii.spec.toml")).profile
    assert two.node is not None
    assert two.node.estimate("flop_rate").value == 9e6
    assert two.node.estimate("flop_rate").status == "assumed"


def test_spec_node_without_flop_rate(tmp_path: Path) -> None:
    f = tmp_path / "n.spec.toml"
    f.write_text('kind = "perfmodel network spec"\nschema_version = 1\nmodel = "hockney"\n'
                 '[node.params.memory_domain]\nvalue = "2"\nsource = "x"\n')
    with pytest.raises(InputError, match="no flop_rate") as err:
        load_spec(f)
    assert err.value.line == 4
    f.write_text(f.read_text().replace('value = "2"', "value = 2"))
    with pytest.raises(InputError) as err:
        load_spec(f)
    assert '"2"' in (err.value.fix or "")


def test_a_profile_from_before_cache_line_still_loads(tmp_path: Path) -> None:
    """A [node] written before cache_line existed takes its default, marked assumed."""
    from perfmodel.machine.profile import load as load_profile

    text = (ROOT / "calibration" / "beowulf-1995.toml").read_text()
    old = "\n".join(ln for ln in text.splitlines() if not ln.startswith("cache_line ="))
    path = tmp_path / "old.toml"
    path.write_text(old)
    node = load_profile(path).node
    assert node is not None
    assert node.values["cache_line"] == 64.0
    assert node.estimate("cache_line").status == "assumed"
