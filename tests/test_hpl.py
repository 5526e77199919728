"""HPL outputs as printed: real public files (tests/fixtures/benchmarks/public/PROVENANCE.md),
each run's N, grid, time and rate read back, the rate checked against HPL's own operation
count."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

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
