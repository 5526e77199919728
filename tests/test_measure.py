"""measure without MPI: the plan, the stopping rule, the CSV and its round trip through the
reader and calibrate, and launcher detection."""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pytest
from scipy import optimize
from scipy import stats as sps

from perfmodel.calibrate import calibrate
from perfmodel.errors import InputError, SetupError
from perfmodel.measure import launch
from perfmodel.measure.plan import Plan, Rule, counts, make_plan
from perfmodel.measure.stats import (
    PROBE,
    Summary,
    median_interval,
    next_batch,
    stopped_by,
    summarise,
)
from perfmodel.measure.table import (
    Result,
    Row,
    link_placement,
    oversubscribed,
    ring_placement,
    to_csv,
)
from perfmodel.readers import read

# --- the plan ----------------------------------------------------------------------------------


def test_plan_sizes_doubling_and_listed() -> None:
    assert make_plan("pingpong", "1B..1KiB").sizes == tuple(2**i for i in range(11))
    assert make_plan("pingpong", "0B,8KiB,1B").sizes == (0, 1, 8192)


@pytest.mark.parametrize(("kwargs", "said"), [
    ({"pattern": "ring"}, "not a pattern"),
    ({"pattern": "pingpong", "sizes": "1.5B"}, "whole number of bytes"),
    ({"pattern": "pingpong", "sizes": "2GiB"}, "whole number of bytes"),
    ({"pattern": "pingpong", "sizes": "8KB/s"}, "--sizes"),
    ({"pattern": "fanin", "sizes": "0B,1B"}, "zero-byte"),
    ({"pattern": "pingpong", "counts": "1,2"}, "a ping-pong has none"),
    ({"pattern": "pairs", "counts": "0..2"}, "--counts"),
    ({"pattern": "pingpong", "reps": 0}, "--reps"),
    ({"pattern": "fanin", "window": 0}, "--window"),
    ({"pattern": "pingpong", "tolerance": 1.5}, "--tolerance"),
    ({"pattern": "pingpong", "budget": 0.0}, "--max-time"),
])
def test_plan_refuses(kwargs: dict[str, object], said: str) -> None:
    with pytest.raises(InputError, match=said):
        make_plan(**kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(("pattern", "nprocs", "want"), [
    ("pingpong", 2, (1,)), ("pingpong", 5, (1,)),
    ("pairs", 2, (1,)), ("pairs", 5, (1, 2)), ("pairs", 8, (1, 2, 3, 4)),
    ("fanin", 2, (1,)), ("fanin", 4, (1, 2, 3)),
    ("exchange", 2, (2,)), ("exchange", 6, (2, 4, 6)), ("exchange", 8, (2, 4, 8)),
])
def test_counts_by_job_size(pattern: str, nprocs: int, want: tuple[int, ...]) -> None:
    assert counts(make_plan(pattern), nprocs) == want


def test_counts_given_and_refused() -> None:
    assert counts(make_plan("exchange", counts="2,3"), 4) == (2, 3)
    with pytest.raises(InputError, match="4 ranks give 1 to 2 pairs, not 3"):
        counts(make_plan("pairs", counts="1..3"), 4)
    with pytest.raises(InputError, match="not 1"):
        counts(make_plan("exchange", counts="1,2"), 4)
    with pytest.raises(InputError, match="at least 2 ranks"):
        counts(make_plan("pingpong"), 1)


# --- the stopping rule -------------------------------------------------------------------------

@pytest.mark.parametrize("n", [10, 30, 100, 1000])
def test_median_interval_is_the_binomial_order_statistics(n: int) -> None:
    """Known answer: the interval between the j-th and k-th of n samples covers the median
    with probability P(j <= Binomial(n, 1/2) < k); it is near 95 % and never far below."""
    lo, hi = median_interval(np.arange(1, n + 1))
    j, k = int(lo), int(hi)
    coverage = sps.binom.cdf(k - 1, n, 0.5) - sps.binom.cdf(j - 1, n, 0.5)
    assert 0.93 <= coverage <= 0.99
    assert j + k == n + 1 or abs((j + k) - (n + 1)) <= 1   # symmetric about the middle
    assert median_interval(np.arange(1, 101)) == (40.0, 61.0)   # Conover's table, n = 100


def test_summarise_known_values() -> None:
    s = summarise([4.0, 1.0, 3.0, 2.0, 5.0, 6.0, 7.0, 8.0, 9.0])
    assert (s.median, s.t_min, s.t_max, s.n) == (5.0, 1.0, 9.0, 9)
    assert (s.p25, s.p75) == (3.0, 7.0)
    assert math.isinf(summarise([1.0, 2.0]).halfwidth)   # too few to bound the median


def _summary(n: int, half: float) -> Summary:
    return Summary(1.0, 0.9, 1.1, 0.8, 2.0, n, half)


def test_next_batch_fixed_reps() -> None:
    rule = Rule(reps=50)
    assert next_batch(None, 0.0, rule) == 50
    assert next_batch(_summary(50, 0.5), 1.0, rule) == 0
    assert stopped_by(_summary(50, 0.5), rule) == "fixed"


def test_next_batch_probe_minimum_doubling_and_stops() -> None:
    rule = Rule(tolerance=0.01, budget=1.0, min_reps=100, max_reps=1000)
    assert next_batch(None, 0.0, rule) == 1                           # pace unknown: one
    assert next_batch(None, 0.0, rule, pace=1e-6) == PROBE
    assert next_batch(None, 0.0, rule, pace=0.3) == 3                 # what the budget holds
    assert next_batch(None, 0.0, rule, pace=30.0) == 1                # never none
    assert next_batch(_summary(8, 0.2), 0.001, rule) == 92            # up to the minimum
    assert next_batch(_summary(100, 0.2), 0.01, rule) == 100          # then doubling
    assert next_batch(_summary(800, 0.2), 0.01, rule) == 200          # trimmed to max_reps
    assert next_batch(_summary(100, 0.005), 0.01, rule) == 0          # settled
    assert next_batch(_summary(50, 0.005), 0.01, rule) == 50          # settled but too few
    assert next_batch(_summary(100, 0.2), 0.9, rule) == 11            # what 0.1 s allows
    assert next_batch(_summary(100, 0.2), 1.2, rule) == 0             # budget spent
    assert stopped_by(_summary(100, 0.005), rule) == "stable"
    assert stopped_by(_summary(1000, 0.02), rule) == "max reps"
    assert stopped_by(_summary(300, 0.02), rule) == "time budget"
    assert stopped_by(_summary(40, 0.005), rule) == "time budget, fewer than 100 reps"


def test_stopping_rule_on_synthetic_timings_recovers_the_median() -> None:
    """Seeded lognormal 'timings' with a heavy tail: the rule stops once the interval is
    within 1 %, and the median it reports is within 1 % of the true one in 95 % of trials or
    more."""
    rng = np.random.default_rng(7)
    base, hits, trials = 2e-6, 0, 200

    def below(x: float) -> float:   # the mixture's distribution function
        return float(0.98 * sps.norm.cdf(np.log(x / base) / 0.2)
                     + 0.02 * sps.norm.cdf(np.log(x / (20 * base)) / 0.2))

    true_median = optimize.brentq(lambda x: below(x) - 0.5, base / 2, 2 * base)
    rule = Rule(tolerance=0.01, budget=1e9, min_reps=100, max_reps=100_000)
    for _ in range(trials):
        samples: list[float] = []
        summary = None
        while (n := next_batch(summary, 0.0, rule, pace=1e-6)) > 0:
            draw = base * rng.lognormal(0.0, 0.2, n)
            tail = rng.random(n) < 0.02
            draw[tail] *= 20                        # interrupts: 2 % of repetitions 20x slower
            samples += draw.tolist()
            summary = summarise(samples)
        assert summary is not None and summary.halfwidth <= 0.01
        hits += abs(summary.median / true_median - 1) <= 0.01
    assert hits >= 0.93 * trials, hits


# --- the CSV -----------------------------------------------------------------------------------

def _result(pattern: str, times: dict[tuple[int, int], float], procs: int = 2,
            placement: str = "intra-node", crowded: bool = False) -> Result:
    rows = tuple(Row(size, count, procs if pattern != "exchange" else count,
                     Summary(t, 0.97 * t, 1.02 * t, 0.95 * t, 3 * t, 400, 0.004),
                     placement, crowded, "stable")
                 for (count, size), t in times.items())
    return Result(pattern, rows, (("command", "perfmodel measure --pattern " + pattern),
                                  ("hosts", "node01: ranks 0-1 of 2, 8 cores")))


def test_csv_pingpong_reads_back_with_its_spread(tmp_path: Path) -> None:
    result = _result("pingpong", {(1, 0): 1.2e-6, (1, 8): 1.25e-6, (1, 65536): 9.5e-6})
    path = tmp_path / "pp.csv"
    path.write_text(to_csv(result))
    (table,) = read(path)
    assert table.size.tolist() == [0, 8, 65536] and table.pattern == "pingpong"
    assert np.allclose(table.time, [1.2e-6, 1.25e-6, 9.5e-6], rtol=1e-6)
    assert np.allclose(table.extra["t_min"], 0.95 * table.time, rtol=1e-5)
    assert np.allclose(table.extra["t_max"], 3 * table.time, rtol=1e-5)
    assert table.reps is not None and table.reps.tolist() == [400] * 3
    assert table.statistic == ("median",) * 3 and table.counts("processes") == (2,)
    assert any(c.startswith("hosts: node01") for c in table.comments)


def test_csv_fanin_aggregate_gives_back_one_streams_time(tmp_path: Path) -> None:
    result = _result("fanin", {(1, 1024): 1e-6, (3, 1024): 2.5e-6}, procs=4)
    path = tmp_path / "f.csv"
    path.write_text(to_csv(result))
    (table,) = read(path)
    assert table.quantity == "aggregate" and table.counts("senders") == (1, 3)
    assert np.allclose(table.time, [1e-6, 2.5e-6], rtol=1e-5)   # size × senders / aggregate


def test_csv_exchange_is_an_exchange_table(tmp_path: Path) -> None:
    result = _result("exchange", {(2, 8): 3e-6, (4, 8): 5e-6}, placement="block")
    path = tmp_path / "x.csv"
    path.write_text(to_csv(result))
    (table,) = read(path)
    assert table.pattern == "exchange" and table.quantity == "time"
    assert table.counts("processes") == (2, 4) and table.placement == ("block", "block")


def test_csv_says_oversubscription_and_unsettled_points() -> None:
    rows = (Row(8, 2, 4, Summary(4e-6, 3e-6, 5e-6, 2e-6, 9e-5, 300, 0.031), "intra-node",
                True, "time budget"),)
    text = to_csv(Result("pairs", rows, ()))
    assert "# OVERSUBSCRIBED: the rows of 4 processes" in text
    assert "# not settled: 1 point(s)" in text and "8 B (2) ±3.1% of 300 (time budget)" in text
    assert text.rstrip().endswith("8,4,2,3,5,90,300,median,2,4,intra-node oversubscribed")


def test_measured_then_calibrated_recovers_hockney(tmp_path: Path) -> None:
    """Known answer through the CSV: medians of a Hockney link (α = 2 µs, β = 1 GB/s) with
    1 % noise, written as measure writes them, calibrate back to α and β within 3 %."""
    rng = np.random.default_rng(3)
    sizes = [2**i for i in range(0, 23)]
    times = {(1, m): (2e-6 + m / 1e9) * (1 + 0.01 * rng.standard_normal()) for m in sizes}
    path = tmp_path / "pp.csv"
    path.write_text(to_csv(_result("pingpong", times)))
    fitted = calibrate([path], model="hockney").profile.network.values
    assert fitted["alpha"] == pytest.approx(2e-6, rel=0.03)
    assert fitted["beta"] == pytest.approx(1e9, rel=0.03)


@pytest.mark.parametrize(("text", "said"), [
    ("size_bytes,time_us\n8,3.0\n", "does not say what it times"),
    ("size_bytes,time_us,pattern\n8,3.0,exchange\n16,3.1,sendrecv\n", "differs from the first"),
    ("size_bytes,time_us,pattern\n8,3.0,ring\n", "pattern 'ring' is not one of"),
    ("size_bytes,one_way_us,t_min_us,t_max_us\n8,3.0,4.0,2.0\n", "t_min_us exceeds t_max_us"),
    ("size_bytes,one_way_us,t_min_us\n8,3.0,3.5\n", "wrong side of the row's time"),
    ("size_bytes,one_way_us,t_max_us\n8,3.0,2.5\n", "wrong side of the row's time"),
    ("size_bytes,one_way_us,p25_us\n8,3.0,-1\n", "must be positive"),
])
def test_reader_refuses_bad_measure_columns(tmp_path: Path, text: str, said: str) -> None:
    path = tmp_path / "bad.csv"
    path.write_text(text)
    with pytest.raises(InputError, match=said) as info:
        read(path)
    assert info.value.line is not None


def _write(path: Path, pattern: str, times: dict[tuple[int, int], float], procs: int = 2) -> Path:
    path.write_text(to_csv(_result(pattern, times, procs=procs)))
    return path


def test_fanin_informs_only_the_fabric_in_either_order(tmp_path: Path) -> None:
    sizes = [2**i for i in range(0, 21, 2)]
    ping = _write(tmp_path / "pp.csv", "pingpong", {(1, m): 2e-6 + m / 1e9 for m in sizes})
    fan = _write(tmp_path / "fan.csv", "fanin",
                 {(n, m): n * (1e-6 + m / 2e9) for n in (1, 2, 3) for m in sizes}, procs=4)
    (table,) = read(fan)
    assert table.pattern == "fanin" and table.is_fanin
    for order in ([ping, fan], [fan, ping]):
        cal = calibrate(order, model="hockney")
        assert len(cal.data) == len(sizes)                  # the ping-pong rows only
        assert cal.fabric is not None and cal.fabric.n == 4 * len(sizes)
        assert any("a fan-in: its 11 one-sender rows are streams" in n for n in cal.notes)
    # --benchmark picks the other file's table; the fan-in still goes to the fabric
    assert calibrate([ping, fan], model="hockney", benchmark="pingpong").fabric is not None
    with pytest.raises(InputError, match="no ping-pong rows") as info:
        calibrate([fan], model="hockney", benchmark="fanin")
    assert info.value.file == str(fan)


def test_only_marked_or_several_senders_make_a_fanin(tmp_path: Path) -> None:
    stream = tmp_path / "s.csv"
    stream.write_text("size_bytes,bandwidth_MBps,senders,pattern\n"
                      + "".join(f"{m},{m / (1 + m / 1000):.6g},1,stream\n"
                                for m in (1, 64, 4096, 65536)))
    (table,) = read(stream)
    assert not table.is_fanin   # one stream, not a fan-in: it calibrates as before
    assert calibrate([stream], model="hockney", benchmark="stream").profile is not None
    ring = tmp_path / "x.csv"
    ring.write_text("size_bytes,time_us,senders,processes,pattern\n8,3,2,2,exchange\n")
    assert not read(ring)[0].is_fanin


def test_check_writable_refuses_a_place_no_file_can_be_made(tmp_path: Path) -> None:
    from perfmodel.errors import OutputError
    from perfmodel.io import check_writable

    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputError, match="a part of its path that is a file"):
        check_writable(tmp_path / "file" / "out.csv")
    assert check_writable(tmp_path / "new" / "deeper" / "out.csv").name == "out.csv"
    assert not (tmp_path / "new").exists()            # nothing made until the write
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file"]


def test_launcher_rank_and_size() -> None:
    assert launch.launcher_rank({"PMI_RANK": "3"}) == 3
    assert launch.launcher_rank({"SLURM_PROCID": "x"}) is None
    assert launch.launcher_size({"PMI_SIZE": "4", "SLURM_STEP_NUM_TASKS": "1"}) == 4
    assert launch.launcher_size({launch.EXPECTED: "2", "PMI_SIZE": "4"}) == 2
    assert launch.launcher_size({}) is None
    assert launch.detect({"SLURM_STEP_NUM_TASKS": "many"}) is None


# --- placement ---------------------------------------------------------------------------------

def test_placements() -> None:
    assert link_placement(["a", "a"], [(0, 1)]) == "intra-node"
    assert link_placement(["a", "b", "a", "b"], [(0, 1), (2, 3)]) == "inter-node"
    assert link_placement(["a", "a", "b", "b"], [(0, 1), (0, 2)]) == "mixed"
    assert ring_placement(["a", "a", "b", "b"]) == "block"
    assert ring_placement(["a", "b", "a", "b"]) == "cyclic"
    assert ring_placement(["a", "b", "c"]) == "block"   # one per box is every order at once
    assert ring_placement(["a", "a", "b", "a"]) is None
    assert oversubscribed(["a"] * 4 + ["b"] * 2, {"a": 2, "b": 2}) == {"a": 4}


# --- launching ---------------------------------------------------------------------------------

@pytest.mark.parametrize(("env", "who"), [
    ({"PMI_RANK": "0"}, "PMI"), ({"OMPI_COMM_WORLD_SIZE": "4"}, "Open MPI"),
    ({"PMIX_RANK": "1"}, "PMIx"), ({"SLURM_STEP_NUM_TASKS": "8", "SLURM_PROCID": "3"}, "srun"),
    ({launch.LAUNCHED: "mpiexec -n 2, started by perfmodel"}, "started by perfmodel"),
])
def test_detect_launchers(env: dict[str, str], who: str) -> None:
    said = launch.detect(env)
    assert said is not None and who in said


def test_detect_nothing_in_a_plain_shell() -> None:
    assert launch.detect({"HOME": "/root", "PATH": "/usr/bin", "SLURM_JOB_ID": "7"}) is None
    # srun -n 1 (one task): perfmodel starts its own ranks inside it
    assert launch.detect({"SLURM_STEP_NUM_TASKS": "1", "SLURM_PROCID": "0"}) is None


def test_find_mpiexec_beside_python_first(tmp_path: Path) -> None:
    venv, other = tmp_path / "venv" / "bin", tmp_path / "other"
    venv.mkdir(parents=True)
    other.mkdir()
    for folder in (venv, other):
        exe = folder / "mpiexec"
        exe.write_text("#!/bin/sh\n")
        exe.chmod(0o755)
    assert launch.find_mpiexec(str(venv / "python"), path=str(other)) == venv / "mpiexec"
    (venv / "mpiexec").unlink()
    assert launch.find_mpiexec(str(venv / "python"), path=str(other)) == other / "mpiexec"
    with pytest.raises(SetupError, match="no mpiexec"):
        launch.find_mpiexec(str(venv / "python"), path=str(tmp_path / "nowhere"))


def test_local_command_and_child_env() -> None:
    cmd = launch.local_command(Path("/x/mpiexec"), 4, ["measure", "--pattern", "pairs"],
                               python="/x/python")
    assert cmd == ["/x/mpiexec", "-n", "4", "/x/python", "-P", "-m", "perfmodel", "measure",
                   "--pattern", "pairs"]
    assert launch.launcher_rank({"OMPI_COMM_WORLD_RANK": "2"}) == 2
    env = launch.child_env({"A": "1"}, Path("/x/mpiexec"), 4)
    assert env["A"] == "1" and env[launch.EXPECTED] == "4"
    assert launch.detect(env) == env[launch.LAUNCHED]   # the ranks never start mpiexec again


def test_plan_is_frozen() -> None:
    plan = make_plan("pingpong")
    assert isinstance(plan, Plan)
    with pytest.raises(AttributeError):
        plan.pattern = "pairs"  # type: ignore[misc]
    assert os.environ.get(launch.LAUNCHED) is None


# --- the committed measurements of the development machine -------------------------------------

LOCAL = Path(__file__).resolve().parent.parent / "data" / "local"


def test_committed_pingpong_agrees_with_mpi4py_bench_beside_it() -> None:
    """The issue's check on data/local (both runs made by `make measure-local`, one after the
    other): perfmodel's small-message latency (1 B to 64 B) and large-message bandwidth
    (4 MiB) within a factor of 2 of mpi4py.bench's."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "measure_agreement", LOCAL.parent.parent / "bench" / "measure_agreement.py")
    assert spec is not None and spec.loader is not None
    agreement = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(agreement)
    (ours,), (theirs,) = read(LOCAL / "pingpong-np2.csv"), read(
        LOCAL / "mpi4py-bench-pingpong-np2.txt")
    rows = agreement.agreement(ours, theirs)
    checked = [r for r in rows if r[4]]
    assert [r[0] for r in checked] == ["small-message latency (median over 1 B–64 B)",
                                       "bandwidth at 4 MiB"]
    for what, a, b, _, _ in checked:
        assert 0.5 <= a / b <= 2.0, what


@pytest.mark.parametrize("name", ["pingpong-np2.csv", "pairs-np4.csv", "fanin-np4.csv",
                                  "exchange-np4.csv"])
def test_committed_measurements_say_where_they_come_from(name: str) -> None:
    (table,) = read(LOCAL / name)
    said = "\n".join(table.comments)
    for key in ("measured: 2026-", "command: perfmodel measure", "hosts: ", "mpi: MPICH",
                "machine: ", "method: "):
        assert key in said, key
    if name.endswith("np4.csv"):   # four ranks on the two-core development machine
        assert "OVERSUBSCRIBED" in said
