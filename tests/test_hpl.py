"""HPL outputs as printed: real public files (tests/fixtures/benchmarks/public/PROVENANCE.md),
each run's N, grid, time and rate read back, the rate checked against HPL's own operation
count."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from perfmodel.errors import InputError
from perfmodel.readers import read
from perfmodel.readers.hpl import flops

PUBLIC = Path(__file__).parent / "fixtures" / "benchmarks" / "public"


def test_the_operation_count_is_hpls() -> None:
    """HPL_pdtest: 2/3·N³ + 3/2·N²; the 2.3 file's first run, N = 15000 in 21.32 s, prints
    1.0555e+02 Gflops."""
    assert flops(15000) == pytest.approx(2.2503375e12, rel=1e-12)
    assert flops(15000) / 21.32 / 1e9 == pytest.approx(105.55, abs=0.005)


def test_a_nb_sweep_is_one_table_of_runs() -> None:
    (t,) = read(PUBLIC / "hpl_2.3_np64_nb_sweep.txt")
    assert (t.format, t.version, t.benchmark, t.pattern) == ("hpl", "2.3", "HPL", "application")
    assert len(t) == 8 and np.all(np.isnan(t.size))
    assert tuple(t.counts("processes")) == (64,)
    assert list(t.extra["nb"][:3]) == [64.0, 128.0, 192.0]
    assert t.extra["flop_rate"][0] == pytest.approx(105.55e9, rel=1e-12)
    assert set(t.extra["verified"]) == {1.0} and t.line[0] == 47


def test_p_and_q_vary_while_the_process_count_stays() -> None:
    (t,) = read(PUBLIC / "hpl_2.1_np32_pq_nb_sweep.txt")
    assert len(t) == 24 and tuple(t.counts("processes")) == (32,)
    assert sorted(set(t.extra["p"])) == [1.0, 2.0, 4.0]
    assert np.all(t.extra["p"] * t.extra["q"] == 32)
    assert t.extra["n"][0] == 73497 and t.time[0] == pytest.approx(935.67)


def test_a_run_whose_residual_check_failed_is_left_out_and_said(tmp_path: Path) -> None:
    text = (PUBLIC / "hpl_2.3_np64_nb_sweep.txt").read_text()
    first = text.index("...... PASSED")
    path = tmp_path / "hpl.out"
    path.write_text(text[:first] + "...... FAILED" + text[first + len("...... PASSED"):])
    (t,) = read(path)
    assert len(t) == 7 and t.line[0] == 57
    assert any("residual check FAILED (line 47)" in n for n in t.notes)


ROW = "WR11R2C2       15000    64     8     8              21.32             1.0555e+02"


def _edited(tmp_path: Path, row: str, head: str = "") -> Path:
    text = (PUBLIC / "hpl_2.3_np64_nb_sweep.txt").read_text()
    assert ROW in text
    path = tmp_path / "hpl.out"
    path.write_text(head + text.replace(ROW, row, 1))
    return path


def test_a_run_too_short_for_the_printed_time_takes_it_from_its_rate(tmp_path: Path) -> None:
    """A run printed as 0.00 s (HPL prints two decimals) keeps its row: its time is its
    operations over its printed Gflops (the rate HPL took from its own timer), and a note says
    so; before, such rows were dropped and a slower run was called the best."""
    (t,) = read(_edited(tmp_path, ROW.replace("15000", "  900").replace("21.32", " 0.00")))
    assert len(t) == 8 and t.line[0] == 47
    assert t.time[0] == pytest.approx(flops(900) / 105.55e9, rel=1e-12)   # 4.6 ms
    assert t.time[1] == pytest.approx(24.70)   # a run of seconds keeps its printed time
    with pytest.raises(InputError, match=r"time is 0\.00 s, but its N and Gflops give 21\.32 s"):
        read(_edited(tmp_path, ROW.replace("21.32", " 0.00")))
    assert any("1 run printed a time under 1 s, to two decimals (first at line 47)" in n
               for n in t.notes)


@pytest.mark.parametrize(("row", "head", "said"), [
    (ROW.replace("8     8              21.32             1.0555e+02",
                 "1     1              10.66             2.1110e+02"), "",
     "211.1 Gflop/s a process, and more than one core does"),
    (ROW, "HPL-NVIDIA 1.0.0  -- NVIDIA accelerated HPL benchmark -- NVIDIA\n",
     "an accelerated build (HPL-NVIDIA 1.0.0"),
])
def test_a_rate_no_core_gives_is_said_beside_the_node(tmp_path: Path, row: str, head: str,
                                                       said: str) -> None:
    """One process at 211 Gflop/s (above a core's 128) or a GPU build of HPL: the profile's
    flop rate is a process's, and the node's notes say so; a plain CPU run says nothing."""
    from perfmodel.node_rates import node_from

    node, notes = node_from(read(_edited(tmp_path, row, head)))
    assert node is not None
    assert any(said in n and "not a core's" in n for n in notes), notes
    _, plain = node_from(read(PUBLIC / "hpl_2.3_np64_nb_sweep.txt"))
    assert not any("not a core's" in n for n in plain)


def test_a_node_file_alone_is_refused_with_the_command_that_takes_it(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from perfmodel.cli.app import app

    res = CliRunner().invoke(app, ["calibrate", str(PUBLIC / "hpl_2.3_np64_nb_sweep.txt"),
                                   "--no-write"])
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert "holds a node's rates (HPL) and no network" in res.output
    assert "perfmodel calibrate osu_latency.out" in res.output


def test_a_run_with_no_residual_check_is_not_verified_nor_the_nodes_rate(tmp_path: Path) -> None:
    """The first run's check line cut (the next run's output follows at once, as in an HPCC
    file whose next run starts after the result) and its time halved, so that it would be
    the best: it is kept, flagged not verified and said, and the node's flop rate is the best
    verified run's, with a note."""
    from perfmodel.node_rates import node_from

    text = (PUBLIC / "hpl_2.3_np64_nb_sweep.txt").read_text()
    check = "||Ax-b||_oo/(eps*(||A||_oo*||x||_oo+||b||_oo)*N)=   3.31875682e-03 ...... PASSED\n"
    assert check in text
    path = tmp_path / "hpl.out"
    path.write_text(text.replace(check, "", 1).replace(
        ROW, ROW.replace("21.32             1.0555e+02", "10.66             2.1110e+02"), 1))
    (t,) = read(path)
    assert len(t) == 8 and np.isnan(t.extra["verified"][0])
    assert np.all(t.extra["verified"][1:] == 1)
    assert any("the run at line 47 has no residual check" in n for n in t.notes)
    node, notes = node_from((t,))
    assert node is not None
    assert node.values["flop_rate"] == pytest.approx(
        float(np.max(t.extra["flop_rate"][1:])) / 64, rel=1e-12)
    assert any("1 HPL run(s) without a PASSED residual check left out" in n for n in notes)
    assert any(n.startswith("node: ") and "line 47 has no residual check" in n for n in notes)
